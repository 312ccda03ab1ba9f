// The user's settings as the backend reports them, plus the start-up problem (a corrupt file).
import { settings } from '../lib/api'
import type { Settings, SettingsView, Theme } from '../lib/types'
import { messageOf, notices } from './notices.svelte'
import { ollamaStore } from './ollama.svelte'

/** The OS's colour scheme as matchMedia('(prefers-color-scheme: dark)') reports it. */
interface OSScheme {
  matches: boolean
  addEventListener(type: 'change', listener: () => void): void
  removeEventListener(type: 'change', listener: () => void): void
}

let following: { scheme: OSScheme; listener: () => void } | null = null

/**
 * Sets the app's colour scheme: data-theme on <html> (which app.css reads) is always light or
 * dark, the one pinned in Settings, or for "system" the OS's, followed as it changes.
 */
export function applyTheme(
  theme: Theme | undefined,
  root?: { dataset: DOMStringMap },
  os: () => OSScheme | undefined = () => (typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : undefined),
) {
  root ??= typeof document === 'undefined' ? undefined : document.documentElement
  if (!root) return
  if (following) {
    following.scheme.removeEventListener('change', following.listener)
    following = null
  }
  if (theme === 'light' || theme === 'dark') {
    root.dataset.theme = theme
    return
  }
  const scheme = os()
  if (!scheme) return
  const r = root
  const listener = () => (r.dataset.theme = scheme.matches ? 'dark' : 'light')
  listener()
  scheme.addEventListener('change', listener)
  following = { scheme, listener }
}

export type SettingsSection = 'general' | 'models' | 'permissions' | 'files' | 'rules' | 'trust' | 'tools' | 'code'

export class SettingsStore {
  view = $state<SettingsView | null>(null)
  dialogOpen = $state(false)
  /** The section the dialog shows. */
  section = $state<SettingsSection>('general')
  /** Why the last change of a field was refused, by field; cleared when it saves. */
  fieldErrors = $state<Record<string, string>>({})
  /** The field saved last, for a quiet "Saved" next to it. */
  savedField = $state('')

  async load() {
    try {
      this.set(await settings.get())
    } catch (err) {
      notices.push('error', 'app', `Could not read the settings: ${messageOf(err)}`)
      return
    }
    if (this.view?.problem) notices.push('warning', 'app', this.view.problem)
  }

  /**
   * Saves the changed fields and re-checks Ollama (the host may have changed). Fields not named
   * keep their current values. Rejects with the backend's message, changing nothing.
   */
  save(changes: Partial<Settings>): Promise<void> {
    // One at a time, each over the result of the last: two quick changes (a radio, then a switch)
    // must not both start from the same old settings and undo each other.
    const run = this.queue.then(async () => {
      this.set(await settings.save({ ...this.view?.settings, ...changes } as Settings))
    })
    this.queue = run.catch(() => {})
    return run.then(() => ollamaStore.refresh())
  }

  private queue: Promise<void> = Promise.resolve()

  /**
   * Saves one field's change at once, as the Settings screen does on every edit. A refusal is
   * kept in fieldErrors[field] (shown under the field) instead of thrown. Resolves to whether it
   * was saved.
   */
  async saveField(field: string, changes: Partial<Settings>): Promise<boolean> {
    try {
      await this.save(changes)
    } catch (err) {
      this.fieldErrors = { ...this.fieldErrors, [field]: messageOf(err) }
      this.savedField = ''
      return false
    }
    const { [field]: _, ...rest } = this.fieldErrors
    this.fieldErrors = rest
    this.savedField = field
    return true
  }

  private set(view: SettingsView) {
    this.view = view
    applyTheme(view.settings.theme)
  }
}

export const settingsStore = new SettingsStore()
