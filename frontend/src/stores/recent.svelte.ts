// Recently opened projects, newest first. The backend posts recentChanged whenever the list changes.
import { workspaces } from '../lib/api'
import { onEvent } from '../lib/bridge'
import { EventType } from '../lib/events'
import type { RecentProject } from '../lib/types'
import { messageOf, notices } from './notices.svelte'

function newestFirst(list: RecentProject[]): RecentProject[] {
  return [...list].sort((a, b) => (Date.parse(b.openedAt) || 0) - (Date.parse(a.openedAt) || 0))
}

export class RecentStore {
  items = $state<RecentProject[]>([])
  loaded = $state(false)
  error = $state('')

  async load() {
    try {
      this.items = newestFirst((await workspaces.recent()) ?? [])
      this.error = ''
    } catch (err) {
      this.error = messageOf(err)
    } finally {
      this.loaded = true
    }
  }

  /** Drops the row at once; puts it back if the backend refuses. */
  async remove(id: number) {
    const before = this.items
    this.items = before.filter((p) => p.id !== id)
    try {
      await workspaces.remove(id)
    } catch (err) {
      this.items = before
      notices.push('error', 'app', `Could not remove the project from the list: ${messageOf(err)}`)
    }
  }

  /** Follows recentChanged events; the welcome screen loads the list whenever it is shown. */
  start(): () => void {
    return onEvent((e) => {
      if (e.type === EventType.RecentChanged) void this.load()
    })
  }
}

export const recentStore = new RecentStore()
