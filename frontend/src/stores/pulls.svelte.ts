// Model downloads started from Settings. The backend posts modelPull events to every window, so
// a download started in one window shows its progress in all of them.
import { ollama } from '../lib/api'
import { onEvent } from '../lib/bridge'
import { EventType, type GantryEvent } from '../lib/events'
import type { PullState } from '../lib/types'
import { messageOf } from './notices.svelte'
import { ollamaStore } from './ollama.svelte'

const key = (model: string) => model.trim().toLowerCase()

export class PullStore {
  /** The latest state of each download this window knows of, by lower-case name. */
  items = $state<Record<string, PullState>>({})
  /** Starting a download failed before it began (a bad name, no host). */
  error = $state('')
  /** Called when a download finished, so a model list can re-read. */
  onDone: (() => void) | null = null

  get list(): PullState[] {
    return Object.values(this.items)
  }

  get running(): PullState[] {
    return this.list.filter((p) => p.state === 'running')
  }

  /**
   * Shows a download's state. fresh says it is a new attempt (the backend's first event of a pull
   * says "starting"), which replaces an ended one; otherwise a late progress event (or the late
   * answer to pull()) must not undo an ending already shown.
   */
  apply(p: PullState, fresh = false) {
    const was = this.items[key(p.model)]
    if (!fresh && was && was.state !== 'running' && p.state === 'running' && was.percent >= p.percent) return
    this.items = { ...this.items, [key(p.model)]: p }
    if (p.state === 'done' && was?.state !== 'done') {
      void ollamaStore.refresh()
      this.onDone?.()
    }
  }

  handleEvent(e: GantryEvent) {
    if (e.type !== EventType.ModelPull) return
    const p = e.payload
    this.apply(p, p.state === 'running' && p.status === 'starting')
  }

  async pull(model: string): Promise<boolean> {
    this.error = ''
    // Trying again after an ending starts a new line rather than keep showing the old ending.
    if (this.items[key(model)]?.state !== 'running') this.dismiss(model)
    try {
      this.apply(await ollama.pull(model))
      return true
    } catch (err) {
      this.error = messageOf(err)
      return false
    }
  }

  async cancel(model: string) {
    try {
      await ollama.cancelPull(model)
    } catch (err) {
      this.error = messageOf(err)
    }
  }

  /** Forgets a finished download's line (the person closed it). */
  dismiss(model: string) {
    const { [key(model)]: _, ...rest } = this.items
    this.items = rest
  }

  /** Picks up downloads already running, then follows events. Returns the unsubscribe function. */
  start(): () => void {
    const off = onEvent((e) => this.handleEvent(e))
    void ollama.pulls().then(
      (running) => running.forEach((p) => this.apply(p)),
      () => {},
    )
    return off
  }
}

export const pullStore = new PullStore()
