// The review of one finished run: which files it changed, where each stands, their diffs, and
// Keep / Undo. Every action refreshes the list from the backend, which reads the disk, so what
// the panel shows is what is there now (including the person's own later edits).
import { review } from '../lib/api'
import type { FileChange } from '../lib/events'
import type { FileDiff, UndoConflict, UndoResult } from '../lib/types'

export type ReviewStatus = 'pending' | 'kept' | 'undone' | 'conflict'

/**
 * Why Undo left a file alone, in plain words, from what the backend found (checkpoint.Conflict);
 * without it (the list only says "conflict") the general case.
 */
export function conflictText(c: UndoConflict | undefined): string {
  switch (true) {
    case c?.unrecorded:
      return 'This file changed, but the agent’s write to it was never recorded (the app stopped first), so the change may be yours. Undo would replace it with the version from before the run.'
    case c && !c.diskExists:
      return 'You deleted this file after the agent wrote it. Undo would bring back the version from before the run.'
    case c && !c.agentExists:
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
  /** What the last Undo found about files it left alone, by path. */
  conflicts = $state<Record<string, UndoConflict>>({})

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

  // Counts diff loads: only the latest may show, so a slow answer for a file closed or
  // switched away from meanwhile never lands under another file's name.
  #diffLoad = 0

  async refresh() {
    this.files = await review.files(this.sessionId, this.runId)
    if (this.open) await this.loadDiff(this.open)
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
      if (this.open === path) this.error = (err as Error).message ?? String(err)
    })
  }

  /** Loads the open file's diff; a load overtaken by a newer one changes nothing. */
  private async loadDiff(path: string) {
    const load = ++this.#diffLoad
    const d = await review.diff(this.sessionId, this.runId, path)
    if (load === this.#diffLoad && this.open === path) this.diff = d
  }

  keep = (path: string) => this.run(() => review.keep(this.sessionId, this.runId, path))
  undo = (path: string) => this.run(async () => this.noteConflicts([await review.undo(this.sessionId, this.runId, path)]))
  forceUndo = (path: string) => this.run(() => review.forceUndo(this.sessionId, this.runId, path))
  keepAll = () => this.run(() => review.keepAll(this.sessionId, this.runId))
  undoAll = () => this.run(async () => this.noteConflicts(await review.undoAll(this.sessionId, this.runId)))

  private noteConflicts(results: UndoResult[]) {
    const next = { ...this.conflicts }
    for (const r of results) if (r.conflict) next[r.path] = r.conflict
    this.conflicts = next
  }

  /** Runs one action at a time and refreshes after it, showing its failure instead of throwing. */
  private async run(action: () => Promise<unknown>) {
    if (this.busy) return
    this.busy = true
    this.error = ''
    try {
      await action()
      await this.refresh()
    } catch (err) {
      this.error = (err as Error).message ?? String(err)
      await this.refresh().catch(() => {})
    } finally {
      this.busy = false
    }
  }
}
