// The user's settings as the backend reports them, plus the start-up problem (a corrupt file).
import { settings } from '../lib/api'
import type { Settings, SettingsView } from '../lib/types'
import { messageOf, notices } from './notices.svelte'
import { ollamaStore } from './ollama.svelte'

export class SettingsStore {
  view = $state<SettingsView | null>(null)
  dialogOpen = $state(false)

  async load() {
    try {
      this.view = await settings.get()
    } catch (err) {
      notices.push('error', 'app', `Could not read the settings: ${messageOf(err)}`)
      return
    }
    if (this.view.problem) notices.push('warning', 'app', this.view.problem)
  }

  /** Saves and re-checks Ollama (the host may have changed). Rejects with the backend's message. */
  async save(next: Settings) {
    this.view = await settings.save(next)
    await ollamaStore.refresh()
  }
}

export const settingsStore = new SettingsStore()
