// The review of one finished run: which files it changed, where each stands, their diffs, and
// Keep / Undo. Every action, and every change on disk to one of the files, reads the list again
// from the backend, which reads the disk, so what the panel shows is what is there now
// (including the person's own later edits).
import { review } from '../lib/api'
import { onEvent } from '../lib/bridge'
import { EventType, type FileChange, type WorkspaceChangedPayload } from '../lib/events'
import type { FileDiff } from '../lib/types'
import { messageOf } from './notices.svelte'
import { takePrefetch } from './reviewPrefetch'
import { workspaceStore } from './workspace.svelte'

export type ReviewStatus = 'pending' | 'kept' | 'undone' | 'conflict'

/**
 * Why a waiting file is in conflict (Undo would leave it alone), in plain words, from what the
 * backend's list says about it (checkpoint.FileChange).
 */
export function conflictText(f: Pick<FileChange, 'change' | 'missing' | 'unrecorded' | 'laterRun'>): string {
  switch (true) {
    case f.laterRun:
      return 'A later run changed this file again. Undo would put back the version from before this run and lose that later change too; undo the later run’s change first.'
    case f.unrecorded:
      return 'This file changed, but the agent’s write to it was never recorded (the app stopped first), so the change may be yours. Undo would replace it with the version from before the run.'
    case f.missing:
      return 'You deleted this file after the agent wrote it. Undo would bring back the version from before the run.'
    case f.change === 'deleted':
      return 'The agent deleted this file and it has been created again since. Undo would replace it with the version from before the run.'
    default:
      return 'You changed this file after the agent wrote it. Undo would lose your change.'
  }
}

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
  /** The list is being read again. */
  loading = $state(false)
  /** The list has been read from the backend (or that failed, and says why) at least once; until
   * then it is only the run's own account. */
  ready = $state(false)

  constructor(
    readonly sessionId: string,
    readonly runId: string,
    initial: FileChange[] = [],
  ) {
    this.files = initial
    const early = takePrefetch(sessionId, runId)
    if (early?.read) {
      this.files = early.read
      this.ready = true
      this.#fresh = true
    } else this.#early = early?.files
  }

  // From prefetchReview (reviewPrefetch.ts): the list read already (its first showing needs no read of its own), or
  // the read on its way (the first read waits for it).
  #fresh = false
  #early: Promise<FileChange[]> | undefined

  /** Files still waiting for Keep or Undo. */
  get pending(): number {
    return this.files.filter((f) => f.status === 'pending').length
  }

  // Counts diff loads: only the latest may show, so a slow answer for a file closed or
  // switched away from meanwhile never lands under another file's name.
  #diffLoad = 0

  #refreshing: Promise<void> | null = null
  #again = false
  #shown = false

  /**
   * Reads the list (and the open diff) again. A call while a read is on its way asks for one more
   * read after it, so what shows is never older than the last change anyone reported.
   */
  refresh(): Promise<void> {
    if (this.#refreshing) {
      this.#again = true
      return this.#refreshing
    }
    this.loading = true
    this.#refreshing = (async () => {
      try {
        let read = this.#early?.catch(() => review.files(this.sessionId, this.runId))
        this.#early = undefined
        do {
          this.#again = false
          this.files = await (read ?? review.files(this.sessionId, this.runId))
          read = undefined
          if (this.open) await this.loadDiff(this.open)
        } while (this.#again)
      } finally {
        this.#refreshing = null
        this.loading = false
        this.ready = true
      }
    })()
    return this.#refreshing
  }

  /**
   * Files changed on disk (the watcher's workspaceChanged): when one of this run's files may be
   * among them, the list is read again, so a file the person edited or deleted shows as a
   * conflict before they press Undo.
   */
  changed(change: WorkspaceChangedPayload) {
    if (!this.#shown) {
      // Its first read, when it comes into view, is a new one: not the list read ahead, nor one
      // that was on its way before the change.
      this.#fresh = false
      this.#early = undefined
      return
    }
    const touched = (p: string) => this.files.some((f) => f.path === p || f.path.startsWith(p + '/'))
    if (!change.overflow && !change.more && !change.paths.some(touched)) return
    this.refresh().catch((err) => (this.error = messageOf(err)))
  }

  /**
   * The panel came into view: the first time, the list is read (files may have been kept,
   * undone or edited since the run ended). A long session reopened reads only the panels the
   * person scrolls to, not one per run at once.
   */
  shown() {
    if (this.#shown) return
    this.#shown = true
    if (this.#fresh) return
    this.refresh().catch((err) => (this.error = messageOf(err)))
  }

  /** Follows changes on disk in the open project (the run's own). Returns the unsubscribe function. */
  start(): () => void {
    return onEvent((e) => {
      if (e.type !== EventType.WorkspaceChanged) return
      const change = e.payload
      if (change.root === workspaceStore.current?.path) this.changed(change)
    })
  }

  /** Opens a file's diff, or closes it when it is the open one. Works while an action runs. */
  async toggle(path: string) {
    this.#diffLoad++
    this.diff = null
    if (this.open === path) {
      this.open = ''
      return
    }
    this.open = path
    await this.loadDiff(path).catch((err) => {
      if (this.open === path) this.error = messageOf(err)
    })
  }

  /** Loads the open file's diff; a load overtaken by a newer one changes nothing. */
  private async loadDiff(path: string) {
    const load = ++this.#diffLoad
    const d = await review.diff(this.sessionId, this.runId, path)
    if (load === this.#diffLoad && this.open === path) this.diff = d
  }

  keep = (path: string) => this.run(() => review.keep(this.sessionId, this.runId, path))
  undo = (path: string) => this.run(() => review.undo(this.sessionId, this.runId, path))
  forceUndo = (path: string) => this.run(() => review.forceUndo(this.sessionId, this.runId, path))
  keepAll = () => this.run(() => review.keepAll(this.sessionId, this.runId))
  undoAll = () => this.run(() => review.undoAll(this.sessionId, this.runId))

  /** Runs one action at a time and refreshes after it, showing its failure instead of throwing. */
  private async run(action: () => Promise<unknown>) {
    if (this.busy) return
    this.busy = true
    this.error = ''
    try {
      await action()
      await this.refresh()
    } catch (err) {
      this.error = messageOf(err)
      await this.refresh().catch(() => {})
    } finally {
      this.busy = false
    }
  }
}
