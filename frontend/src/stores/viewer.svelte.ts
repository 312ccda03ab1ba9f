// The read-only file viewer: which file is shown, the lines to bring into view, and its text.
import { workspaces } from '../lib/api'
import type { WorkspaceChangedPayload } from '../lib/events'
import type { FileContent } from '../lib/types'
import { messageOf } from './notices.svelte'

export class ViewerStore {
  /** The workspace-relative path shown; "" when the viewer is closed. */
  path = $state('')
  /** The lines to highlight and scroll to (1-based, inclusive); 0 when none. */
  startLine = $state(0)
  endLine = $state(0)
  file = $state<FileContent | null>(null)
  loading = $state(false)
  error = $state('')
  /** Counts opens, so a view can scroll again when the same lines are asked for twice. */
  generation = $state(0)

  /** Shows a file at a line range; later opens win over slower earlier ones. */
  async open(path: string, startLine = 0, endLine = 0) {
    const mine = ++this.generation
    this.startLine = startLine
    this.endLine = Math.max(endLine, startLine)
    if (path === this.path && this.file) return
    this.path = path
    this.file = null
    this.error = ''
    this.loading = true
    try {
      const file = await workspaces.readFile(path)
      if (mine === this.generation) this.file = file
    } catch (err) {
      if (mine === this.generation) this.error = messageOf(err)
    } finally {
      if (mine === this.generation) this.loading = false
    }
  }

  /** Reads the shown file again (it may have changed on disk). */
  async reload() {
    const { path, startLine, endLine } = this
    if (!path) return
    this.file = null
    await this.open(path, startLine, endLine)
  }

  /** Follows the shown file on disk: when a workspaceChanged event names it (or events were
   * lost), it is read again in place, keeping the lines in view; a file that is gone says so. */
  async changedOnDisk(change: Pick<WorkspaceChangedPayload, 'paths' | 'more' | 'overflow'>) {
    const { path, generation } = this
    if (!path || !this.file) return
    if (!change.overflow && !change.more && !change.paths.includes(path)) return
    const mine = ++this.#rereads
    const current = () => mine === this.#rereads && generation === this.generation && path === this.path
    try {
      const file = await workspaces.readFile(path)
      if (current()) this.file = file
    } catch (err) {
      if (!current()) return
      this.file = null
      this.error = messageOf(err)
    }
  }

  #rereads = 0

  close() {
    this.generation++
    this.path = ''
    this.file = null
    this.error = ''
    this.loading = false
  }
}

export const viewerStore = new ViewerStore()
