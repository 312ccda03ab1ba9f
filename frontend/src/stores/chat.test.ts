import { beforeEach, describe, expect, it, vi } from 'vitest'
import { chat, review } from '../lib/api'
import { BackendError, onEvent } from '../lib/bridge'
import type { GantryEvent } from '../lib/events'
import { ChatStore, Transcript } from './chat.svelte'
import { ReviewStore } from './review.svelte'
import { dropEarlyReplay, fetchShownChat, rememberSession, takeEarlyReplay } from './sessionReplay'

vi.mock('../lib/api', () => ({
  chat: { send: vi.fn(), stop: vi.fn(), replay: vi.fn(), activeRun: vi.fn(), runningTasks: vi.fn(async () => []) },
  review: { files: vi.fn() },
}))
vi.mock('../lib/bridge', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../lib/bridge')>()),
  onEvent: vi.fn(() => () => {}),
}))

beforeEach(() => vi.clearAllMocks())

let seq = 0
const ev = (type: string, payload: unknown, over: Partial<GantryEvent> = {}): GantryEvent =>
  ({ id: `e${++seq}`, seq, sessionId: 's1', runId: 'r1', type, payload, time: '', ...over }) as GantryEvent

/** A run that thinks, reads a file, runs a command and answers. */
function run(): GantryEvent[] {
  seq = 0
  return [
    ev('runStarted', { mode: 'agent', model: 'qwen3:4b', text: 'Fix the build', toolPath: 'native' }),
    ev('thinking', { iteration: 1, text: 'Let me' }),
    ev('thinking', { iteration: 1, text: 'Let me look.' }),
    ev('thinkingDone', { iteration: 1, durationMs: 8200 }),
    ev('spinner', { label: 'Reading README.md…' }),
    ev('progressGroupStarted', { groupId: 'g1', iteration: 1, title: 'Reading files' }),
    ev('toolAction', { groupId: 'g1', actionId: 'a1', tool: 'read_file', status: 'running', title: 'Read README.md', path: 'README.md' }),
    ev('toolAction', { groupId: 'g1', actionId: 'a1', tool: 'read_file', status: 'success', title: 'Read README.md', path: 'README.md', startLine: 1, endLine: 40, durationMs: 12 }),
    ev('toolAction', { groupId: 'g1', actionId: 'a2', tool: 'run_command', status: 'running', title: 'Run go build', command: 'go build ./...' }),
    ev('commandOutput', { actionId: 'a2', chunk: 'main.go:3: ' }),
    ev('commandOutput', { actionId: 'a2', chunk: 'undefined: x\n' }),
    ev('toolAction', { groupId: 'g1', actionId: 'a2', tool: 'run_command', status: 'error', title: 'Run go build', command: 'go build ./...', detail: 'exit 1', durationMs: 900 }),
    ev('progressGroupFinished', { groupId: 'g1', iteration: 1 }),
    ev('assistantText', { iteration: 2, text: 'Done' }),
    ev('assistantText', { iteration: 2, text: 'Done **here**.' }),
    ev('runFinished', { status: 'done', message: 'Done **here**.', filesChanged: null }),
  ]
}

/** A stored session of one finished run that changed a file, as the replay gives it; returns the
 * run's account of the change. */
function storedChange() {
  seq = 0
  const changed = [{ path: 'a.go', status: 'pending', change: 'modified', added: 1, removed: 0 }]
  vi.mocked(chat.replay).mockResolvedValue([
    ev('runStarted', { text: 'x' }),
    ev('runFinished', { status: 'done', message: '', filesChanged: changed }),
  ])
  vi.mocked(chat.activeRun).mockResolvedValue('')
  return changed
}

/** An in-memory sessionStorage, and onEvent's listeners collected in the returned list, for the
 * early-replay tests. */
function earlyReplaySetup(): ((e: GantryEvent) => void)[] {
  const stored = new Map<string, string>()
  vi.stubGlobal('sessionStorage', {
    getItem: (k: string) => stored.get(k) ?? null,
    setItem: (k: string, v: string) => stored.set(k, v),
    removeItem: (k: string) => stored.delete(k),
  })
  const live: ((e: GantryEvent) => void)[] = []
  vi.mocked(onEvent).mockImplementation((h) => {
    live.push(h)
    return () => live.splice(live.indexOf(h), 1)
  })
  return live
}

describe('Transcript', () => {
  it('builds a turn from a run', () => {
    const t = new Transcript('s1')
    const events = run()
    for (const e of events.slice(0, 9)) t.apply(e)
    let turn = t.turns[0]
    expect(turn.text).toBe('Fix the build')
    expect(turn.status).toBe('running')
    expect(turn.spinner).toBe('Reading README.md…')
    expect(turn.items[0]).toEqual({ kind: 'thinking', iteration: 1, text: 'Let me look.', done: true, durationMs: 8200 })
    for (const e of events.slice(9)) t.apply(e)
    turn = t.turns[0]
    expect(turn.items.map((i) => i.kind)).toEqual(['thinking', 'group', 'text'])
    const group = turn.items[1].kind === 'group' ? turn.items[1].group : null
    expect(group?.title).toBe('Reading files')
    expect(group?.finished).toBe(true)
    expect(turn.spinner).toBe('')
    expect(group?.actions.map((a) => [a.id, a.status])).toEqual([['a1', 'success'], ['a2', 'error']])
    expect(group?.actions[0]).toMatchObject({ path: 'README.md', startLine: 1, endLine: 40, durationMs: 12 })
    expect(group?.actions[1]).toMatchObject({ output: 'main.go:3: undefined: x\n', detail: 'exit 1', durationMs: 900 })
    expect(turn.items[2]).toEqual({ kind: 'text', iteration: 2, text: 'Done **here**.' })
    expect(turn).toMatchObject({ status: 'done', message: 'Done **here**.', spinner: '', filesChanged: [] })
    expect(t.running).toBeUndefined()
  })

  it('keeps the forms of calls read from the text on their group', () => {
    const t = new Transcript('s1')
    seq = 0
    t.apply(ev('runStarted', { mode: 'agent', model: 'qwen3:4b', text: 'Look', toolPath: 'native' }))
    t.apply(ev('progressGroupStarted', { groupId: 'g1', iteration: 1, title: 'Reading files', dialects: ['mistral'], rescued: true }))
    t.apply(ev('progressGroupStarted', { groupId: 'g2', iteration: 2, title: 'Reading files' }))
    const groups = t.turns[0].items.flatMap((i) => (i.kind === 'group' ? [i.group] : []))
    expect(groups.map((g) => [g.dialects, g.rescued])).toEqual([
      [['mistral'], true],
      [[], false],
    ])
  })

  it('follows the waits before an answer (in line, loading, reading), the counts after it and a cut prompt', () => {
    const t = new Transcript('s1')
    seq = 0
    t.apply(ev('runStarted', { mode: 'agent', model: 'qwen3:8b', text: 'Look', toolPath: 'native' }))
    const turn = () => t.turns[0]
    t.apply(ev('modelWaiting', { phase: 'queued', model: 'qwen3:8b' }))
    expect(turn().waiting).toEqual({ phase: 'queued', model: 'qwen3:8b' })
    t.apply(ev('modelWaiting', { phase: 'loading', model: 'qwen3:8b' }))
    expect(turn().waiting).toEqual({ phase: 'loading', model: 'qwen3:8b' })
    t.apply(ev('modelWaiting', { phase: 'prefill', model: 'qwen3:8b', promptTokens: 6200 }))
    expect(turn().waiting?.phase).toBe('prefill')
    t.apply(ev('modelWaiting', { phase: '', model: 'qwen3:8b' }))
    expect(turn().waiting).toBeNull()
    const usage = { iteration: 1, model: 'qwen3:8b', promptTokens: 6200, answerTokens: 40, window: 8192, loadMs: 1, promptMs: 2, answerMs: 3 }
    t.apply(ev('contextUsage', usage))
    expect(t.usage).toEqual(usage)
    const cut = { iteration: 2, promptTokens: 8192, expected: 7000, window: 8192, retrying: true }
    t.apply(ev('promptCut', cut))
    expect(turn().items.at(-1)).toEqual({ kind: 'cut', info: cut })
    t.apply(ev('modelWaiting', { phase: 'prefill', model: 'qwen3:8b', promptTokens: 3000 }))
    t.apply(ev('runFinished', { status: 'done', message: 'ok', filesChanged: null }))
    expect(turn().waiting).toBeNull()
    // A later run without counts yet leaves the session's latest counts in place.
    t.apply(ev('runStarted', { mode: 'agent', model: 'qwen3:8b', text: 'More' }, { runId: 'r2' }))
    expect(t.usage).toEqual(usage)
  })

  it('marks a turn whose final answer Ollama cut', () => {
    const t = new Transcript('s1')
    const events = run()
    for (const e of events.slice(0, -1)) t.apply(e)
    expect(t.turns[0].truncated).toBe(false)
    t.apply(ev('runFinished', { status: 'done', message: 'Done **here**.', filesChanged: null, truncated: true }))
    expect(t.turns[0]).toMatchObject({ status: 'done', truncated: true })
  })

  it('drops events at or below the last seq, so a replay and the live stream can overlap', () => {
    const events = run()
    const t = new Transcript('s1')
    for (const e of events.slice(0, 11)) t.apply(e)
    // The live stream delivers what the replay already had, then goes on.
    for (const e of events.slice(8)) t.apply(e)
    const group = t.turns[0].items[1].kind === 'group' ? t.turns[0].items[1].group : null
    expect(group?.actions[1].output).toBe('main.go:3: undefined: x\n')
    expect(t.turns).toHaveLength(1)
    expect(t.lastSeq).toBe(events.length)
  })

  it('renders a replay exactly like the live stream', () => {
    const live = new Transcript('s1')
    const replayed = new Transcript('s1')
    const events = run()
    events.forEach((e) => live.apply(e))
    ;[...events, ...events].forEach((e) => replayed.apply(e))
    expect(JSON.stringify(replayed.turns)).toBe(JSON.stringify(live.turns))
  })

  it('ignores other sessions and app-wide events', () => {
    const t = new Transcript('s1')
    expect(t.apply(ev('runStarted', { text: 'x' }, { sessionId: 's2' }))).toBe(false)
    expect(t.apply(ev('ollamaStatus', {}, { sessionId: '' }))).toBe(false)
    expect(t.turns).toHaveLength(0)
  })

  it('keeps a cancelled run with its message and closes what was still open', () => {
    seq = 0
    const t = new Transcript('s1')
    t.apply(ev('runStarted', { mode: 'agent', model: 'm', text: 'Go' }))
    t.apply(ev('thinking', { iteration: 1, text: 'Hmm' }))
    t.apply(ev('progressGroupStarted', { groupId: 'g1', iteration: 1, title: 'Running a command' }))
    t.apply(ev('spinner', { label: 'Running make…' }))
    t.apply(ev('runFinished', { status: 'cancelled', message: 'Stopped by you.', filesChanged: [] }))
    const turn = t.turns[0]
    expect(turn).toMatchObject({ status: 'cancelled', message: 'Stopped by you.', spinner: '' })
    expect(turn.items[0]).toMatchObject({ kind: 'thinking', done: true })
    expect(turn.items[1]).toMatchObject({ kind: 'group', group: { finished: true } })
  })

  it('gives a run seen only from its middle a turn of its own', () => {
    seq = 10
    const t = new Transcript('s1')
    t.apply(ev('assistantText', { iteration: 3, text: 'Partial' }, { runId: 'r9' }))
    expect(t.turns[0]).toMatchObject({ runId: 'r9', text: '', status: 'running' })
    t.apply(ev('runStarted', { mode: 'plan', model: 'm', text: 'late' }, { runId: 'r9' }))
    expect(t.turns).toHaveLength(1)
  })

  it('starts a new turn per run', () => {
    seq = 0
    const t = new Transcript('s1')
    t.apply(ev('runStarted', { text: 'one' }))
    t.apply(ev('runFinished', { status: 'failed', message: 'Ollama is not reachable', filesChanged: [] }))
    t.apply(ev('runStarted', { text: 'two' }, { runId: 'r2' }))
    expect(t.turns.map((x) => [x.text, x.status])).toEqual([['one', 'failed'], ['two', 'running']])
    expect(t.running?.runId).toBe('r2')
  })
})

describe('Transcript: a call and its steps', () => {
  it("folds read_file chunks into the call's one row", () => {
    seq = 0
    const t = new Transcript('s1')
    const g = 'r1.g1'
    for (const e of [
      ev('runStarted', { mode: 'agent', model: 'm', text: 'Read it', attachments: [{ path: 'a.go', startLine: 2, endLine: 4 }] }),
      ev('progressGroupStarted', { groupId: g, iteration: 1, title: 'Reading files' }),
      ev('toolAction', { groupId: g, actionId: `${g}.0`, tool: 'read_file', status: 'running', title: 'Reading a.go', path: 'a.go' }),
      ev('toolAction', { groupId: g, actionId: `${g}.0.1`, tool: 'read_file', status: 'running', title: 'Reading a.go', path: 'a.go', startLine: 1, endLine: 100 }),
      ev('toolAction', { groupId: g, actionId: `${g}.0.1`, tool: 'read_file', status: 'success', title: 'Read a.go', path: 'a.go', startLine: 1, endLine: 100 }),
      ev('toolAction', { groupId: g, actionId: `${g}.0.2`, tool: 'read_file', status: 'running', title: 'Reading a.go', path: 'a.go', startLine: 101, endLine: 140 }),
      ev('toolAction', { groupId: g, actionId: `${g}.1`, tool: 'read_file', status: 'running', title: 'Reading b.go', path: 'b.go' }),
    ])
      t.apply(e)
    const turn = t.turns[0]
    expect(turn.attachments).toEqual([{ path: 'a.go', startLine: 2, endLine: 4 }])
    const group = turn.items[0].kind === 'group' ? turn.items[0].group : null
    expect(group?.actions.map((a) => [a.id, a.status, a.startLine, a.endLine])).toEqual([
      [`${g}.0`, 'running', 1, 140],
      [`${g}.1`, 'running', 0, 0],
    ])
    t.apply(ev('toolAction', { groupId: g, actionId: `${g}.0`, tool: 'read_file', status: 'success', title: 'Reading a.go', path: 'a.go', startLine: 1, endLine: 140, durationMs: 7 }))
    expect(group?.actions[0]).toMatchObject({ status: 'success', durationMs: 7, startLine: 1, endLine: 140 })
    expect(group?.actions).toHaveLength(2)
  })

  it('keeps the rows of two runs apart, though their groups and calls have the same ids', () => {
    seq = 0
    const t = new Transcript('s1')
    const batch = (runId: string, title: string) => [
      ev('runStarted', { mode: 'agent', model: 'm', text: title }, { runId }),
      ev('progressGroupStarted', { groupId: 'g1', iteration: 1, title: 'Reading files' }, { runId }),
      ev('toolAction', { groupId: 'g1', actionId: 'g1.0', tool: 'read_file', status: 'running', title, path: 'a.go' }, { runId }),
    ]
    for (const e of [...batch('r1', 'Read a.go'), ...batch('r2', 'Read a.go again')]) t.apply(e)
    t.apply(ev('toolAction', { groupId: 'g1', actionId: 'g1.0', tool: 'read_file', status: 'success', title: 'Read a.go', path: 'a.go', durationMs: 3 }, { runId: 'r1' }))
    t.apply(ev('commandOutput', { actionId: 'g1.0', chunk: 'only r2' }, { runId: 'r2' }))
    const rows = t.turns.map((turn) => (turn.items[0].kind === 'group' ? turn.items[0].group.actions : []))
    expect(rows.map((r) => r.map((a) => [a.title, a.status, a.output]))).toEqual([
      [['Read a.go', 'success', '']],
      [['Read a.go again', 'running', 'only r2']],
    ])
  })

  it("keeps an MCP call's server and its answer, and its approval card", () => {
    seq = 0
    const t = new Transcript('s1')
    const g = 'r1.g1'
    const card = { id: 'c1', kind: 'mcp', server: 'notes', tool: 'write_note', arguments: '{"name": "a"}' }
    for (const e of [
      ev('runStarted', { mode: 'agent', model: 'm', text: 'Note it' }),
      ev('progressGroupStarted', { groupId: g, iteration: 1, title: 'Using notes' }),
      ev('toolAction', { groupId: g, actionId: `${g}.0`, tool: 'mcp__notes__write_note', status: 'pending', title: 'Calling write_note', server: 'notes' }),
      ev('approvalRequested', card),
    ])
      t.apply(e)
    expect(t.turns[0].approvals.map((a) => a.card)).toEqual([card])
    for (const e of [
      ev('approvalResolved', { id: 'c1', outcome: 'allowed' }),
      ev('toolAction', { groupId: g, actionId: `${g}.0`, tool: 'mcp__notes__write_note', status: 'running', title: 'Calling write_note', server: 'notes' }),
      ev('commandOutput', { actionId: `${g}.0`, chunk: 'wrote a\n' }),
      ev('toolAction', { groupId: g, actionId: `${g}.0`, tool: 'mcp__notes__write_note', status: 'success', title: 'Called write_note', server: 'notes' }),
    ])
      t.apply(e)
    const group = t.turns[0].items[0].kind === 'group' ? t.turns[0].items[0].group : null
    expect(group?.actions[0]).toMatchObject({ server: 'notes', status: 'success', output: 'wrote a\n', approval: 'allowed' })
  })
})

describe('ChatStore', () => {
  it('sends the attachments with the message and clears them once the run started', async () => {
    vi.mocked(chat.send).mockResolvedValue({ sessionId: 's1', runId: 'r1' })
    const store = new ChatStore()
    store.attach({ path: 'src/a.go', startLine: 0, endLine: 0 })
    store.attach({ path: 'src/b.go', startLine: 3, endLine: 9 })
    store.attach({ path: 'src/a.go', startLine: 0, endLine: 0 })
    store.attach({ path: 'src/c.go', startLine: 1, endLine: 1 })
    store.detach(2)
    expect(await store.send('Explain', 'm')).toBe(true)
    expect(vi.mocked(chat.send).mock.calls[0][0].attachments).toEqual([
      { path: 'src/a.go', startLine: 0, endLine: 0 },
      { path: 'src/b.go', startLine: 3, endLine: 9 },
    ])
    expect(store.attachments).toEqual([])
  })

  it('keeps an attachment added while the send was on its way', async () => {
    let started!: (v: { sessionId: string; runId: string }) => void
    vi.mocked(chat.send).mockReturnValueOnce(new Promise((r) => (started = r)))
    const store = new ChatStore()
    store.attach({ path: 'src/a.go', startLine: 0, endLine: 0 })
    const sending = store.send('Explain', 'm')
    store.attach({ path: 'src/later.go', startLine: 2, endLine: 5 })
    started({ sessionId: 's1', runId: 'r1' })
    expect(await sending).toBe(true)
    expect(store.attachments).toEqual([{ path: 'src/later.go', startLine: 2, endLine: 5 }])
  })

  it('keeps the attachments when Send fails', async () => {
    vi.mocked(chat.send).mockRejectedValue(new BackendError('attachment x.go: no such file'))
    const store = new ChatStore()
    store.attach({ path: 'x.go', startLine: 0, endLine: 0 })
    expect(await store.send('Explain', 'm')).toBe(false)
    expect(store.attachments).toHaveLength(1)
    expect(store.error).toContain('no such file')
  })

  it('runs a plan in Agent mode with the plan as SendRequest.plan', async () => {
    vi.mocked(chat.send).mockResolvedValue({ sessionId: 's1', runId: 'r2' })
    const store = new ChatStore()
    store.sessionId = 's1'
    store.mode = 'plan'
    expect(await store.runPlan('1. Add a test\n2. Fix it', 'm')).toBe(true)
    expect(chat.send).toHaveBeenCalledWith({
      sessionId: 's1', text: 'Carry out this plan.', mode: 'agent', model: 'm', attachments: [], plan: '1. Add a test\n2. Fix it',
    })
    expect(store.mode).toBe('agent')
    expect(await store.runPlan('again', 'm')).toBe(false)
  })

  it('send starts a session, tracks the run until runFinished, and stop stops it', async () => {
    vi.mocked(chat.send).mockResolvedValue({ sessionId: 's1', runId: 'r1' })
    const store = new ChatStore()
    store.mode = 'explore'
    expect(await store.send('  Fix the build ', 'qwen3:4b')).toBe(true)
    expect(chat.send).toHaveBeenCalledWith({ sessionId: '', text: 'Fix the build', mode: 'explore', model: 'qwen3:4b', attachments: [], plan: '' })
    expect(store.sessionId).toBe('s1')
    expect(store.activeRun).toBe('r1')
    expect(store.busy).toBe(true)
    expect(await store.send('again', 'm')).toBe(false)

    await store.stop()
    expect(chat.stop).toHaveBeenCalledWith('r1')
    seq = 0
    store.handleEvent(ev('runStarted', { text: 'Fix the build' }))
    store.handleEvent(ev('runFinished', { status: 'cancelled', message: '', filesChanged: [] }))
    expect(store.activeRun).toBe('')
    expect(store.current?.turns[0].status).toBe('cancelled')

    vi.mocked(chat.send).mockResolvedValue({ sessionId: 's1', runId: 'r2' })
    await store.send('next', 'm')
    expect(vi.mocked(chat.send).mock.calls[1][0].sessionId).toBe('s1')
  })

  it('knows a run that finished before Send returned is over', async () => {
    const store = new ChatStore()
    seq = 0
    vi.mocked(chat.send).mockImplementation(async () => {
      store.handleEvent(ev('runStarted', { text: 'x' }))
      store.handleEvent(ev('runFinished', { status: 'failed', message: 'no model', filesChanged: [] }))
      return { sessionId: 's1', runId: 'r1' }
    })
    await store.send('x', 'm')
    expect(store.activeRun).toBe('')
  })

  it('shows why Send failed and keeps the text for the caller', async () => {
    vi.mocked(chat.send).mockRejectedValue(new BackendError('Ollama is not reachable at 127.0.0.1:11434'))
    const store = new ChatStore()
    expect(await store.send('hello', '')).toBe(false)
    expect(store.error).toBe('Ollama is not reachable at 127.0.0.1:11434')
    expect(store.busy).toBe(false)
  })

  it('open replays a session and holds live events until the replay is in', async () => {
    const events = run()
    const store = new ChatStore()
    let release!: (v: GantryEvent[]) => void
    vi.mocked(chat.replay).mockReturnValue(new Promise((r) => (release = r)))
    vi.mocked(chat.activeRun).mockResolvedValue('')
    const opening = store.open('s1')
    // Live events overlapping the replay arrive while it loads.
    for (const e of events.slice(10)) store.handleEvent(e)
    expect(store.current?.turns ?? []).toHaveLength(0)
    release(events.slice(0, 12))
    await opening
    expect(chat.replay).toHaveBeenCalledWith('s1', 0, 5000)
    const turn = store.current!.turns[0]
    expect(turn.status).toBe('done')
    const group = turn.items[1].kind === 'group' ? turn.items[1].group : null
    expect(group?.actions[1].output).toBe('main.go:3: undefined: x\n')
    expect(store.loading).toBe(false)
  })

  it("open reads the latest turn's changed files before its turns are shown, for its review panel", async () => {
    const changed = storedChange()
    vi.mocked(review.files).mockResolvedValue([{ ...changed[0], status: 'kept' }] as never)
    const store = new ChatStore()
    await store.open('s1')
    expect(review.files).toHaveBeenCalledWith('s1', 'r1')
  })

  it('open shows the turns once the review list read ahead is in, or after a short wait for it', async () => {
    const changed = storedChange()
    vi.useFakeTimers()
    try {
      let answer!: (f: unknown) => void
      vi.mocked(review.files).mockReturnValue(new Promise((r) => (answer = r)) as never)
      const store = new ChatStore()
      const opening = store.open('s1')
      await vi.advanceTimersByTimeAsync(50)
      expect(store.current).toBeNull()
      answer([{ ...changed[0], status: 'kept' }])
      await vi.advanceTimersByTimeAsync(0)
      expect(store.current!.turns).toHaveLength(1)
      await opening

      // A list that takes long lands later; the turns do not wait for it.
      vi.mocked(review.files).mockReturnValue(new Promise(() => {}))
      const slow = new ChatStore()
      const opening2 = slow.open('s1')
      await vi.advanceTimersByTimeAsync(99)
      expect(slow.current).toBeNull()
      await vi.advanceTimersByTimeAsync(1)
      expect(slow.current!.turns).toHaveLength(1)
      await opening2
    } finally {
      vi.useRealTimers()
    }
  })

  it('a second open of the same session meanwhile keeps the review list read ahead for its panel', async () => {
    const changed = storedChange()
    let answer!: (f: unknown) => void
    vi.mocked(review.files).mockReturnValue(new Promise((r) => (answer = r)) as never)
    const store = new ChatStore()
    const first = store.open('s1')
    await vi.waitFor(() => expect(review.files).toHaveBeenCalledTimes(1))
    // The first open asks which run is going first; the second's question stays open.
    let running!: (r: string) => void
    vi.mocked(chat.activeRun)
      .mockResolvedValueOnce('')
      .mockReturnValueOnce(new Promise((r) => (running = r)))
    const second = store.open('s1')
    answer([{ ...changed[0], status: 'kept' }])
    await first
    // The second open shows the turns, and their panel takes the list read once.
    await vi.waitFor(() => expect(store.current?.turns).toHaveLength(1))
    const panel = new ReviewStore('s1', 'r1', changed as never)
    expect(panel.ready).toBe(true)
    expect(panel.files[0].status).toBe('kept')
    expect(review.files).toHaveBeenCalledTimes(1)
    running('')
    await second
  })

  it('open picks up a run still going', async () => {
    seq = 0
    vi.mocked(chat.replay).mockResolvedValue([ev('runStarted', { text: 'x' })])
    vi.mocked(chat.activeRun).mockResolvedValue('r1')
    const store = new ChatStore()
    await store.open('s1')
    expect(store.activeRun).toBe('r1')
  })

  it('open goes on with the model the session used last', async () => {
    seq = 0
    vi.mocked(chat.replay).mockResolvedValue([
      ev('runStarted', { text: 'x', model: 'qwen3:4b' }),
      ev('runFinished', { status: 'done', message: '', filesChanged: [] }),
    ])
    vi.mocked(chat.activeRun).mockResolvedValue('')
    const store = new ChatStore()
    store.model = 'llama3.2:3b'
    await store.open('s1')
    expect(store.model).toBe('qwen3:4b')
  })

  it('shows a session opened for the first time once all its pages are in, before asking what runs', async () => {
    seq = 0
    // A full page of 5000 events (2500 short runs), then the rest.
    const firstPage = Array.from({ length: 2500 }, (_, i) => [
      ev('runStarted', { text: `task ${i}` }, { runId: `r${i}` }),
      ev('runFinished', { status: 'done', message: '', filesChanged: null }, { runId: `r${i}` }),
    ]).flat()
    const rest = [ev('runStarted', { text: 'last' }, { runId: 'r2500' })]
    let release!: (v: GantryEvent[]) => void
    vi.mocked(chat.replay).mockResolvedValueOnce(firstPage).mockReturnValueOnce(new Promise((r) => (release = r)))
    let answer!: (runId: string) => void
    vi.mocked(chat.activeRun).mockReturnValue(new Promise((r) => (answer = r)))
    const store = new ChatStore()
    const opening = store.open('s1')
    await vi.waitFor(() => expect(chat.replay).toHaveBeenCalledTimes(2))
    expect(chat.replay).toHaveBeenLastCalledWith('s1', 5000, 5000)
    // Nothing shows half-loaded: the conversation renders once.
    expect(store.current).toBeNull()
    expect(store.loading).toBe(true)
    release(rest)
    await vi.waitFor(() => expect(chat.activeRun).toHaveBeenCalled())
    expect(store.current!.turns).toHaveLength(2501)
    expect(store.current!.turns.at(-1)!.text).toBe('last')
    // Live events wait for the answer.
    store.handleEvent(ev('runFinished', { status: 'done', message: '', filesChanged: null }, { runId: 'r2500' }))
    expect(store.current!.turns.at(-1)!.status).toBe('running')
    answer('')
    await opening
    expect(store.current!.turns.at(-1)!.status).toBe('done')
    expect(store.loading).toBe(false)
  })

  it('a reloaded window uses the replay it fetched early, with the live events that came meanwhile', async () => {
    const live = earlyReplaySetup()
    try {
      const events = run()
      rememberSession('/home/ada/proj', 's1')
      let release!: (v: GantryEvent[]) => void
      vi.mocked(chat.replay).mockReturnValue(new Promise((r) => (release = r)))
      vi.mocked(chat.activeRun).mockResolvedValue('')

      // The project is known (WorkspaceStore.restore) before the chat panel exists.
      fetchShownChat('/home/ada/proj')
      expect(chat.replay).toHaveBeenCalledWith('s1', 0, 5000)
      // The run goes on meanwhile: its events overlap the stored ones, then go past them.
      for (const e of events.slice(10)) live.forEach((h) => h(e))
      release(events.slice(0, 12))

      const store = new ChatStore()
      await store.bindWorkspace('/home/ada/proj')
      expect(chat.replay).toHaveBeenCalledTimes(1)
      expect(store.current!.turns[0].status).toBe('done')
      expect(live).toHaveLength(0) // the early replay stopped listening once taken
    } finally {
      vi.unstubAllGlobals()
    }
  })

  it("a reloaded window reads the latest review list as soon as its early replay is in, and open asks no more", async () => {
    earlyReplaySetup()
    try {
      const changed = storedChange()
      rememberSession('/home/ada/proj', 's1')
      let answer!: (f: unknown) => void
      vi.mocked(review.files).mockReturnValue(new Promise((r) => (answer = r)) as never)

      fetchShownChat('/home/ada/proj')
      await vi.waitFor(() => expect(review.files).toHaveBeenCalledWith('s1', 'r1'))
      const store = new ChatStore()
      const opening = store.bindWorkspace('/home/ada/proj')
      answer([{ ...changed[0], status: 'kept' }])
      await opening
      expect(review.files).toHaveBeenCalledTimes(1)
    } finally {
      vi.unstubAllGlobals()
    }
  })

  it('an early replay nobody takes stops listening once dropped (the project closed first)', () => {
    const live = earlyReplaySetup()
    try {
      vi.mocked(chat.replay).mockReturnValue(new Promise(() => {}))
      rememberSession('/home/ada/proj', 's1')
      fetchShownChat('/home/ada/proj')
      expect(live).toHaveLength(1)

      dropEarlyReplay()
      expect(live).toHaveLength(0)
      expect(takeEarlyReplay('s1')).toBeUndefined()
    } finally {
      vi.unstubAllGlobals()
    }
  })

  it('keeps the task list the model last left, also after a replay', () => {
    seq = 0
    const t = new Transcript('s1')
    t.apply(ev('runStarted', { text: 'x' }))
    t.apply(ev('taskList', { tasks: [{ id: 1, title: 'a', status: 'pending' }] }))
    t.apply(ev('taskList', { tasks: [{ id: 1, title: 'a', status: 'done' }, { id: 2, title: 'b', status: 'pending' }] }))
    expect(t.tasks.map((x) => x.status)).toEqual(['done', 'pending'])
  })
})

describe('Transcript approvals', () => {
  const card = { id: 'ap1', kind: 'command', command: 'rm -rf build', cwd: '/p', severity: 'high', reason: 'deletes files' }
  function waiting(): GantryEvent[] {
    seq = 0
    return [
      ev('runStarted', { mode: 'agent', model: 'qwen3:4b', text: 'Clean up' }),
      ev('progressGroupStarted', { groupId: 'g1', iteration: 1, title: 'Running commands' }),
      ev('toolAction', { groupId: 'g1', actionId: 'a1', tool: 'run_terminal_command', status: 'pending', title: 'Run', command: 'rm -rf build' }),
      ev('approvalRequested', card),
    ]
  }

  it('shows a card under the pending action on approvalRequested', () => {
    const t = new Transcript('s1')
    for (const e of waiting()) t.apply(e)
    expect(t.turns[0].approvals).toEqual([{ card, actionId: 'a1', groupId: 'g1' }])
  })

  it('removes the card on approvalResolved and marks the action', () => {
    const t = new Transcript('s1')
    for (const e of waiting()) t.apply(e)
    t.apply(ev('approvalResolved', { id: 'ap1', outcome: 'denied', message: 'not now' }))
    const turn = t.turns[0]
    expect(turn.approvals).toEqual([])
    const g = turn.items[0].kind === 'group' ? turn.items[0].group : null
    expect(g?.actions[0].approval).toBe('denied')
  })

  it('shows no live card when replaying an approval that was answered', () => {
    const events = [
      ...waiting(),
      ev('approvalResolved', { id: 'ap1', outcome: 'allowed' }),
      ev('toolAction', { groupId: 'g1', actionId: 'a1', tool: 'run_terminal_command', status: 'running', title: 'Run', command: 'rm -rf build' }),
    ]
    const s = new ChatStore()
    vi.mocked(chat.replay).mockResolvedValueOnce(events)
    vi.mocked(chat.activeRun).mockResolvedValueOnce('')
    return s.open('s1').then(() => {
      const turn = s.current!.turns[0]
      expect(turn.approvals).toEqual([])
      const g = turn.items[0].kind === 'group' ? turn.items[0].group : null
      expect(g?.actions[0]).toMatchObject({ status: 'running', approval: 'allowed' })
    })
  })

  it('marks a sandboxed command from its card on, and keeps the mark as the row updates', () => {
    const t = new Transcript('s1')
    seq = 0
    const row = (status: string, over = {}) =>
      ev('toolAction', { groupId: 'g1', actionId: 'a1', tool: 'run_terminal_command', status, title: 'Run', command: 'make', ...over })
    t.apply(ev('runStarted', { mode: 'agent', model: 'qwen3:4b', text: 'Build' }))
    t.apply(ev('progressGroupStarted', { groupId: 'g1', iteration: 1, title: 'Running commands' }))
    t.apply(row('pending'))
    t.apply(ev('approvalRequested', { ...card, id: 'ap9', command: 'make', sandboxed: true }))
    const action = () => (t.turns[0].items[0].kind === 'group' ? t.turns[0].items[0].group.actions[0] : null)
    expect(action()?.sandboxed).toBe(false)
    t.apply(ev('approvalResolved', { id: 'ap9', outcome: 'allowed' }))
    expect(action()?.sandboxed).toBe(true)
    t.apply(row('running'))
    expect(action()?.sandboxed).toBe(true)
    t.apply(row('success', { sandboxed: true, detail: 'exit 0' }))
    expect(action()).toMatchObject({ status: 'success', sandboxed: true })

    // Auto-approved: no card, the finished row alone says so; a plain command says nothing.
    const u = new Transcript('s1')
    u.apply(ev('runStarted', { mode: 'agent', model: 'qwen3:4b', text: 'Build' }))
    u.apply(row('running'))
    const first = () => (u.turns[0].items[0].kind === 'group' ? u.turns[0].items[0].group.actions[0] : null)
    expect(first()?.sandboxed).toBe(false)
    u.apply(row('success', { sandboxed: true }))
    expect(first()?.sandboxed).toBe(true)
  })

  it('drops cards still waiting when the run ends', () => {
    const t = new Transcript('s1')
    for (const e of waiting()) t.apply(e)
    t.apply(ev('runFinished', { status: 'cancelled', message: 'stopped', filesChanged: null }))
    expect(t.turns[0].approvals).toEqual([])
  })

  it('gives each of two waiting actions its own card', () => {
    const t = new Transcript('s1')
    for (const e of waiting()) t.apply(e)
    t.apply(ev('toolAction', { groupId: 'g1', actionId: 'a2', tool: 'write_file', status: 'pending', title: 'Write', path: 'x.txt' }))
    t.apply(ev('approvalRequested', { id: 'ap2', kind: 'edit', path: 'x.txt' }))
    expect(t.turns[0].approvals.map((a) => [a.card.id, a.actionId])).toEqual([['ap1', 'a1'], ['ap2', 'a2']])
  })

  it('routes live approval events through the store', () => {
    const s = new ChatStore()
    for (const e of waiting()) s.handleEvent(e)
    expect(s.transcript('s1').turns[0].approvals).toHaveLength(1)
    s.handleEvent(ev('approvalResolved', { id: 'ap1', outcome: 'alwaysAllowed' }))
    expect(s.transcript('s1').turns[0].approvals).toHaveLength(0)
  })
})

describe('Transcript: subagents and background tasks', () => {
  const sub = (runId: string, type: string, payload: unknown) => ev(type, payload, { runId })

  it('shows a subagent inside the call that started it, its question under that call', () => {
    seq = 0
    const t = new Transcript('s1')
    t.apply(ev('runStarted', { text: 'Fix the build' }))
    t.apply(ev('progressGroupStarted', { groupId: 'g1', iteration: 1, title: 'Delegating' }))
    t.apply(ev('toolAction', { groupId: 'g1', actionId: 'g1.0', tool: 'spawn_agent', status: 'running', title: 'Delegating “Find the loader”' }))
    t.apply(sub('c1', 'runStarted', { text: 'Find the loader', mode: 'explore', subagent: { parentRunId: 'r1', actionId: 'g1.0', sessionId: 'cs1', task: 'Find the loader' } }))
    t.apply(sub('c1', 'progressGroupStarted', { groupId: 'g1', iteration: 1, title: 'Reading files' }))
    t.apply(sub('c1', 'toolAction', { groupId: 'g1', actionId: 'g1.0', tool: 'read_file', status: 'pending', title: 'Reading .env' }))
    t.apply(sub('c1', 'approvalRequested', { id: 'ap1', kind: 'edit', path: '.env', subagent: 'Find the loader' }))

    expect(t.turns).toHaveLength(1)
    const parent = t.turns[0]
    const spawn = parent.items[0].kind === 'group' ? parent.items[0].group.actions[0] : null
    expect(spawn?.subagent).toBe('c1')
    expect(t.subruns.c1.items).toHaveLength(1)
    // Its waits for the model are its own.
    t.apply(sub('c1', 'modelWaiting', { phase: 'loading', model: 'qwen3:8b' }))
    expect(t.subruns.c1.waiting?.phase).toBe('loading')
    expect(parent.waiting).toBeNull()
    expect(parent.approvals.map((a) => [a.card.id, a.groupId, a.actionId])).toEqual([['ap1', 'g1', 'g1.0']])

    t.apply(sub('c1', 'approvalResolved', { id: 'ap1', outcome: 'allowed' }))
    expect(parent.approvals).toEqual([])
    t.apply(sub('c1', 'runFinished', { status: 'done', message: 'In config.go', filesChanged: [] }))
    expect(t.subruns.c1.status).toBe('done')
    expect(t.running).toBe(parent)
  })

  it('keeps background tasks as chips, shows a notice where the model got it, settles those Gantry lost', () => {
    seq = 0
    const t = new Transcript('s1')
    t.apply(ev('runStarted', { text: 'Look around' }))
    t.apply(ev('taskStarted', { taskId: 'bg1', runId: 'c1', parentRunId: 'r1', task: 'Count files', mode: 'explore' }))
    t.apply(ev('taskStarted', { taskId: 'bg2', runId: 'c2', parentRunId: 'r1', task: 'Watch logs', mode: 'explore' }))
    t.apply(ev('taskNotification', { taskId: 'bg1', runId: 'c1', status: 'done', summary: 'Background task “Count files” finished after 3 s, 1 tool use.', task: 'Count files', result: '3', toolUses: 1, durationMs: 3000, filesChanged: [], sessionId: 'cs1' }))
    expect(t.background.map((b) => [b.taskId, b.status])).toEqual([['bg1', 'done'], ['bg2', 'running']])
    expect(t.turns[0].items.at(-1)?.kind).toBe('notice')

    t.apply(ev('runFinished', { status: 'done', message: 'ok', filesChanged: [] }))
    t.apply(ev('runStarted', { text: '', notices: [{ taskId: 'bg1', summary: 'x' }] }, { runId: 'r2' }))
    expect(t.turns[1].notices).toHaveLength(1)

    t.settleBackground([])
    expect(t.background[1].status).toBe('cancelled')
    expect(t.background[1].summary).toContain('ended when Gantry closed')
  })
})
