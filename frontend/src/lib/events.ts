// Mirrors internal/events/types.go (a Go test checks every type appears here).
import type { OllamaStatus, PullState } from './types'

export const EventType = {
  OllamaStatus: "ollamaStatus",
  // A model download from Settings; payload app.PullState (types.ts PullState).
  ModelPull: "modelPull",
  RecentChanged: "recentChanged",
  // Files of the open workspace changed on disk; payload app.WorkspaceChangedPayload.
  WorkspaceChanged: "workspaceChanged",
  // A language server started or stopped; payload app.LanguageServerPayload.
  LanguageServers: "languageServers",
  // An MCP server started, stopped or changed its tools; payload mcp.Event.
  MCPServers: "mcpServers",
  // The agent's run; payloads in internal/agent/events.go.
  RunStarted: "runStarted",
  AssistantText: "assistantText",
  Thinking: "thinking",
  ThinkingDone: "thinkingDone",
  Spinner: "spinner",
  ProgressGroupStarted: "progressGroupStarted",
  ToolAction: "toolAction",
  CommandOutput: "commandOutput",
  ProgressGroupFinished: "progressGroupFinished",
  RunFinished: "runFinished",
  ContextCompacted: "contextCompacted",
  FilesChangedOnDisk: "filesChangedOnDisk",
  // The session's task list after a change, whole.
  TaskList: "taskList",
  // A background subagent began, and ended (exactly one notification per start).
  TaskStarted: "taskStarted",
  TaskNotification: "taskNotification",
  // The model's side of a run; payloads in internal/agent/waiting.go and promptcut.go.
  ModelWaiting: "modelWaiting",
  ContextUsage: "contextUsage",
  PromptCut: "promptCut",
  // A tool call waiting for a person; payloads in internal/approval/manager.go.
  ApprovalRequested: "approvalRequested",
  ApprovalResolved: "approvalResolved",
} as const

export type EventTypeName = (typeof EventType)[keyof typeof EventType]

/** What every event carries besides its type and payload. */
interface EventEnvelope {
  id: string
  seq: number
  sessionId: string
  runId: string
  time: string
}

/**
 * One event, as a union keyed by its type: checking e.type narrows e.payload to that type's
 * payload (EventPayloads), so no store casts it.
 */
export type GantryEvent = { [T in EventTypeName]: EventEnvelope & { type: T; payload: EventPayloads[T] } }[EventTypeName]

/** The event of one type. */
export type EventOf<T extends EventTypeName> = Extract<GantryEvent, { type: T }>

// Payloads of the agent's run: mirrors of internal/agent/events.go (Go is the source; names match).

/** agent.Mode */
export type AgentMode = 'agent' | 'explore' | 'plan' | 'review'
/** agent.Status: how a run ended. */
export type RunStatus = 'done' | 'failed' | 'cancelled' | 'iteration_limit'
/** agent.ToolPath */
export type ToolPath = 'native' | 'text' | ''
/** The ActionPending… constants. */
export type ActionStatus = 'pending' | 'running' | 'success' | 'error'

/** agent.GitBranchOutcome */
export interface GitBranchOutcome {
  branch: string
  status: 'created' | 'switched' | 'current' | 'skipped' | 'refused' | 'failed'
  message: string
}

/** agent.RunStartedPayload: the person's message opens the run. */
export interface RunStartedPayload {
  mode: AgentMode
  model: string
  text: string
  toolPath?: ToolPath
  gitBranch?: GitBranchOutcome
  /** What the person attached to the message. */
  attachments?: { path: string; startLine: number; endLine: number }[]
  /** The run carries out an approved plan. */
  plan?: boolean
  /** Set when the run is a subagent's, shown inside the call that started it. */
  subagent?: SubagentOf
  /** Background tasks whose ends the run hands the model (text is then empty). */
  notices?: Notice[]
}

/** agent.TextPayload: the whole cleaned text of the answer so far, not a piece. */
export interface TextPayload {
  iteration: number
  text: string
}

/** agent.ThinkingDonePayload */
export interface ThinkingDonePayload {
  iteration: number
  durationMs: number
}

/** agent.SpinnerPayload: "" clears it. */
export interface SpinnerPayload {
  label: string
}

/** agent.ProgressGroupPayload */
export interface ProgressGroupPayload {
  groupId: string
  iteration: number
  title?: string
  /** The forms the batch's calls were written in, when they were read from the model's text. */
  dialects?: string[]
  /** The model calls tools natively, but Ollama missed these calls in its text. */
  rescued?: boolean
}

/** agent.ToolActionPayload: one line of a progress group, sent again as it changes state. */
export interface ToolActionPayload {
  groupId: string
  actionId: string
  tool: string
  status: ActionStatus
  title: string
  detail?: string
  path?: string
  startLine?: number
  endLine?: number
  command?: string
  added?: number
  removed?: number
  errorKind?: string
  /** A command that ran in the terminal's sandbox (set when it finished). */
  sandboxed?: boolean
  durationMs?: number
  /** The locations a code intelligence answer names; each opens the file there. */
  places?: Place[]
  /** Errors the file's language server found that the change brought in. */
  problems?: Problem[]
  /** The MCP server the tool comes from; its output shows like a command's. */
  server?: string
}

/** tools.Place */
export interface Place {
  path: string
  line: number
  text?: string
}

/** tools.Problem */
export interface Problem {
  line: number
  message: string
}

/** agent.CommandOutputPayload */
export interface CommandOutputPayload {
  actionId: string
  chunk: string
}

/** checkpoint.FileChange */
export interface FileChange {
  path: string
  status: 'pending' | 'kept' | 'undone'
  change: 'created' | 'modified' | 'deleted'
  added: number
  removed: number
  binary?: boolean
  /** Undo would leave the file alone: it is no longer what the agent left. */
  conflict?: boolean
  /** Why, when conflict: the file is gone from disk now… */
  missing?: boolean
  /** …or the agent's write to it was never recorded (the app stopped first)… */
  unrecorded?: boolean
  /** …or a later run of the session changed it from what this run left. */
  laterRun?: boolean
}

/** agent.RunFinishedPayload: Message is the final answer when done, else what stopped it. */
export interface RunFinishedPayload {
  status: RunStatus
  message: string
  filesChanged: FileChange[] | null
  /** The final answer was cut at the output limit or the context window. */
  truncated?: boolean
  /** The calls the run made. */
  toolUses?: number
  /** The forms of the tool calls read from the model's text in this run. */
  dialects?: string[]
  /** Native-path calls read from the text because Ollama's parser missed them. */
  rescuedCalls?: number
}

/** agent.FilesChangedOnDiskPayload: the model was told these changed on disk since it saw them. */
export interface FilesChangedOnDiskPayload {
  changed: string[]
  deleted: string[]
}

/** agent.ContextCompactedPayload */
export interface ContextCompactedPayload {
  before: number
  after: number
  summarisedMessages: number
  fallback?: string
}

/** agent.ModelWaitingPayload: what the wait before an answer's first token is for. */
export interface ModelWaitingPayload {
  /** Waiting in line while another task uses the model, the model loading, the prompt being
   * read, or "" once the answer arrives. */
  phase: 'queued' | 'loading' | 'prefill' | ''
  model: string
  /** The prompt's expected size while it is read. */
  promptTokens?: number
}

/** agent.ContextUsagePayload: how much of the context window an answer used, as Ollama counted it. */
export interface ContextUsagePayload {
  iteration: number
  model: string
  promptTokens: number
  answerTokens: number
  /** The num_ctx sent. */
  window: number
  loadMs: number
  promptMs: number
  answerMs: number
}

/** agent.PromptCutPayload: Ollama cut the prompt to fit the window. */
export interface PromptCutPayload {
  iteration: number
  /** What Ollama read… */
  promptTokens: number
  /** …of a prompt expected to be about this long. */
  expected: number
  window: number
  /** The answer was set aside and the question asked again with less; else the run stops. */
  retrying: boolean
  /** The retry sends a leaner system prompt… */
  leaner?: boolean
  /** …and the older turns compacted. */
  compacted?: boolean
}

/** approval.Card: the approvalRequested payload. */
export interface ApprovalCard {
  id: string
  kind: 'command' | 'edit' | 'mcp'
  command?: string
  cwd?: string
  severity?: 'none' | 'medium' | 'high' | 'critical'
  reason?: string
  /** The command will run in the terminal's sandbox. */
  sandboxed?: boolean
  /** What in the command runs the opened folder's own code, when the folder is not trusted. */
  folderCode?: string
  path?: string
  existed?: boolean
  sensitive?: boolean
  rule?: string
  /** The subagent that asks (its brief, shortened); absent for the run itself. */
  subagent?: string
  /** An MCP tool: its server, where the server is configured, the tool (the server's name),
   * its title and summary (the server's own words), the arguments as indented JSON. */
  server?: string
  serverSource?: 'settings' | 'project'
  tool?: string
  toolTitle?: string
  toolSummary?: string
  arguments?: string
  /** The arguments were cut for the card; the approval holds them whole. */
  argumentsCut?: boolean
  /** The server says the tool changes nothing. */
  readOnlyHint?: boolean
}

/** approval.ResolvedPayload */
export interface ApprovalResolvedPayload {
  id: string
  outcome: 'allowed' | 'alwaysAllowed' | 'trusted' | 'denied' | 'cancelled'
  edited?: boolean
  message?: string
}

/** app.WorkspaceChangedPayload: what changed on disk in the open workspace ("" is its root). */
export interface WorkspaceChangedPayload {
  root: string
  /** Folders whose listing changed. */
  dirs: string[]
  /** Files and folders created, written, removed or renamed. */
  paths: string[]
  /** The lists were cut short: treat it like overflow. */
  more: boolean
  /** Events were lost: reload everything. */
  overflow: boolean
  /** Set when not every folder can be watched; shown to the user once. */
  note?: string
}

/** tools.Task: one step of the session's task list. */
export interface Task {
  id: number
  title: string
  status: 'pending' | 'in_progress' | 'done'
  notes?: string
}

/** agent.TaskListPayload */
export interface TaskListPayload {
  tasks: Task[]
}

/** agent.TaskStartedPayload: a background subagent began. */
export interface TaskStartedPayload {
  taskId: string
  runId: string
  parentRunId: string
  task: string
  mode: AgentMode
}

/** agent.Notice: how a background subagent ended, as its parent was told. */
export interface Notice {
  taskId: string
  runId: string
  sessionId: string
  task: string
  status: RunStatus
  summary: string
  result: string
  toolUses: number
  durationMs: number
  filesChanged: FileChange[]
}

/** agent.SubagentOf: a subagent's run, shown inside the call that started it. */
export interface SubagentOf {
  parentRunId: string
  actionId: string
  sessionId: string
  taskId?: string
  task: string
}

/** app.LanguageServerPayload */
export interface LanguageServerPayload {
  id: string
  state: string
}

/** mcp.Event: a server's state or tools changed, or a tool's first call registered its parameters. */
export interface MCPServersPayload {
  server: string
  state?: string
  tools?: number
  toolsChanged?: boolean
  registered?: string
}

export interface EventPayloads {
  ollamaStatus: OllamaStatus
  modelPull: PullState
  languageServers: LanguageServerPayload
  mcpServers: MCPServersPayload
  recentChanged: Record<string, never>
  workspaceChanged: WorkspaceChangedPayload
  runStarted: RunStartedPayload
  assistantText: TextPayload
  thinking: TextPayload
  thinkingDone: ThinkingDonePayload
  spinner: SpinnerPayload
  progressGroupStarted: ProgressGroupPayload
  toolAction: ToolActionPayload
  commandOutput: CommandOutputPayload
  progressGroupFinished: ProgressGroupPayload
  runFinished: RunFinishedPayload
  contextCompacted: ContextCompactedPayload
  filesChangedOnDisk: FilesChangedOnDiskPayload
  taskList: TaskListPayload
  taskStarted: TaskStartedPayload
  taskNotification: Notice
  modelWaiting: ModelWaitingPayload
  contextUsage: ContextUsagePayload
  promptCut: PromptCutPayload
  approvalRequested: ApprovalCard
  approvalResolved: ApprovalResolvedPayload
}
