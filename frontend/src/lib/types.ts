// Mirrors of the Go types the bound services return (app/ and internal/ packages).

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
