// One session's conversation, built only from its events. A replay and the live stream go through
// the same apply(), so what a reloaded window shows is what the live one showed.
import {
  EventType,
  type ActionStatus,
  type AgentMode,
  type FileChange,
  type GantryEvent,
  type GitBranchOutcome,
  type RunStartedPayload,
  type RunStatus,
  type ToolActionPayload,
  type ContextCompactedPayload,
  type FilesChangedOnDiskPayload,
  type ApprovalCard,
  type ApprovalResolvedPayload,
  type Place,
  type Problem,
  type Task,
} from '../lib/events'
import type { Attachment } from '../lib/types'

export interface Action {
  id: string
  tool: string
  status: ActionStatus
  title: string
  detail: string
  path: string
  startLine: number
  endLine: number
  command: string
  added: number
  removed: number
  errorKind: string
  durationMs: number
  /** A command's output so far, as it arrived (ANSI codes still in; the view strips them). */
  output: string
  /** How the person answered this action's approval; "" when it asked nobody. */
  approval: ApprovalResolvedPayload['outcome'] | ''
  /** A command that runs in the terminal's sandbox: its approval card said so, or it finished there. */
  sandboxed: boolean
  /** Locations a code intelligence answer named. */
  places: Place[]
  /** Errors a change brought in, as the file's language server reported them. */
  problems: Problem[]
}

/** An approval still waiting for the person, shown as a card under its action's group. */
export interface PendingApproval {
  card: ApprovalCard
  /** The action waiting on it, and its group; "" when none was seen (it shows at the turn's end). */
  actionId: string
  groupId: string
}

export interface Group {
  id: string
  iteration: number
  title: string
  finished: boolean
  actions: Action[]
}

export type Item =
  | { kind: 'text'; iteration: number; text: string }
  | { kind: 'thinking'; iteration: number; text: string; done: boolean; durationMs: number }
  | { kind: 'group'; group: Group }
  | { kind: 'compacted'; info: ContextCompactedPayload }
  | { kind: 'stale'; files: FilesChangedOnDiskPayload }

export type TurnStatus = 'running' | RunStatus

export interface Turn {
  runId: string
  text: string
  /** What the person attached to the message. */
  attachments: Attachment[]
  /** The run carries out an approved plan. */
  plan: boolean
  mode: AgentMode | ''
  model: string
  gitBranch: GitBranchOutcome | null
  items: Item[]
  /** What the model is about to do ("Writing main.go…"); "" when nothing is announced. */
  spinner: string
  status: TurnStatus
  /** The final answer when done, else what stopped the run. */
  message: string
  filesChanged: FileChange[]
  /** Ollama cut the final answer (its output limit or the context window). */
  truncated: boolean
  /** Approvals waiting for an answer; approvalResolved (or the run's end) removes them. */
  approvals: PendingApproval[]
}

/** The event types a transcript is built from. */
const runEvents = new Set<string>([
  EventType.RunStarted,
  EventType.AssistantText,
  EventType.Thinking,
  EventType.ThinkingDone,
  EventType.Spinner,
  EventType.ProgressGroupStarted,
  EventType.ToolAction,
  EventType.CommandOutput,
  EventType.ProgressGroupFinished,
  EventType.RunFinished,
  EventType.ContextCompacted,
  EventType.FilesChangedOnDisk,
  EventType.TaskList,
  EventType.ApprovalRequested,
  EventType.ApprovalResolved,
])

export function isRunEvent(e: GantryEvent): boolean {
  return !!e.sessionId && runEvents.has(e.type)
}

export class Transcript {
  turns = $state<Turn[]>([])
  /** The session's task list as the model last left it (the checklist above the input). */
  tasks = $state<Task[]>([])
  /** The highest seq applied; anything at or below it is a duplicate (replay overlapping live). */
  lastSeq = 0
  /** Each run's turn (the reactive one), so an event finds its turn without a scan of all turns:
   * a replay applies thousands of events to a long session. */
  #byRun = new Map<string, Turn>()

  constructor(readonly sessionId: string) {}

  /** The turn whose run is still going, or undefined. */
  get running(): Turn | undefined {
    for (let i = this.turns.length - 1; i >= 0; i--) if (this.turns[i].status === 'running') return this.turns[i]
    return undefined
  }

  /** Applies one event; returns false when it was a duplicate or not about this session's runs. */
  apply(e: GantryEvent): boolean {
    if (e.sessionId !== this.sessionId || !runEvents.has(e.type)) return false
    if (e.seq <= this.lastSeq) return false
    this.lastSeq = e.seq
    if (e.type === EventType.RunStarted) {
      this.start(e.runId, e.payload)
      return true
    }
    const turn = this.turnFor(e.runId)
    switch (e.type) {
      case EventType.AssistantText: {
        const p = e.payload
        const item = this.item(turn, 'text', p.iteration) ?? this.push(turn, { kind: 'text', iteration: p.iteration, text: '' })
        item.text = p.text
        break
      }
      case EventType.Thinking: {
        const p = e.payload
        const item =
          this.item(turn, 'thinking', p.iteration) ??
          this.push(turn, { kind: 'thinking', iteration: p.iteration, text: '', done: false, durationMs: 0 })
        item.text = p.text
        break
      }
      case EventType.ThinkingDone: {
        const p = e.payload
        const item =
          this.item(turn, 'thinking', p.iteration) ??
          this.push(turn, { kind: 'thinking', iteration: p.iteration, text: '', done: false, durationMs: 0 })
        item.done = true
        item.durationMs = p.durationMs
        break
      }
      case EventType.Spinner:
        turn.spinner = (e.payload).label
        break
      case EventType.ProgressGroupStarted: {
        const p = e.payload
        if (!this.group(turn, p.groupId)) {
          this.push(turn, { kind: 'group', group: { id: p.groupId, iteration: p.iteration, title: p.title ?? '', finished: false, actions: [] } })
        }
        break
      }
      case EventType.ProgressGroupFinished: {
        const p = e.payload
        const g = this.group(turn, p.groupId)
        if (g) {
          g.finished = true
          if (p.title) g.title = p.title
        }
        // The label announced this batch; once it is done the label would only mislead.
        turn.spinner = ''
        break
      }
      case EventType.ToolAction:
        this.action(turn, e.payload)
        break
      case EventType.CommandOutput: {
        const p = e.payload
        const a = this.findAction(turn, p.actionId)
        if (a) a.output += p.chunk
        break
      }
      case EventType.ApprovalRequested:
        this.requested(turn, e.payload)
        break
      case EventType.ApprovalResolved:
        this.resolved(turn, e.payload)
        break
      case EventType.ContextCompacted:
        this.push(turn, { kind: 'compacted', info: e.payload })
        break
      case EventType.FilesChangedOnDisk:
        this.push(turn, { kind: 'stale', files: e.payload })
        break
      case EventType.TaskList:
        this.tasks = e.payload.tasks ?? []
        break
      case EventType.RunFinished: {
        const p = e.payload
        turn.status = p.status
        turn.message = p.message ?? ''
        turn.filesChanged = p.filesChanged ?? []
        turn.truncated = !!p.truncated
        turn.spinner = ''
        // Nobody can answer for a run that is over (its approvals were cancelled with it).
        turn.approvals = []
        // A run that ended mid-step leaves nothing running behind it.
        for (const it of turn.items) {
          if (it.kind === 'thinking') it.done = true
          if (it.kind === 'group') it.group.finished = true
        }
        break
      }
    }
    return true
  }

  private start(runId: string, p: RunStartedPayload) {
    const turn = this.turnFor(runId)
    turn.text = p.text
    turn.attachments = p.attachments ?? []
    turn.plan = !!p.plan
    turn.mode = p.mode
    turn.model = p.model
    turn.gitBranch = p.gitBranch ?? null
  }

  private newTurn(runId: string): Turn {
    this.turns.push({
      runId,
      text: '',
      attachments: [],
      plan: false,
      mode: '',
      model: '',
      gitBranch: null,
      items: [],
      spinner: '',
      status: 'running',
      message: '',
      filesChanged: [],
      truncated: false,
      approvals: [],
    })
    // Keep the reactive proxy, not the plain object, so later writes update the view.
    const turn = this.turns[this.turns.length - 1]
    this.#byRun.set(runId, turn)
    return turn
  }

  /** A run whose runStarted was not seen (a replay that began mid-run) still gets a turn. */
  private turnFor(runId: string): Turn {
    return this.#byRun.get(runId) ?? this.newTurn(runId)
  }

  private push<I extends Item>(turn: Turn, item: I): I {
    turn.items.push(item)
    return turn.items[turn.items.length - 1] as I
  }

  private item<K extends 'text' | 'thinking'>(turn: Turn, kind: K, iteration: number): Extract<Item, { kind: K }> | undefined {
    return turn.items.find((i) => i.kind === kind && i.iteration === iteration) as Extract<Item, { kind: K }> | undefined
  }

  private group(turn: Turn, id: string): Group | undefined {
    for (const it of turn.items) if (it.kind === 'group' && it.group.id === id) return it.group
    return undefined
  }

  private findAction(turn: Turn, id: string): Action | undefined {
    for (const it of turn.items) {
      if (it.kind !== 'group') continue
      const a = it.group.actions.find((x) => x.id === id)
      if (a) return a
    }
    return undefined
  }

  private action(turn: Turn, p: ToolActionPayload) {
    let g = this.group(turn, p.groupId)
    if (!g) {
      g = this.push(turn, { kind: 'group', group: { id: p.groupId, iteration: 0, title: '', finished: false, actions: [] } }).group
    }
    const fields = {
      tool: p.tool,
      status: p.status,
      title: p.title,
      detail: p.detail ?? '',
      path: p.path ?? '',
      startLine: p.startLine ?? 0,
      endLine: p.endLine ?? 0,
      command: p.command ?? '',
      added: p.added ?? 0,
      removed: p.removed ?? 0,
      errorKind: p.errorKind ?? '',
      durationMs: p.durationMs ?? 0,
      places: p.places ?? [],
      problems: p.problems ?? [],
    }
    const a = g.actions.find((x) => x.id === p.actionId)
    if (a) {
      // Only the finished line carries sandboxed; the approval card may have said so before.
      Object.assign(a, fields, { sandboxed: a.sandboxed || !!p.sandboxed })
      return
    }
    // A call's own steps (read_file's chunks, ids "<call>.<n>") are part of its row, not rows of
    // their own: they only widen the lines it shows while it runs.
    const parent = g.actions.find((x) => p.actionId.startsWith(x.id + '.') && /^\d+$/.test(p.actionId.slice(x.id.length + 1)))
    if (parent) {
      if (!parent.path) parent.path = fields.path
      if (fields.startLine > 0) {
        parent.startLine = parent.startLine > 0 ? Math.min(parent.startLine, fields.startLine) : fields.startLine
        parent.endLine = Math.max(parent.endLine, fields.endLine)
      }
      return
    }
    g.actions.push({ id: p.actionId, output: '', approval: '', sandboxed: !!p.sandboxed, ...fields })
  }

  /** The event names no action: the log has the call's "pending" line just before it, so the card
   * belongs to the earliest pending action that has no card yet. */
  private requested(turn: Turn, card: ApprovalCard) {
    if (turn.approvals.some((x) => x.card.id === card.id)) return
    const taken = new Set(turn.approvals.map((x) => x.actionId))
    let actionId = ''
    let groupId = ''
    for (const it of turn.items) {
      if (it.kind !== 'group' || actionId) continue
      const a = it.group.actions.find((x) => x.status === 'pending' && !x.approval && !taken.has(x.id))
      if (a) {
        actionId = a.id
        groupId = it.group.id
      }
    }
    turn.approvals.push({ card, actionId, groupId })
  }

  private resolved(turn: Turn, p: ApprovalResolvedPayload) {
    const i = turn.approvals.findIndex((x) => x.card.id === p.id)
    if (i < 0) return
    const { actionId, card } = turn.approvals[i]
    turn.approvals.splice(i, 1)
    const a = actionId ? this.findAction(turn, actionId) : undefined
    if (a) {
      a.approval = p.outcome
      if (card.sandboxed) a.sandboxed = true
    }
  }
}
