// Mirrors of the Go types the bound services return (app/ and internal/ packages).
import type { AgentMode, ApprovalCard, GantryEvent } from './events'

/** app.RecentProject */
export interface RecentProject {
  id: number
  path: string
  name: string
  openedAt: string
  missing: boolean
}

/** workspace.Info */
export interface WorkspaceInfo {
  path: string
  name: string
}

/** workspace.Entry */
export interface DirEntry {
  name: string
  path: string
  isDir: boolean
  size: number
  link: boolean
}

/** workspace.Listing */
export interface DirListing {
  entries: DirEntry[]
  truncated: number
}

/** llm.Model */
export interface OllamaModel {
  name: string
  size: number
  family: string
  parameterSize: string
  quantization: string
  modifiedAt: string
}

/** llm.Status */
export interface OllamaStatus {
  host: string
  reachable: boolean
  version: string
  models: OllamaModel[]
  error: string
  hint: string
  checkedAt: string
}

/** config.Settings */
export interface Settings {
  ollamaHost: string
  defaultModel: string
  /** How much the agent may do without asking: ask, default or full. */
  permissionMode: 'ask' | 'default' | 'full'
  autoApproveCommands: boolean
  /** Caps the context window sent to Ollama; 0 = the built-in cap. */
  numCtxCap: number
  /** Bounds the model calls of one run; 0 = the mode's own limit. */
  maxIterations: number
}

/** app.SettingsView */
export interface SettingsView {
  settings: Settings
  path: string
  /** Why the settings file could not be used at start, or "". */
  problem: string
  /** The host Gantry talks to after applying the setting, $OLLAMA_HOST and the default. */
  effectiveHost: string
  /** $OLLAMA_HOST as the app saw it, or "". */
  envHost: string
}

/** app.AppInfo */
export interface AppInfo {
  version: string
  mode: 'desktop' | 'browser'
  dataDir: string
}

/** store.Session: one conversation in a workspace. */
export interface Session {
  id: string
  workspacePath: string
  title: string
  mode: AgentMode
  model: string
  createdAt: string
  updatedAt: string
}

/** app.SendRequest: Send starts a run and returns at once; the run streams events. */
export interface SendRequest {
  /** "" starts a new session. */
  sessionId: string
  text: string
  mode: AgentMode
  model: string
  attachments: Attachment[]
  plan: string
}

/** agent.Attachment: a file (or lines of one) added to the message; lines are 1-based, 0 = open end. */
export interface Attachment {
  path: string
  startLine: number
  endLine: number
}

/** app.SendResult */
export interface SendResult {
  sessionId: string
  runId: string
}

/** diff.Line: one line of a hunk; a number is 0 on the side the line is not on. */
export interface DiffLine {
  kind: 'context' | 'add' | 'delete'
  oldNumber: number
  newNumber: number
  text: string
  eol: string
}

/** diff.Hunk: IDs are the ones per-hunk accept (acceptedHunks) takes. */
export interface DiffHunk {
  id: number
  oldStart: number
  oldLines: number
  newStart: number
  newLines: number
  lines: DiffLine[]
}

/** app.ApprovalDetail: the card, the whole file before and after an edit, and its hunks. */
export interface ApprovalView {
  card: ApprovalCard
  before: string
  after: string
  hunks: DiffHunk[]
}

/** approval.Decision: a person's answer to an approval. */
export interface ApprovalDecision {
  allowed: boolean
  always?: boolean
  ruleScope?: 'project' | 'user' | ''
  message?: string
  content?: string
  acceptedHunks?: number[]
}

export type { GantryEvent }

/** app.FileDiff: one changed file, before the run against the disk now; no hunks when binary. */
export interface FileDiff {
  path: string
  binary: boolean
  hunks: DiffHunk[]
}

/** checkpoint.Conflict: why a file was not undone. */
export interface UndoConflict {
  path: string
  agentExists: boolean
  agentHash: string
  unrecorded?: boolean
  diskExists: boolean
  diskHash: string
}

/** checkpoint.UndoResult: one file's undo; outcome "conflicted" left it alone. */
export interface UndoResult {
  path: string
  change: 'created' | 'modified' | 'deleted'
  outcome: 'restored' | 'removed' | 'unchanged' | 'conflicted'
  conflict?: UndoConflict
}
