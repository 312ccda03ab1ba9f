// What the tool check found per model (see ollama.checkTools). A model is checked when it is
// picked; the backend keeps each model version's answer, so asking again is cheap.
import { ollama } from '../lib/api'
import type { ToolCheck } from '../lib/types'
import { messageOf } from './notices.svelte'

export type ToolCheckState = { state: 'checking' } | { state: 'done'; check: ToolCheck } | { state: 'failed'; error: string }

export class ToolCheckStore {
  byModel = $state<Record<string, ToolCheckState>>({})

  /** Asks for the model's check unless one is known or under way; a failed one is asked again. */
  async check(model: string) {
    if (!model) return
    const known = this.byModel[model]
    if (known && known.state !== 'failed') return
    this.byModel[model] = { state: 'checking' }
    try {
      this.byModel[model] = { state: 'done', check: await ollama.checkTools(model) }
    } catch (err) {
      this.byModel[model] = { state: 'failed', error: messageOf(err) }
    }
  }
}

export const toolCheckStore = new ToolCheckStore()
