// Typed wrappers over the bound Go services. Components call these, never bridge.call directly.
import { call } from './bridge'
import type { FileChange, GantryEvent } from './events'
import type {
  AppInfo,
  ApprovalDecision,
  CodeIntelligenceView,
  ApprovalRule,
  ApprovalView,
  DirListing,
  FileContent,
  FileDiff,
  MCPFailure,
  MCPView,
  ModelDetail,
  OllamaStatus,
  PullState,
  RecentProject,
  SendRequest,
  SendResult,
  Session,
  Settings,
  SettingsView,
  ToolCheck,
  ToolInfo,
  TrustedFolder,
  UndoResult,
  WorkspaceInfo,
} from './types'

export const workspaces = {
  recent: () => call<RecentProject[]>('WorkspaceService', 'Recent'),
  /** Opens a folder by path (Open Folder…, a recent project, or a typed path in browser mode). */
  open: (path: string) => call<WorkspaceInfo>('WorkspaceService', 'Open', path),
  /** Opens what was dropped on the window; rejects files and multiple items with a clear message. */
  openDropped: (paths: string[]) => call<WorkspaceInfo>('WorkspaceService', 'OpenDropped', paths),
  /** Shows the native folder dialog; resolves to "" when the user cancels. Desktop only. */
  chooseFolder: () => call<string>('WorkspaceService', 'ChooseFolder'),
  remove: (id: number) => call<void>('WorkspaceService', 'Remove', id),
  /** The workspace open in this app, or null (lets a reloaded page pick up where it was). */
  current: () => call<WorkspaceInfo | null>('WorkspaceService', 'Current'),
  close: () => call<void>('WorkspaceService', 'Close'),
  /** One directory of the open workspace, "" for its root. */
  listDir: (rel: string) => call<DirListing>('WorkspaceService', 'ListDir', rel),
  /** A file of the open workspace for the viewer (confined to it, capped in size). */
  readFile: (rel: string) => call<FileContent>('WorkspaceService', 'ReadFile', rel),
}

export const ollama = {
  /** The last known status, without asking the server. */
  status: () => call<OllamaStatus>('OllamaService', 'Status'),
  /** Asks the server now. */
  refresh: () => call<OllamaStatus>('OllamaService', 'Refresh'),
  /** Checks a typed host without saving it; a failure is described in the status, not thrown. */
  testHost: (host: string) => call<OllamaStatus>('OllamaService', 'TestHost', host),
  /** Installed models with their capabilities (one /api/show each). */
  models: () => call<ModelDetail[]>('OllamaService', 'Models'),
  /** Starts a download; modelPull events follow. Joins a download of the same model. */
  pull: (model: string) => call<PullState>('OllamaService', 'Pull', model),
  cancelPull: (model: string) => call<void>('OllamaService', 'CancelPull', model),
  /** Downloads in progress (for a window opened while one runs). */
  pulls: () => call<PullState[]>('OllamaService', 'Pulls'),
  /** Loads the model in the background, so the first task does not wait for it. */
  warm: (model: string) => call<void>('OllamaService', 'Warm', model),
  /** How the model really calls tools: cached per installed version, else asked once (slow). */
  checkTools: (model: string) => call<ToolCheck>('OllamaService', 'CheckTools', model),
}

export const settings = {
  get: () => call<SettingsView>('SettingsService', 'Get'),
  save: (s: Settings) => call<SettingsView>('SettingsService', 'Save', s),
  /** The built-in tools, for the on/off switches. */
  tools: () => call<ToolInfo[]>('SettingsService', 'Tools'),
  /** The stored "always allow" rules. */
  rules: () => call<ApprovalRule[]>('SettingsService', 'Rules'),
  /** Deletes one; resolves to the rules left. */
  removeRule: (rule: ApprovalRule) => call<ApprovalRule[]>('SettingsService', 'RemoveRule', rule),
  /** The folders trusted to run their own programs. */
  trustedFolders: () => call<TrustedFolder[]>('SettingsService', 'TrustedFolders'),
  /** Trusts a folder; resolves to the trusted folders. */
  trustFolder: (path: string) => call<TrustedFolder[]>('SettingsService', 'TrustFolder', path),
  /** Takes a folder's trust back; resolves to the folders still trusted. */
  revokeTrust: (path: string) => call<TrustedFolder[]>('SettingsService', 'RevokeTrust', path),
  /** Why the trusted folders file could not be used at start, or "". */
  trustProblem: () => call<string>('SettingsService', 'TrustProblem'),
  /** The language servers and where each stands for the open project. */
  codeIntelligence: () => call<CodeIntelligenceView>('SettingsService', 'CodeIntelligence'),
  /** Uses program for a language's server ("" goes back to the one Gantry finds). */
  setLanguageServer: (id: string, program: string) => call<CodeIntelligenceView>('SettingsService', 'SetLanguageServer', id, program),
  /** The MCP servers and where each stands for the open project; starts those never started. */
  mcp: () => call<MCPView>('SettingsService', 'MCP'),
  /** Adds servers from pasted JSON (any shape READMEs show). */
  addMcpServers: (text: string) => call<MCPView>('SettingsService', 'AddMCPServers', text),
  /** Replaces one of the person's servers with pasted JSON (which may rename it). */
  saveMcpServer: (name: string, text: string) => call<MCPView>('SettingsService', 'SaveMCPServer', name, text),
  removeMcpServer: (name: string) => call<MCPView>('SettingsService', 'RemoveMCPServer', name),
  setMcpServerEnabled: (name: string, source: string, on: boolean) =>
    call<MCPView>('SettingsService', 'SetMCPServerEnabled', name, source, on),
  setMcpToolEnabled: (server: string, source: string, tool: string, on: boolean) =>
    call<MCPView>('SettingsService', 'SetMCPToolEnabled', server, source, tool, on),
  restartMcpServer: (name: string) => call<MCPView>('SettingsService', 'RestartMCPServer', name),
  /** MCP calls that failed for good, newest first. */
  mcpFailures: () => call<MCPFailure[]>('SettingsService', 'MCPFailures'),
  clearMcpFailures: () => call<MCPFailure[]>('SettingsService', 'ClearMCPFailures'),
}

export const app = {
  info: () => call<AppInfo>('AppService', 'Info'),
}

export const chat = {
  /** Starts a run (a new session when sessionId is ""); resolves at once, the run streams events. */
  send: (req: SendRequest) => call<SendResult>('ChatService', 'Send', req),
  stop: (runId: string) => call<void>('ChatService', 'Stop', runId),
  /** The run going on in a session, or "". */
  activeRun: (sessionId: string) => call<string>('ChatService', 'ActiveRun', sessionId),
  /** Stops one of the session's background tasks; it ends with a cancelled notice. */
  cancelTask: (sessionId: string, taskId: string) => call<void>('ChatService', 'CancelTask', sessionId, taskId),
  /** The session's background tasks still under way. */
  runningTasks: (sessionId: string) => call<string[]>('ChatService', 'RunningTasks', sessionId),
  sessions: () => call<Session[]>('ChatService', 'Sessions'),
  renameSession: (id: string, title: string) => call<void>('ChatService', 'RenameSession', id, title),
  deleteSession: (id: string) => call<void>('ChatService', 'DeleteSession', id),
  /** A session's stored events after afterSeq, oldest first, at most limit. */
  replay: (sessionId: string, afterSeq: number, limit: number) =>
    call<GantryEvent[]>('ChatService', 'Replay', sessionId, afterSeq, limit),
  respondApproval: (id: string, decision: ApprovalDecision) => call<void>('ChatService', 'RespondApproval', id, decision),
  approval: (id: string) => call<ApprovalView>('ChatService', 'Approval', id),
}

/** Keep or undo what a finished run changed. Paths are workspace-relative, as filesChanged names them. */
export const review = {
  files: (sessionId: string, runId: string) => call<FileChange[]>('ReviewService', 'ReviewFiles', sessionId, runId),
  diff: (sessionId: string, runId: string, path: string) =>
    call<FileDiff>('ReviewService', 'ReviewDiff', sessionId, runId, path),
  keep: (sessionId: string, runId: string, path: string) => call<void>('ReviewService', 'Keep', sessionId, runId, path),
  keepAll: (sessionId: string, runId: string) => call<void>('ReviewService', 'KeepAll', sessionId, runId),
  /** Resolves with outcome "conflicted" (not an error) when the file changed after the agent wrote it. */
  undo: (sessionId: string, runId: string, path: string) =>
    call<UndoResult>('ReviewService', 'Undo', sessionId, runId, path),
  /** Undo even over the person's later change, which is lost. */
  forceUndo: (sessionId: string, runId: string, path: string) =>
    call<UndoResult>('ReviewService', 'ForceUndo', sessionId, runId, path),
  undoAll: (sessionId: string, runId: string) => call<UndoResult[]>('ReviewService', 'UndoAll', sessionId, runId),
}
