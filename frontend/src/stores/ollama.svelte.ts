// What Gantry knows about the Ollama server. The backend re-checks on its own while the server is
// unreachable and posts ollamaStatus events, so the indicator recovers without user action.
import { ollama } from '../lib/api'
import { onEvent } from '../lib/bridge'
import { EventType, type GantryEvent } from '../lib/events'
import type { OllamaStatus } from '../lib/types'
import { messageOf } from './notices.svelte'

export type OllamaState = 'checking' | 'reachable' | 'unreachable'

/** The indicator's short text: "Ollama 0.17.4 · 3 models", "Ollama unreachable", "Checking Ollama…". */
export function summarize(state: OllamaState, status: OllamaStatus | null): string {
  if (state === 'unreachable') return 'Ollama unreachable'
  if (state === 'checking' || !status) return 'Checking Ollama…'
  const n = status.models?.length ?? 0
  const models = n === 0 ? 'no models' : n === 1 ? '1 model' : `${n} models`
  return `Ollama ${status.version || ''}`.trimEnd() + ` · ${models}`
}

export class OllamaStore {
  status = $state<OllamaStatus | null>(null)
  /** A Refresh the user (or startup) asked for is in flight. */
  checking = $state(false)
  /** The backend itself could not be asked (not Ollama's error, which lives in status.error). */
  failure = $state('')

  /** Never checked yet counts as checking: the backend's first status has no checkedAt. */
  get state(): OllamaState {
    if (!this.status?.checkedAt) return 'checking'
    return this.status.reachable ? 'reachable' : 'unreachable'
  }

  /** Keeps the newest status: a slow Refresh must not overwrite a later event. */
  apply(next: OllamaStatus) {
    const current = this.status
    if (current?.checkedAt && next.checkedAt && Date.parse(next.checkedAt) < Date.parse(current.checkedAt)) return
    this.status = next
    this.failure = ''
  }

  get summary(): string {
    if (this.state === 'checking' && this.failure && !this.checking) return 'Ollama status unknown'
    return summarize(this.state, this.status)
  }

  handleEvent(e: GantryEvent) {
    if (e.type === EventType.OllamaStatus) this.apply(e.payload)
  }

  async refresh() {
    this.checking = true
    try {
      this.apply(await ollama.refresh())
    } catch (err) {
      this.failure = messageOf(err)
    } finally {
      this.checking = false
    }
  }

  /**
   * Shows the last known status, then follows the backend's events. The backend checks the server
   * as it starts and posts the answer, so the page asks the server itself only when that answer is
   * not in yet (its event may have gone out before this page listened). Nothing here is awaited
   * by the first render. Returns the unsubscribe function.
   */
  start(): () => void {
    const off = onEvent((e) => this.handleEvent(e))
    void (async () => {
      try {
        this.apply(await ollama.status())
      } catch (err) {
        this.failure = messageOf(err)
      }
      if (!this.status?.checkedAt) await this.refresh()
    })()
    return off
  }
}

export const ollamaStore = new OllamaStore()
