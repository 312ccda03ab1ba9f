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

  /**
   * Saves the changed fields and re-checks Ollama (the host may have changed). Fields this screen
   * does not show keep their current values. Rejects with the backend's message.
   */
  async save(changes: Partial<Settings>) {
    this.view = await settings.save({ ...this.view?.settings, ...changes } as Settings)
    await ollamaStore.refresh()
  }
}

export const settingsStore = new SettingsStore()
