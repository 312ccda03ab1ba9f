// Which chat each project shows in this window, and fetching a chat's stored events to replay.
// This is in the first bundle: a reloaded window knows its project as soon as its first call
// answers, long before the chat panel's code has loaded and rendered, so the shown chat's events
// are fetched from then on (ChatStore.open takes them) instead of after all of that.
import { chat } from '../lib/api'
import { onEvent } from '../lib/bridge'
import type { GantryEvent } from '../lib/events'
import { dropPrefetch, latestReviewRun, prefetchReview } from './reviewPrefetch'

/** Replay pages: the most the backend gives at once (app.replayMaxPage), so a session of up to
 * 5,000 events (a 60-run one has some 1,300) loads in one call. */
const replayPage = 5000

const rememberKey = (workspace: string) => `gantry-chat-session:${workspace}`

/** The session shown per workspace survives a reload of this window (not a restart). */
export function rememberSession(workspace: string, sessionId: string) {
  if (!workspace || typeof sessionStorage === 'undefined') return
  if (sessionId) sessionStorage.setItem(rememberKey(workspace), sessionId)
  else sessionStorage.removeItem(rememberKey(workspace))
}

export function rememberedSession(workspace: string): string {
  return typeof sessionStorage !== 'undefined' ? (sessionStorage.getItem(rememberKey(workspace)) ?? '') : ''
}

/** A session's stored events after afterSeq, every page of them. */
export async function fetchReplay(sessionId: string, afterSeq: number): Promise<GantryEvent[]> {
  const events: GantryEvent[] = []
  for (;;) {
    const page = await chat.replay(sessionId, afterSeq, replayPage)
    events.push(...page)
    if (page.length < replayPage) return events
    afterSeq = page[page.length - 1].seq
  }
}

/** A replay fetched early, with the live events that arrived since it was asked for (a run may
 * still be going): together they are everything, duplicates aside. */
export interface EarlyReplay {
  stored: Promise<GantryEvent[]>
  live: GantryEvent[]
}

let early: (EarlyReplay & { sessionId: string; stop: () => void; ahead: string }) | null = null

/** Starts fetching the chat the workspace shows in this window, if it shows one. */
export function fetchShownChat(workspace: string) {
  dropEarlyReplay()
  const sessionId = rememberedSession(workspace)
  if (!sessionId) return
  const live: GantryEvent[] = []
  const stop = onEvent((e) => {
    if (e.sessionId === sessionId) live.push(e)
  })
  const stored = fetchReplay(sessionId, 0)
  const mine = { sessionId, stored, live, stop, ahead: '' }
  // The latest review list is read while the chat panel loads and builds the turns.
  stored.then(
    (events) => {
      mine.ahead = latestReviewRun(events)
      if (mine.ahead && early === mine) void prefetchReview(sessionId, mine.ahead)
    },
    () => {}, // a failure is reported by ChatStore.open, which asks again
  )
  early = mine
}

/** Drops an early replay nobody took (the project closed before its chat panel opened), so that
 * it stops collecting live events. */
export function dropEarlyReplay() {
  early?.stop()
  if (early?.ahead) dropPrefetch(early.sessionId, early.ahead)
  early = null
}

/** The early replay of sessionId, once; undefined when there is none. Live events stop being
 * collected: the caller holds them from now on. */
export function takeEarlyReplay(sessionId: string): EarlyReplay | undefined {
  if (early?.sessionId !== sessionId) return undefined
  const { stored, live, stop } = early
  stop()
  early = null
  return { stored, live }
}
