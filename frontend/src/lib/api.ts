// Typed wrappers over the bound Go services. Components call these, never bridge.call directly.
import { call } from './bridge'
import type { AppInfo, DirListing, OllamaStatus, RecentProject, Settings, SettingsView, WorkspaceInfo } from './types'

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
}

export const ollama = {
  /** The last known status, without asking the server. */
  status: () => call<OllamaStatus>('OllamaService', 'Status'),
  /** Asks the server now. */
  refresh: () => call<OllamaStatus>('OllamaService', 'Refresh'),
}

export const settings = {
  get: () => call<SettingsView>('SettingsService', 'Get'),
  save: (s: Settings) => call<SettingsView>('SettingsService', 'Save', s),
}

export const app = {
  info: () => call<AppInfo>('AppService', 'Info'),
}
