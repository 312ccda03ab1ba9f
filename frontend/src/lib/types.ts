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

/** app.FileContent: a workspace file for the read-only viewer; no text when binary. */
export interface FileContent {
  path: string
  text: string
  size: number
  binary: boolean
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
  /** The installed version. */
  digest: string
}

/** llm.ToolCheck: how a model really calls tools, asked once per installed version. */
export interface ToolCheck {
  model: string
  digest: string
  /** /api/show lists the tools capability. */
  declared: boolean
  /** Its call came back natively, as text Ollama missed, not at all, or tools are not declared. */
  verdict: 'native' | 'text' | 'unclear' | 'unsupported'
  /** The form of a call written as text. */
  dialect?: string
  checkedAt: string
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
  /** Model requests sent to Ollama at once, all sessions and subagents together; 0 = one. */
  modelRequests: number
  /** In the default mode, write sensitive files (per fileRules) without asking too. */
  autoApproveSensitiveEdits: boolean
  /** Sensitive-file rules, last match wins; null = the built-in list (SettingsView.defaultFileRules). */
  fileRules: FileRule[] | null
  /** Tools the model is not offered. */
  disabledTools: string[]
  /** Each new session works on its own git branch. */
  gitBranch: boolean
  /** Seconds a command may run when the model asks for no timeout; 0 = the default. */
  terminalTimeout: number
  /** Commands run in a bubblewrap sandbox: read-only outside the project, no network unless sandboxNetwork. */
  sandbox: boolean
  /** Sandboxed commands may use the network. */
  sandboxNetwork: boolean
  theme: Theme
  /** MCP servers as other clients write them; changed only through the MCP methods. */
  mcpServers?: Record<string, unknown>
}

/** config.FileRule: files matching pattern ask before being written, or are allowed. */
export interface FileRule {
  pattern: string
  action: 'ask' | 'allow'
}

export type Theme = 'system' | 'light' | 'dark'

/** app.ToolInfo */
export interface ToolInfo {
  name: string
  /** A few words for a person. */
  label: string
  /** One line for a person. */
  summary: string
  kind: string
}

/** approval.Rule: an "always allow" given from an approval card. */
export interface ApprovalRule {
  kind: 'command' | 'edit' | 'mcp'
  commandPrefix?: string
  pathGlob?: string
  severity?: string
  /** An MCP server and its tool (the server's name for it). */
  server?: string
  tool?: string
  scope: 'project' | 'user'
  /** The project's folder, for scope "project". */
  workspace?: string
}

/** app.PullState: a model download, as every window sees it. */
export interface PullState {
  model: string
  state: 'running' | 'done' | 'failed' | 'cancelled'
  /** Ollama's last words: "pulling manifest", "pulling 3f2a…", "verifying sha256 digest"… */
  status: string
  completed: number
  total: number
  /** 0–100 */
  percent: number
  error: string
}

/** llm.Capabilities */
export interface ModelCapabilities {
  tools: boolean
  thinking: boolean
  vision: boolean
  completion: boolean
}

/** llm.ModelDetail: an installed model with what it can do. */
export interface ModelDetail extends OllamaModel {
  capabilities: ModelCapabilities
  /** False when Ollama could not describe it (capabilities unknown). */
  known: boolean
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
  /** The built-in sensitive-file rules (what fileRules null means). */
  defaultFileRules: FileRule[]
  /** Seconds a command gets when terminalTimeout is 0. */
  defaultTerminalTimeout: number
  /** Whether commands can be sandboxed on this machine (looked up once). */
  sandbox: SandboxSupport
}

/** terminal.SandboxSupport */
export interface SandboxSupport {
  available: boolean
  /** Why not, and how to fix it. */
  reason?: string
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
  /** An MCP tool's arguments, whole (the card holds them cut). */
  arguments?: string
}

/** approval.Decision: a person's answer to an approval. */
export interface ApprovalDecision {
  allowed: boolean
  always?: boolean
  ruleScope?: 'project' | 'user' | ''
  message?: string
  content?: string
  acceptedHunks?: number[]
  /** Allows a program of the folder's and trusts the folder from now on. */
  trustFolder?: boolean
}

/** lsp.Status: one language's server as Settings shows it. */
export interface LanguageServerStatus {
  id: string
  name: string
  label: string
  state: 'running' | 'found' | 'not found' | 'failed'
  program?: string
  install: string
  detail?: string
  pid?: number
  /** Resident memory of the server and its children, bytes. */
  rss?: number
  /** The open project has files of its languages. */
  inUse: boolean
}

/** app.CodeIntelligenceView */
export interface CodeIntelligenceView {
  toolsDir: string
  project: string
  servers: LanguageServerStatus[]
}

/** trust.Folder: a folder trusted to run its own code. */
export interface TrustedFolder {
  path: string
  since: string
}

export type { GantryEvent }

/** app.FileDiff: one changed file, before the run against the disk now; no texts or hunks when binary or too large. */
export interface FileDiff {
  path: string
  binary: boolean
  tooLarge?: boolean
  before: string
  after: string
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

/** mcp.State */
export type MCPState = 'idle' | 'starting' | 'ready' | 'failed' | 'disabled' | 'untrusted' | 'invalid'

/** mcp.ToolStatus: one tool of an MCP server. */
export interface MCPToolStatus {
  /** The server's name for it. */
  name: string
  /** How the model calls it: mcp__server__tool. */
  modelName: string
  title?: string
  summary?: string
  readOnly: boolean
  enabled: boolean
  /** A first call registered its parameters. */
  loaded: boolean
}

/** mcp.Status: an MCP server as Settings shows it. */
export interface MCPServerStatus {
  name: string
  source: 'settings' | 'project'
  transport: 'stdio' | 'http' | 'sse'
  /** Its command line, or its URL without the query. */
  target: string
  envKeys?: string[]
  state: MCPState
  detail?: string
  stderr?: string
  pid?: number
  rss?: number
  tools: MCPToolStatus[]
  /** The entry as written (the person's own servers), for Edit. */
  entry?: Record<string, unknown>
}

/** app.MCPView: Settings → Tools' MCP servers. */
export interface MCPView {
  project: string
  projectFile: string
  projectTrusted: boolean
  problem: string
  projectProblem: string
  servers: MCPServerStatus[]
}

/** mcp.Failure: an MCP call that failed for good, kept for the person to look into. */
export interface MCPFailure {
  time: string
  workspace: string
  server: string
  tool: string
  arguments: string
  error: string
  kind: 'timeout' | 'server' | 'protocol' | 'tool'
  attempts: number
}
