// Reading a reopened session's latest review list ahead (issue 18). The latest turn's panel shows
// where its files stand at once; asked for only once the panel is built, behind the whole
// conversation's build, the answer shows frames later. Asked for as soon as the session's events
// are in, it is read while they are applied and the turns built, and the panel takes it in the
// turns' first frame. This is in the first bundle: a reloaded window fetches its chat's events
// early (sessionReplay.ts), long before the panel's code has loaded. A change on disk drops what
// was read before it.
import { review } from '../lib/api'
import { onEvent } from '../lib/bridge'
import { EventType, type FileChange, type GantryEvent } from '../lib/events'

export interface Prefetch {
  files: Promise<FileChange[]>
  /** The list, once read. */
  read?: FileChange[]
}

const prefetched = new Map<string, Prefetch>()
let dropOnChange: (() => void) | null = null
const key = (sessionId: string, runId: string) => `${sessionId}\n${runId}`

/**
 * The run whose review panel shows at once when these events (a whole session's, in order) are
 * shown: the latest turn's, when it ended having changed files; "" when there is none.
 * Subagents' runs show inside their parent's turn, so they are not turns.
 */
export function latestReviewRun(events: GantryEvent[]): string {
  const changed = new Map<string, boolean>() // by run, from its last runFinished
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]
    if (e.type === EventType.RunFinished && !changed.has(e.runId)) changed.set(e.runId, !!e.payload.filesChanged?.length)
    if (e.type === EventType.RunStarted && !e.payload.subagent) return changed.get(e.runId) ? e.runId : ''
  }
  return ''
}

/** Starts reading a run's list for its panel; resolves once it is read (or failed: the panel asks
 * again). A second call for the same run waits for the first read. */
export function prefetchReview(sessionId: string, runId: string): Promise<void> {
  const k = key(sessionId, runId)
  let p = prefetched.get(k)
  if (!p) {
    const entry: Prefetch = { files: review.files(sessionId, runId) }
    entry.files.then(
      (files) => (entry.read = files),
      () => prefetched.get(k) === entry && prefetched.delete(k),
    )
    prefetched.set(k, entry)
    dropOnChange ??= onEvent((e) => {
      if (e.type === EventType.WorkspaceChanged) prefetched.clear()
    })
    p = entry
  }
  return p.files.then(
    () => {},
    () => {},
  )
}

/** Drops what was read ahead for a run and not taken: a panel made later reads for itself. */
export function dropPrefetch(sessionId: string, runId: string) {
  prefetched.delete(key(sessionId, runId))
}

/** What was read ahead for a run, once: the panel that takes it owns it. */
export function takePrefetch(sessionId: string, runId: string): Prefetch | undefined {
  const k = key(sessionId, runId)
  const p = prefetched.get(k)
  prefetched.delete(k)
  return p
}
