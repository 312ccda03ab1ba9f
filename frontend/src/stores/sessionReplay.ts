// Which chat each project shows in this window, and fetching a chat's stored events to replay.
import { chat } from '../lib/api'
import type { GantryEvent } from '../lib/events'

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
