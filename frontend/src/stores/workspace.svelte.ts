// The project folder open in this window. Opening can fail in ways the user must read (a file was
// dropped, several items, a missing folder, a folder too broad such as $HOME): those become notices.
import { workspaces } from '../lib/api'
import { onEvent } from '../lib/bridge'
import { EventType, type GantryEvent } from '../lib/events'
import type { WorkspaceInfo } from '../lib/types'
import { FileTree, rootPath } from './filetree.svelte'
import { dropEarlyReplay, fetchShownChat } from './sessionReplay'
import { messageOf, notices } from './notices.svelte'
import { viewerStore } from './viewer.svelte'

export class WorkspaceStore {
  current = $state<WorkspaceInfo | null>(null)
  tree = $state<FileTree | null>(null)
  /** An open is in flight (buttons disable, the drop zone shows progress). */
  opening = $state(false)
  /** The first current() answered; until then neither screen is shown, so nothing flashes. */
  ready = $state(false)
  /** The watcher's note (not every folder is watched) was shown for this project already. */
  #noteShown = false
  /** A Close still on its way to the backend; an open waits for it, or the backend could apply
   * the Close after the open and leave the new project closed. */
  #closing: Promise<unknown> | null = null

  #enter(info: WorkspaceInfo) {
    this.current = info
    this.#noteShown = false
    this.tree = new FileTree()
    void this.tree.expand(rootPath)
  }

  async #open(request: () => Promise<WorkspaceInfo>): Promise<boolean> {
    this.opening = true
    notices.clear('open')
    await this.#closing
    try {
      this.#enter(await request())
      return true
    } catch (err) {
      notices.push('error', 'open', messageOf(err))
      return false
    } finally {
      this.opening = false
    }
  }

  /**
   * The first screen. The backend marks index.html with whether a project is open
   * (data-project, app/startpage.go): with none, the welcome screen shows at once, without
   * waiting for a call; otherwise (or without the mark, as under `vite dev`) it asks which one.
   */
  boot(project: string | undefined = globalThis.document?.documentElement.dataset.project): Promise<void> {
    if (project === 'none') {
      this.ready = true
      return Promise.resolve()
    }
    return this.restore()
  }

  /** Picks up a workspace the backend already has open (a reloaded page in browser mode). */
  async restore() {
    try {
      const info = await workspaces.current()
      if (info) {
        this.#enter(info)
        fetchShownChat(info.path)
      }
    } catch (err) {
      notices.push('error', 'app', `Could not ask which project is open: ${messageOf(err)}`)
    } finally {
      this.ready = true
    }
  }

  open(path: string) {
    return this.#open(() => workspaces.open(path))
  }

  openDropped(paths: string[]) {
    return this.#open(() => workspaces.openDropped(paths))
  }

  /** Desktop only: the native folder dialog. Cancelling it changes nothing. */
  async choose() {
    let path: string
    try {
      path = await workspaces.chooseFolder()
    } catch (err) {
      notices.push('error', 'open', messageOf(err))
      return
    }
    if (path) await this.open(path)
  }

  /** Files changed on disk: the tree lists the affected folders again. Events about a project
   * that is no longer open are dropped. */
  handleEvent(e: GantryEvent) {
    if (e.type !== EventType.WorkspaceChanged) return
    const change = e.payload
    if (!this.current || change.root !== this.current.path) return
    void this.tree?.applyChange(change)
    void viewerStore.changedOnDisk(change)
    if (change.note && !this.#noteShown) {
      this.#noteShown = true
      notices.push('warning', 'app', change.note)
    }
  }

  /** Follows file changes on disk. Returns the unsubscribe function. */
  start(): () => void {
    return onEvent((e) => this.handleEvent(e))
  }

  async close() {
    const closing = this.current
    this.#closing = workspaces.close()
    try {
      await this.#closing
    } catch (err) {
      notices.push('error', 'app', `Could not close the project: ${messageOf(err)}`)
      return
    } finally {
      this.#closing = null
    }
    // Another project may have opened while the Close was on its way; leave that one open.
    if (this.current !== closing) return
    this.current = null
    this.tree = null
    dropEarlyReplay()
    notices.clear('open')
  }
}

export const workspaceStore = new WorkspaceStore()
