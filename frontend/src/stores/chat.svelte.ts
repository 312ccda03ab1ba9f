// The chat panel's state: which session is shown, its transcript (built from events only), and
// sending or stopping a run. Runs stream events; Send only starts one.
import { chat } from '../lib/api'
import { onEvent } from '../lib/bridge'
import type { AgentMode, GantryEvent } from '../lib/events'
import { settledWithin } from '../lib/idle'
import type { Attachment, SendRequest } from '../lib/types'
import { messageOf } from './notices.svelte'
import { dropPrefetch, latestReviewRun, prefetchReview } from './reviewPrefetch'
import { fetchReplay, rememberedSession, rememberSession, takeEarlyReplay } from './sessionReplay'
import { isRunEvent, Transcript } from './transcript.svelte'

export const modes: { id: AgentMode; label: string; hint: string }[] = [
  { id: 'agent', label: 'Agent', hint: 'Reads, edits and runs commands; risky steps wait for you' },
  { id: 'explore', label: 'Explore', hint: 'Reads and answers; changes nothing' },
  { id: 'plan', label: 'Plan', hint: 'Writes a plan to review before anything changes' },
  { id: 'review', label: 'Review', hint: 'Reviews the changes in the project' },
]

/** How a chip names an attachment: "src/a.go", "src/a.go:12" or "src/a.go:12–30". */
export function attachmentLabel(a: Attachment): string {
  if (a.startLine <= 0 && a.endLine <= 0) return a.path
  const start = Math.max(a.startLine, 1)
  if (a.endLine === start) return `${a.path}:${start}`
  return `${a.path}:${start}–${a.endLine > 0 ? a.endLine : 'end'}`
}

export { Transcript }
export type { Action, BackgroundTask, Group, Item, PendingApproval, Turn } from './transcript.svelte'

/** The longest a reopened session's turns wait for the latest turn's review list (see open):
 * the list takes a few milliseconds; a wait this short goes unnoticed. */
const reviewWait = 100

export class ChatStore {
  /** The session shown; "" until the first send starts one. */
  sessionId = $state('')
  mode = $state<AgentMode>('agent')
  /** The model picked in the panel; "" means the default (settings, else the first installed). */
  model = $state('')
  /** A subagent's run a chip asked to see: its call's row opens and scrolls into view. */
  focusedRun = $state('')
  /** A Send or Stop is in flight. */
  sending = $state(false)
  stopping = $state(false)
  /** Why the last Send or Stop failed, shown next to the input. */
  error = $state('')
  /** A replay is loading the shown session. */
  loading = $state(false)
  /** Files and line ranges the next message carries, shown as chips in the input. */
  attachments = $state<Attachment[]>([])

  /** The workspace the shown session belongs to; sessions are per workspace. */
  private workspace = ''
  private transcripts = $state<Record<string, Transcript>>({})
  /** The run Send started, until its runFinished arrives (its runStarted may come later). */
  private startedRun = $state('')
  /** Live events that came in while their session replays; applied after it, duplicates dropped. */
  private held = new Map<string, GantryEvent[]>()

  transcript(sessionId: string): Transcript {
    let t = this.transcripts[sessionId]
    if (!t) {
      t = new Transcript(sessionId)
      this.transcripts[sessionId] = t
    }
    return t
  }

  /** The shown session's transcript, or null before the first send. */
  get current(): Transcript | null {
    return this.sessionId ? (this.transcripts[this.sessionId] ?? null) : null
  }

  /** The run going on in the shown session, or "". */
  get activeRun(): string {
    const running = this.current?.running
    if (running) return running.runId
    if (!this.startedRun) return ''
    const seen = this.current?.turns.find((t) => t.runId === this.startedRun)
    return seen && seen.status !== 'running' ? '' : this.startedRun
  }

  get busy(): boolean {
    return this.sending || this.activeRun !== ''
  }

  handleEvent(e: GantryEvent) {
    if (!isRunEvent(e)) return
    const held = this.held.get(e.sessionId)
    if (held) {
      held.push(e)
      return
    }
    this.transcript(e.sessionId).apply(e)
    if (e.type === 'runFinished' && e.runId === this.startedRun) this.startedRun = ''
  }

  /** Adds a file (whole, or lines of it) to the next message; the same one twice is kept once. */
  attach(a: Attachment) {
    const same = (x: Attachment) => x.path === a.path && x.startLine === a.startLine && x.endLine === a.endLine
    if (!this.attachments.some(same)) this.attachments.push({ ...a })
  }

  detach(index: number) {
    this.attachments.splice(index, 1)
  }

  /** Starts a run. Resolves true when it started (the caller clears the input), false on an error.
   * The attachments go with it and are cleared once it started; one added meanwhile stays for
   * the next message. */
  async send(text: string, model: string): Promise<boolean> {
    text = text.trim()
    if (!text) return false
    const attachments = this.attachments.map((a) => ({ ...a }))
    if (!(await this.begin({ text, mode: this.mode, model, attachments, plan: '' }))) return false
    const sent = (x: Attachment) => attachments.some((a) => a.path === x.path && a.startLine === x.startLine && a.endLine === x.endLine)
    this.attachments = this.attachments.filter((x) => !sent(x))
    return true
  }

  /** Carries out a plan-mode run's answer in Agent mode (the plan goes as SendRequest.plan). */
  async runPlan(plan: string, model: string): Promise<boolean> {
    if (!plan.trim()) return false
    if (!(await this.begin({ text: 'Carry out this plan.', mode: 'agent', model, attachments: [], plan }))) return false
    this.mode = 'agent'
    return true
  }

  private async begin(req: Omit<SendRequest, 'sessionId'>): Promise<boolean> {
    if (this.busy) return false
    this.sending = true
    this.error = ''
    try {
      const res = await chat.send({ sessionId: this.sessionId, ...req })
      this.transcript(res.sessionId)
      this.sessionId = res.sessionId
      rememberSession(this.workspace, res.sessionId)
      const seen = this.current?.turns.find((t) => t.runId === res.runId)
      this.startedRun = seen && seen.status !== 'running' ? '' : res.runId
      return true
    } catch (err) {
      this.error = messageOf(err)
      return false
    } finally {
      this.sending = false
    }
  }

  async stop() {
    const runId = this.activeRun
    if (!runId || this.stopping) return
    this.stopping = true
    this.error = ''
    try {
      await chat.stop(runId)
    } catch (err) {
      this.error = messageOf(err)
    } finally {
      this.stopping = false
    }
  }

  /** Stops a background task of the shown session; its chip follows the notice. */
  async cancelTask(taskId: string) {
    if (!this.sessionId) return
    try {
      await chat.cancelTask(this.sessionId, taskId)
    } catch (err) {
      this.error = messageOf(err)
    }
  }

  /**
   * Shows a stored session: replays its events, holding live ones until the replay is in. A
   * session not shown yet in this window appears once every stored event is applied: one render
   * of the whole conversation rather than one per page of events.
   */
  async open(sessionId: string) {
    this.sessionId = sessionId
    this.error = ''
    if (!sessionId) return
    rememberSession(this.workspace, sessionId)
    const shown = this.transcripts[sessionId]
    const t = shown ?? new Transcript(sessionId)
    const held: GantryEvent[] = []
    this.held.set(sessionId, held)
    // A second open of the same session meanwhile holds its own events and shows its own replay.
    const latest = () => this.held.get(sessionId) === held
    const show = () => {
      if (!shown && latest()) this.transcripts[sessionId] = t
    }
    this.loading = true
    let ahead = '' // the run whose review list was read ahead
    try {
      // A reloaded window started fetching this chat before its panel was there (sessionReplay.ts).
      const early = shown ? undefined : takeEarlyReplay(sessionId)
      if (early) held.push(...early.live)
      const stored = early ? await early.stored.catch(() => fetchReplay(sessionId, 0)) : await fetchReplay(sessionId, t.lastSeq)
      // The latest turn's review panel reads its files at once. Asked now (an early replay asked
      // already), the list is read while the events are applied, and the turns wait a moment for
      // it (issue 18): building them takes the page for some 100 ms, during which the answer
      // cannot land, and the panel would show it frames after the turns. A list slower than
      // reviewWait (a run that changed hundreds of files) lands in the panel later.
      ahead = shown ? '' : latestReviewRun(stored)
      const read = ahead ? prefetchReview(sessionId, ahead) : undefined
      for (const e of stored) t.apply(e)
      // The conversation goes on with the model it used last, not whatever the picker held;
      // set with the replay, before the questions below, so the picker does not change late.
      const last = t.turns.at(-1)
      if (last?.model && this.sessionId === sessionId) this.model = last.model
      if (read) await settledWithin(read, reviewWait)
      // On screen while the questions below are on their way; live events stay held until they
      // are answered.
      show()
      const [running, tasks] = await Promise.all([chat.activeRun(sessionId), chat.runningTasks(sessionId)])
      if (running) this.startedRun = running
      t.settleBackground(tasks)
    } catch (err) {
      this.error = `Could not load the conversation: ${messageOf(err)}`
    } finally {
      show()
      // Shown, its panel took the list; not shown (another session was picked meanwhile), the
      // list must not wait for a later showing, by then stale. A newer open of this same session
      // took it over, and drops it itself.
      if (ahead && latest()) dropPrefetch(sessionId, ahead)
      if (latest()) this.held.delete(sessionId)
      this.loading = false
      for (const e of held) this.handleEvent(e)
    }
  }

  /** Follows the open workspace: another project shows its own remembered session, or none. */
  async bindWorkspace(path: string) {
    if (path === this.workspace) return
    this.workspace = path
    // Attachments name files of the project they were picked in.
    this.attachments = []
    this.newSession()
    const id = rememberedSession(path)
    if (id) await this.open(id)
  }

  /** Back to an empty panel; the next send starts a new session. */
  newSession() {
    this.sessionId = ''
    this.startedRun = ''
    this.error = ''
  }

  /** The person asked for a new session: the panel empties and a reload keeps it empty. */
  startNew() {
    this.newSession()
    rememberSession(this.workspace, '')
  }

  /** Drops a deleted session's transcript; if it was shown, the panel starts a new one. */
  forget(sessionId: string) {
    if (this.sessionId === sessionId) this.startNew()
    delete this.transcripts[sessionId]
  }

  /** Listens for run events. Returns the unsubscribe function. */
  start(): () => void {
    return onEvent((e) => this.handleEvent(e))
  }
}

export const chatStore = new ChatStore()
