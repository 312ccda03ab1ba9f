// The lazily loaded file tree of the open workspace: each folder is listed the first time it is
// expanded and kept afterwards; a failed listing is remembered per folder and can be retried.
// When files change on disk (workspaceChanged), the folders already listed are listed again in
// place, so expansion and focus survive.
import { workspaces } from '../lib/api'
import type { WorkspaceChangedPayload } from '../lib/events'
import type { DirEntry } from '../lib/types'
import { messageOf } from './notices.svelte'

export interface Folder {
  status: 'loading' | 'loaded' | 'error'
  entries: DirEntry[]
  /** Entries the backend left out of a very large folder. */
  truncated: number
  error: string
}

/** Path of the workspace root in listDir and in the maps below. */
export const rootPath = ''

function sortEntries(entries: DirEntry[]): DirEntry[] {
  return [...entries].sort((a, b) =>
    a.isDir === b.isDir ? a.name.localeCompare(b.name, undefined, { numeric: true, sensitivity: 'base' }) : a.isDir ? -1 : 1,
  )
}

export class FileTree {
  folders = $state<Record<string, Folder>>({})
  expanded = $state<Record<string, boolean>>({})
  /** The row that takes keyboard focus (roving tabindex); "" means the first row. */
  active = $state('')
  /** The newest listing asked per folder: an older answer arriving late must not win. */
  #asked: Record<string, number> = {}

  /** Lists path unless it is loaded or loading already; a folder that failed is asked again. */
  async load(path: string) {
    const known = this.folders[path]
    if (known && known.status !== 'error') return
    this.folders[path] = { status: 'loading', entries: [], truncated: 0, error: '' }
    await this.#list(path)
  }

  /** Lists a folder again, keeping the old entries on screen until the new ones arrive. */
  async refresh(path: string) {
    if (!this.folders[path]) return
    await this.#list(path)
  }

  /** Applies a workspaceChanged event: folders already listed are listed again, the rest wait
   * until they are expanded. Lost events (overflow, or lists cut short) reload every listed folder. */
  applyChange(change: WorkspaceChangedPayload) {
    const all = change.overflow || change.more
    const dirs = all ? Object.keys(this.folders) : (change.dirs ?? []).filter((d) => d in this.folders)
    return Promise.all(dirs.map((d) => this.refresh(d)))
  }

  async #list(path: string) {
    const asked = (this.#asked[path] ?? 0) + 1
    this.#asked[path] = asked
    try {
      const listing = await workspaces.listDir(path)
      if (!this.#current(path, asked)) return
      const entries = sortEntries(listing.entries ?? [])
      this.#forgetRemovedFolders(path, entries)
      this.folders[path] = { status: 'loaded', entries, truncated: listing.truncated ?? 0, error: '' }
    } catch (err) {
      if (!this.#current(path, asked)) return
      this.folders[path] = { status: 'error', entries: [], truncated: 0, error: messageOf(err) }
    }
  }

  /** A newer listing was asked, or the folder was forgotten meanwhile (its parent lost it). */
  #current(path: string, asked: number): boolean {
    return this.#asked[path] === asked && path in this.folders
  }

  /** Drops what was known below subfolders that are gone, so a folder created again under the
   * same name starts collapsed and is listed afresh. */
  #forgetRemovedFolders(path: string, entries: DirEntry[]) {
    const before = this.folders[path]
    if (before?.status !== 'loaded') return
    const still = new Set(entries.filter((e) => e.isDir).map((e) => e.path))
    for (const gone of before.entries.filter((e) => e.isDir && !still.has(e.path))) {
      for (const key of [...Object.keys(this.folders), ...Object.keys(this.expanded)]) {
        if (key === gone.path || key.startsWith(gone.path + '/')) {
          delete this.folders[key]
          delete this.expanded[key]
        }
      }
    }
  }

  isExpanded(path: string): boolean {
    return this.expanded[path] === true
  }

  expand(path: string) {
    this.expanded[path] = true
    return this.load(path)
  }

  collapse(path: string) {
    delete this.expanded[path]
  }

  toggle(path: string) {
    if (this.isExpanded(path)) this.collapse(path)
    else void this.expand(path)
  }
}
