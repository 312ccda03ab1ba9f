// The review of one finished run: which files it changed, where each stands, their diffs, and
// Keep / Undo. Every action refreshes the list from the backend, which reads the disk, so what
// the panel shows is what is there now (including the person's own later edits).
import { review } from '../lib/api'
import type { FileChange } from '../lib/events'
import type { FileDiff } from '../lib/types'

export type ReviewStatus = 'pending' | 'kept' | 'undone' | 'conflict'

/** Where a file stands for the panel: a waiting change the person edited since is a conflict. */
export function reviewStatus(f: FileChange): ReviewStatus {
  return f.status === 'pending' && f.conflict ? 'conflict' : f.status
}

export class ReviewStore {
  files = $state<FileChange[]>([])
  /** The file whose diff is open, or "". */
  open = $state('')
  diff = $state<FileDiff | null>(null)
  busy = $state(false)
  error = $state('')

  constructor(
    readonly sessionId: string,
    readonly runId: string,
    initial: FileChange[] = [],
  ) {
    this.files = initial
  }

  /** Files still waiting for Keep or Undo. */
  get pending(): number {
    return this.files.filter((f) => f.status === 'pending').length
  }

  async refresh() {
    this.files = await review.files(this.sessionId, this.runId)
    if (this.open) this.diff = await review.diff(this.sessionId, this.runId, this.open)
  }

  /** Opens a file's diff, or closes it when it is the open one. */
  async toggle(path: string) {
    if (this.open === path) {
      this.open = ''
      this.diff = null
      return
    }
    this.open = path
    this.diff = null
    await this.run(async () => {
      const d = await review.diff(this.sessionId, this.runId, path)
      if (this.open === path) this.diff = d
    }, false)
  }

  keep = (path: string) => this.run(() => review.keep(this.sessionId, this.runId, path))
  undo = (path: string) => this.run(() => review.undo(this.sessionId, this.runId, path))
  forceUndo = (path: string) => this.run(() => review.forceUndo(this.sessionId, this.runId, path))
  keepAll = () => this.run(() => review.keepAll(this.sessionId, this.runId))
  undoAll = () => this.run(() => review.undoAll(this.sessionId, this.runId))

  /** Runs one action at a time and refreshes after it, showing its failure instead of throwing. */
  private async run(action: () => Promise<unknown>, refresh = true) {
    if (this.busy) return
    this.busy = true
    this.error = ''
    try {
      await action()
      if (refresh) await this.refresh()
    } catch (err) {
      this.error = (err as Error).message ?? String(err)
      if (refresh) await this.refresh().catch(() => {})
    } finally {
      this.busy = false
    }
  }
}
