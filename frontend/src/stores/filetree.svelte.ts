// The lazily loaded file tree of the open workspace: each folder is listed the first time it is
// expanded and kept afterwards; a failed listing is remembered per folder and can be retried.
import { workspaces } from '../lib/api'
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

  /** Lists path unless it is loaded or loading already; a folder that failed is asked again. */
  async load(path: string) {
    const known = this.folders[path]
    if (known && known.status !== 'error') return
    this.folders[path] = { status: 'loading', entries: [], truncated: 0, error: '' }
    try {
      const listing = await workspaces.listDir(path)
      this.folders[path] = {
        status: 'loaded',
        entries: sortEntries(listing.entries ?? []),
        truncated: listing.truncated ?? 0,
        error: '',
      }
    } catch (err) {
      this.folders[path] = { status: 'error', entries: [], truncated: 0, error: messageOf(err) }
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
