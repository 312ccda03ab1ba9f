import { beforeEach, describe, expect, it, vi } from 'vitest'
import { chat } from '../lib/api'
import { BackendError, onEvent } from '../lib/bridge'
import type { GantryEvent } from '../lib/events'
import type { Session } from '../lib/types'
import { chatStore } from './chat.svelte'
import { notices } from './notices.svelte'
import { SessionsStore } from './sessions.svelte'

vi.mock('../lib/api', () => ({
  chat: {
    sessions: vi.fn(),
    renameSession: vi.fn(),
    deleteSession: vi.fn(),
    send: vi.fn(),
    stop: vi.fn(),
    replay: vi.fn(),
    activeRun: vi.fn(),
  },
}))
vi.mock('../lib/bridge', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../lib/bridge')>()),
  onEvent: vi.fn(() => () => {}),
}))
const api = vi.mocked(chat)

const session = (id: string, updatedAt: string, title = `Task ${id}`): Session => ({
  id,
  workspacePath: '/p',
  title,
  mode: 'agent',
  model: 'qwen3:4b',
  createdAt: updatedAt,
  updatedAt,
})

async function loaded(list: Session[]) {
  api.sessions.mockResolvedValue(list)
  const store = new SessionsStore()
  await store.load()
  return store
}

beforeEach(() => {
  vi.clearAllMocks()
  api.activeRun.mockResolvedValue('')
  notices.items = []
  chatStore.newSession()
})

describe('SessionsStore', () => {
  it('lists sessions newest first', async () => {
    const store = await loaded([
      session('a', '2026-01-01T10:00:00Z'),
      session('b', '2026-01-03T10:00:00Z'),
      session('c', '2026-01-02T10:00:00Z'),
    ])
    expect(store.items.map((s) => s.id)).toEqual(['b', 'c', 'a'])
    expect(store.loaded).toBe(true)
  })

  it('keeps only the newest of overlapping loads', async () => {
    let first!: (v: Session[]) => void
    api.sessions.mockReturnValueOnce(new Promise((r) => (first = r)))
    api.sessions.mockResolvedValueOnce([session('new', '2026-01-02T10:00:00Z')])
    const store = new SessionsStore()
    const a = store.load()
    await store.load()
    first([session('old', '2026-01-01T10:00:00Z')])
    await a
    expect(store.items.map((s) => s.id)).toEqual(['new'])
  })

  it('says why the list could not load', async () => {
    api.sessions.mockRejectedValue(new BackendError('database is locked'))
    const store = new SessionsStore()
    await store.load()
    expect(store.error).toContain('database is locked')
  })

  it('reloads when a run starts or finishes, not on other events', async () => {
    const store = await loaded([])
    store.start()
    const handler = vi.mocked(onEvent).mock.calls[0][0]
    api.sessions.mockResolvedValue([session('a', '2026-01-01T10:00:00Z')])
    handler({ type: 'assistantText', sessionId: 'a', payload: {} } as unknown as GantryEvent)
    expect(api.sessions).toHaveBeenCalledTimes(1)
    handler({ type: 'runStarted', sessionId: 'a', payload: {} } as unknown as GantryEvent)
    await vi.waitFor(() => expect(store.items.map((s) => s.id)).toEqual(['a']))
    handler({ type: 'runFinished', sessionId: 'a', payload: {} } as unknown as GantryEvent)
    expect(api.sessions).toHaveBeenCalledTimes(3)
  })

  it('marks sessions with a run going on: those running before, then by events', async () => {
    api.activeRun.mockImplementation(async (id: string) => (id === 'b' ? 'rb' : ''))
    api.sessions.mockResolvedValue([session('a', '2026-01-02T10:00:00Z'), session('b', '2026-01-01T10:00:00Z')])
    const store = new SessionsStore()
    store.start()
    await store.load()
    await vi.waitFor(() => expect(store.running).toEqual({ b: true }))
    const handler = vi.mocked(onEvent).mock.calls[0][0]
    handler({ type: 'runStarted', sessionId: 'a', payload: {} } as unknown as GantryEvent)
    expect(store.running).toEqual({ a: true, b: true })
    handler({ type: 'runFinished', sessionId: 'b', payload: {} } as unknown as GantryEvent)
    expect(store.running).toEqual({ a: true })
    await store.load()
    expect(api.activeRun).toHaveBeenCalledTimes(2)
  })

  it('renames at once and keeps the title the backend stored', async () => {
    const store = await loaded([session('a', '2026-01-01T10:00:00Z')])
    api.renameSession.mockResolvedValue(undefined)
    api.sessions.mockResolvedValue([session('a', '2026-01-01T10:00:00Z', 'Better name')])
    const pending = store.rename('a', '  Better name ')
    expect(store.items[0].title).toBe('Better name')
    expect(await pending).toBe(true)
    expect(api.renameSession).toHaveBeenCalledWith('a', 'Better name')
    expect(store.items[0].title).toBe('Better name')
  })

  it('does not call the backend for an empty or unchanged title', async () => {
    const store = await loaded([session('a', '2026-01-01T10:00:00Z')])
    expect(await store.rename('a', '   ')).toBe(false)
    expect(await store.rename('a', 'Task a')).toBe(false)
    expect(api.renameSession).not.toHaveBeenCalled()
  })

  it('puts the old title back and says so when renaming fails', async () => {
    const store = await loaded([session('a', '2026-01-01T10:00:00Z')])
    api.renameSession.mockRejectedValue(new BackendError('no such session'))
    expect(await store.rename('a', 'New')).toBe(false)
    expect(store.items[0].title).toBe('Task a')
    expect(notices.in('app')[0].text).toContain('no such session')
  })

  it('deletes a session and starts a new chat when it was the one shown', async () => {
    const store = await loaded([session('a', '2026-01-02T10:00:00Z'), session('b', '2026-01-01T10:00:00Z')])
    api.deleteSession.mockResolvedValue(undefined)
    api.sessions.mockResolvedValue([session('b', '2026-01-01T10:00:00Z')])
    api.replay.mockResolvedValue([])
    api.activeRun.mockResolvedValue('')
    await chatStore.open('a')
    expect(await store.remove('a')).toBe(true)
    expect(store.items.map((s) => s.id)).toEqual(['b'])
    expect(chatStore.sessionId).toBe('')
  })

  it('leaves the shown chat alone when another one is deleted', async () => {
    const store = await loaded([session('a', '2026-01-02T10:00:00Z'), session('b', '2026-01-01T10:00:00Z')])
    api.deleteSession.mockResolvedValue(undefined)
    api.sessions.mockResolvedValue([session('a', '2026-01-02T10:00:00Z')])
    api.replay.mockResolvedValue([])
    api.activeRun.mockResolvedValue('')
    await chatStore.open('a')
    await store.remove('b')
    expect(chatStore.sessionId).toBe('a')
  })

  it('keeps a session the backend refused to delete (a run is active) and says why', async () => {
    const store = await loaded([session('a', '2026-01-01T10:00:00Z')])
    api.deleteSession.mockRejectedValue(new BackendError('a run is in progress in this session'))
    expect(await store.remove('a')).toBe(false)
    expect(store.items.map((s) => s.id)).toEqual(['a'])
    expect(notices.in('app')[0].text).toContain('run is in progress')
  })
})
