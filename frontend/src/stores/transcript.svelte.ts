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
  type ContextUsagePayload,
  type ModelWaitingPayload,
  type PromptCutPayload,
  type Place,
  type Problem,
  type Task,
  type Notice,
  type SubagentOf,
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
  /** The run of the subagent this call started (Transcript.subruns), "" when none. */
  subagent: string
  /** The MCP server the tool comes from; its answer arrives as output. */
  server: string
}

/** An approval still waiting for the person, shown as a card under its action's group. */
export interface PendingApproval {
  card: ApprovalCard
  /** The action waiting on it, and its group; "" when none was seen (it shows at the turn's end). */
  actionId: string
  groupId: string
  /** A subagent's run that asks; the card shows under the call that started it. */
  runId?: string
}

export interface Group {
  id: string
  iteration: number
  title: string
  finished: boolean
  actions: Action[]
  /** The forms the calls were written in, when read from the model's text. */
  dialects: string[]
  /** A native-path batch whose calls Ollama missed in the text and Gantry read from it. */
  rescued: boolean
}

export type Item =
  | { kind: 'text'; iteration: number; text: string }
  | { kind: 'thinking'; iteration: number; text: string; done: boolean; durationMs: number }
  | { kind: 'group'; group: Group }
  | { kind: 'compacted'; info: ContextCompactedPayload }
  | { kind: 'stale'; files: FilesChangedOnDiskPayload }
  | { kind: 'cut'; info: PromptCutPayload }
  | { kind: 'notice'; notice: Notice }

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
  /** What the wait for the model's next answer is for (loading, reading the prompt); null once it answers. */
  waiting: ModelWaitingPayload | null
  /** Ollama's counts after the run's latest answer. */
  usage: ContextUsagePayload | null
  status: TurnStatus
  /** The final answer when done, else what stopped the run. */
  message: string
  filesChanged: FileChange[]
  /** Ollama cut the final answer (its output limit or the context window). */
  truncated: boolean
  /** Approvals waiting for an answer; approvalResolved (or the run's end) removes them. */
  approvals: PendingApproval[]
  /** Background tasks whose ends started this run (its text is then empty). */
  notices: Notice[]
  /** Set on a subagent's run: who started it. */
  subagent: SubagentOf | null
}

/** A background subagent as the chips above the input show it. */
export interface BackgroundTask {
  taskId: string
  runId: string
  parentRunId: string
  task: string
  status: 'running' | RunStatus
  /** How it ended, in a line; "" while it runs. */
  summary: string
  /** The log position of its notice; 0 while it runs. */
  endedSeq: number
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
  EventType.TaskStarted,
  EventType.TaskNotification,
  EventType.ApprovalRequested,
  EventType.ApprovalResolved,
  EventType.ModelWaiting,
  EventType.ContextUsage,
  EventType.PromptCut,
])

export function isRunEvent(e: GantryEvent): boolean {
  return !!e.sessionId && runEvents.has(e.type)
}

export class Transcript {
  turns = $state<Turn[]>([])
  /** The session's task list as the model last left it (the checklist above the input). */
  tasks = $state<Task[]>([])
  /** Subagents' runs, by run id: shown inside the call that started each, not as turns. */
  subruns = $state<Record<string, Turn>>({})
  /** Background tasks in the order they started. */
  background = $state<BackgroundTask[]>([])
  /** The highest seq applied; anything at or below it is a duplicate (replay overlapping live). */
  lastSeq = 0
  /** Each run's turn (the reactive one), so an event finds its turn without a scan of all turns:
   * a replay applies thousands of events to a long session. */
  #byRun = new Map<string, Turn>()
  /** Each turn's groups and rows by id (the reactive ones), for the same reason: a replay
   * applies hundreds of tool actions, each of which looked its group and row up through the
   * turn's items (issue 18). Items and rows are only ever added. */
  #groups = new Map<string, Group>()
  #actions = new Map<string, Action>()

  constructor(readonly sessionId: string) {}

  /** Ollama's counts after the session's latest answer, for the context meter; null before any. */
  get usage(): ContextUsagePayload | null {
    for (let i = this.turns.length - 1; i >= 0; i--) if (this.turns[i].usage) return this.turns[i].usage
    return null
  }

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
      if (e.payload.subagent) this.startSubagent(e.runId, e.payload)
      else this.start(e.runId, e.payload)
      if (!e.payload.subagent && e.payload.text) this.askedSeq = e.seq
      return true
    }
    if (e.type === EventType.TaskStarted) {
      const p = e.payload
      if (!this.background.some((b) => b.taskId === p.taskId)) {
        this.background.push({ taskId: p.taskId, runId: p.runId, parentRunId: p.parentRunId, task: p.task, status: 'running', summary: '', endedSeq: 0 })
      }
      return true
    }
    if (e.type === EventType.TaskNotification) {
      this.ended(e.payload, e.seq)
      return true
    }
    const turn = this.subruns[e.runId] ?? this.turnFor(e.runId)
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
          this.push(turn, {
            kind: 'group',
            group: { id: p.groupId, iteration: p.iteration, title: p.title ?? '', finished: false, actions: [], dialects: p.dialects ?? [], rescued: !!p.rescued },
          })
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
        this.hostApproval(turn, e.payload)
        break
      case EventType.ApprovalResolved: {
        this.resolved(turn, e.payload)
        const host = this.host(turn)
        if (host) host.turn.approvals = host.turn.approvals.filter((a) => a.card.id !== e.payload.id)
        break
      }
      case EventType.ContextCompacted:
        this.push(turn, { kind: 'compacted', info: e.payload })
        break
      case EventType.FilesChangedOnDisk:
        this.push(turn, { kind: 'stale', files: e.payload })
        break
      case EventType.ModelWaiting:
        turn.waiting = e.payload.phase ? e.payload : null
        break
      case EventType.ContextUsage:
        turn.usage = e.payload
        break
      case EventType.PromptCut:
        this.push(turn, { kind: 'cut', info: e.payload })
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
        turn.waiting = null
        // Nobody can answer for a run that is over (its approvals were cancelled with it).
        turn.approvals = []
        const host = this.host(turn)
        if (host) host.turn.approvals = host.turn.approvals.filter((a) => a.runId !== turn.runId)
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
    this.fill(this.turnFor(runId), p)
  }

  private fill(turn: Turn, p: RunStartedPayload) {
    turn.text = p.text
    turn.attachments = p.attachments ?? []
    turn.plan = !!p.plan
    turn.mode = p.mode
    turn.model = p.model
    turn.gitBranch = p.gitBranch ?? null
    turn.notices = p.notices ?? []
    turn.subagent = p.subagent ?? null
  }

  /** A subagent's run lives in subruns, and the call that started it points at it. */
  private startSubagent(runId: string, p: RunStartedPayload) {
    if (!this.subruns[runId]) this.subruns[runId] = blankTurn(runId)
    // Read back: the stored object is the reactive proxy.
    const turn = this.subruns[runId]
    this.fill(turn, p)
    const parent = this.subruns[p.subagent!.parentRunId] ?? this.#byRun.get(p.subagent!.parentRunId)
    const a = parent && this.findAction(parent, p.subagent!.actionId)
    if (a) a.subagent = runId
  }

  /** Where a subagent's run shows: the turn and the line of the call that started it. */
  private host(turn: Turn): { turn: Turn; actionId: string; groupId: string } | undefined {
    const link = turn.subagent
    if (!link) return undefined
    const parent = this.subruns[link.parentRunId] ?? this.#byRun.get(link.parentRunId)
    if (!parent) return undefined
    for (const it of parent.items) {
      if (it.kind === 'group' && it.group.actions.some((a) => a.id === link.actionId)) {
        return { turn: parent, actionId: link.actionId, groupId: it.group.id }
      }
    }
    return { turn: parent, actionId: '', groupId: '' }
  }

  /** A foreground subagent's question shows where the person looks: under the call that
   * started it, in the parent's turn, the card naming the subagent. */
  private hostApproval(turn: Turn, card: ApprovalCard) {
    const host = this.host(turn)
    if (!host || host.turn.approvals.some((x) => x.card.id === card.id)) return
    host.turn.approvals.push({ card, actionId: host.actionId, groupId: host.groupId, runId: turn.runId })
  }

  /** A background task ended: its chip says how, and the run going on, if any, shows the
   * notice where its model received it (a run started for it shows it at its top instead). */
  private ended(n: Notice, seq: number) {
    const b = this.background.find((x) => x.taskId === n.taskId)
    if (b) {
      b.status = n.status
      b.summary = n.summary
      b.endedSeq = seq
    } else {
      this.background.push({ taskId: n.taskId, runId: n.runId, parentRunId: '', task: n.task, status: n.status, summary: n.summary, endedSeq: seq })
    }
    const running = this.running
    if (running) this.push(running, { kind: 'notice', notice: n })
  }

  /** The log position where the person last wrote: chips of tasks that ended before it have
   * had their say. */
  askedSeq = $state(0)

  /** Tasks the log shows started and never ended, that are not running now, ended when Gantry
   * last closed: their chips say so instead of spinning forever. */
  settleBackground(running: string[]) {
    for (const b of this.background) {
      if (b.status === 'running' && !running.includes(b.taskId)) {
        b.status = 'cancelled'
        b.summary = `Background task “${b.task}” ended when Gantry closed.`
      }
    }
  }

  private newTurn(runId: string): Turn {
    this.turns.push(blankTurn(runId))
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
    const pushed = turn.items[turn.items.length - 1] as I
    if (pushed.kind === 'group') this.#groups.set(rowKey(turn, pushed.group.id), pushed.group)
    return pushed
  }

  private item<K extends 'text' | 'thinking'>(turn: Turn, kind: K, iteration: number): Extract<Item, { kind: K }> | undefined {
    return turn.items.find((i) => i.kind === kind && i.iteration === iteration) as Extract<Item, { kind: K }> | undefined
  }

  private group(turn: Turn, id: string): Group | undefined {
    return this.#groups.get(rowKey(turn, id))
  }

  private findAction(turn: Turn, id: string): Action | undefined {
    return this.#actions.get(rowKey(turn, id))
  }

  private action(turn: Turn, p: ToolActionPayload) {
    let g = this.group(turn, p.groupId)
    if (!g) {
      g = this.push(turn, { kind: 'group', group: { id: p.groupId, iteration: 0, title: '', finished: false, actions: [], dialects: [], rescued: false } }).group
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
      server: p.server ?? '',
    }
    const a = this.findAction(turn, p.actionId)
    if (a) {
      // Only the finished line carries sandboxed; the approval card may have said so before.
      Object.assign(a, fields, { sandboxed: a.sandboxed || !!p.sandboxed })
      return
    }
    // A call's own steps (read_file's chunks, ids "<call>.<n>") are part of its row, not rows of
    // their own: they only widen the lines it shows while it runs.
    const step = /^(.+)\.\d+$/.exec(p.actionId)
    const parent = step ? this.findAction(turn, step[1]) : undefined
    if (parent) {
      if (!parent.path) parent.path = fields.path
      if (fields.startLine > 0) {
        parent.startLine = parent.startLine > 0 ? Math.min(parent.startLine, fields.startLine) : fields.startLine
        parent.endLine = Math.max(parent.endLine, fields.endLine)
      }
      return
    }
    g.actions.push({ id: p.actionId, output: '', approval: '', sandboxed: !!p.sandboxed, subagent: '', ...fields })
    this.#actions.set(rowKey(turn, p.actionId), g.actions[g.actions.length - 1])
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

/** A group's or row's key: ids are the run's own (a model's call ids repeat across runs). */
const rowKey = (turn: Turn, id: string) => `${turn.runId}\n${id}`

function blankTurn(runId: string): Turn {
  return {
    runId,
    text: '',
    attachments: [],
    plan: false,
    mode: '',
    model: '',
    gitBranch: null,
    items: [],
    spinner: '',
    waiting: null,
    usage: null,
    status: 'running',
    message: '',
    filesChanged: [],
    truncated: false,
    approvals: [],
    notices: [],
    subagent: null,
  }
}
