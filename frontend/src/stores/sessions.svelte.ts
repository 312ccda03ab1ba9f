// The workspace's chat sessions, newest first. The list follows runs (a run starting creates or
// touches a session, one finishing moves it up) and the person's renames and deletes.
import { chat } from '../lib/api'
import { onEvent } from '../lib/bridge'
import { EventType } from '../lib/events'
import type { Session } from '../lib/types'
import { chatStore } from './chat.svelte'
import { messageOf, notices } from './notices.svelte'

function newestFirst(list: Session[]): Session[] {
  return [...list].sort((a, b) => (Date.parse(b.updatedAt) || 0) - (Date.parse(a.updatedAt) || 0))
}

export class SessionsStore {
  items = $state<Session[]>([])
  loaded = $state(false)
  error = $state('')
  /** Sessions with a run going on (the Chats list marks them). */
  running = $state<Record<string, boolean>>({})
  /** Loads overlap (a run start and a rename); only the newest answer is kept. */
  private generation = 0
  /** Runs that started before this window: asked for once, after the first load; events do the rest. */
  private askedActive = false
  /** Sessions an event spoke for since; a slower answer about them is out of date. */
  private heard = new Set<string>()

  async load() {
    const mine = ++this.generation
    try {
      const list = newestFirst((await chat.sessions()) ?? [])
      if (mine !== this.generation) return
      this.items = list
      this.error = ''
      if (!this.askedActive) {
        this.askedActive = true
        void this.askActive(list)
      }
    } catch (err) {
      if (mine === this.generation) this.error = messageOf(err)
    } finally {
      if (mine === this.generation) this.loaded = true
    }
  }

  /** Shows the title at once; puts the old one back if the backend refuses. */
  async rename(id: string, title: string): Promise<boolean> {
    title = title.trim()
    const before = this.items.find((s) => s.id === id)
    if (!before || !title || title === before.title) return false
    this.items = this.items.map((s) => (s.id === id ? { ...s, title } : s))
    try {
      await chat.renameSession(id, title)
      return true
    } catch (err) {
      this.items = this.items.map((s) => (s.id === id ? { ...s, title: before.title } : s))
      notices.push('error', 'app', `Could not rename the chat: ${messageOf(err)}`)
      return false
    } finally {
      await this.load()
    }
  }

  /** Deletes a session (the backend refuses while it runs); the shown one gives way to a new chat. */
  async remove(id: string): Promise<boolean> {
    try {
      await chat.deleteSession(id)
    } catch (err) {
      notices.push('error', 'app', `Could not delete the chat: ${messageOf(err)}`)
      return false
    }
    this.items = this.items.filter((s) => s.id !== id)
    chatStore.forget(id)
    await this.load()
    return true
  }

  private async askActive(list: Session[]) {
    await Promise.all(
      list.map(async (s) => {
        try {
          if ((await chat.activeRun(s.id)) && !this.heard.has(s.id)) this.running[s.id] = true
        } catch {
          // Only a marker: the list works without it.
        }
      }),
    )
  }

  /** Reloads whenever a run starts or finishes, and marks running sessions. Returns the unsubscribe function. */
  start(): () => void {
    // Events missed while nobody listened: the next load asks again.
    this.askedActive = false
    this.heard.clear()
    return onEvent((e) => {
      if (e.type !== EventType.RunStarted && e.type !== EventType.RunFinished) return
      if (e.sessionId) {
        this.heard.add(e.sessionId)
        if (e.type === EventType.RunStarted) this.running[e.sessionId] = true
        else delete this.running[e.sessionId]
      }
      void this.load()
    })
  }
}

export const sessionsStore = new SessionsStore()
