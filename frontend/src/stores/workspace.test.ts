import { beforeEach, describe, expect, it, vi } from 'vitest'
import { workspaces } from '../lib/api'
import { BackendError } from '../lib/bridge'
import { EventType } from '../lib/events'
import { notices } from './notices.svelte'
import { WorkspaceStore } from './workspace.svelte'

vi.mock('../lib/api', () => ({
  workspaces: {
    open: vi.fn(),
    openDropped: vi.fn(),
    chooseFolder: vi.fn(),
    current: vi.fn(),
    close: vi.fn(),
    listDir: vi.fn(async () => ({ entries: [], truncated: 0 })),
  },
}))
const api = vi.mocked(workspaces)
const proj = { path: '/home/ada/proj', name: 'proj' }

beforeEach(() => {
  vi.clearAllMocks()
  notices.items = []
})

describe('WorkspaceStore', () => {
  it('opens a folder and lists its root', async () => {
    api.open.mockResolvedValue(proj)
    const store = new WorkspaceStore()
    expect(await store.open('/home/ada/proj')).toBe(true)
    expect(store.current).toEqual(proj)
    expect(api.listDir).toHaveBeenCalledWith('')
    expect(store.tree?.isExpanded('')).toBe(true)
  })

  it('shows why a drop was refused and stays on the welcome screen', async () => {
    api.openDropped.mockRejectedValue(new BackendError('Drop a folder, not a file: notes.txt'))
    const store = new WorkspaceStore()
    expect(await store.openDropped(['/home/ada/notes.txt'])).toBe(false)
    expect(store.current).toBeNull()
    expect(notices.in('open').map((n) => n.text)).toEqual(['Drop a folder, not a file: notes.txt'])
    expect(store.opening).toBe(false)
  })

  it('clears an old open error when the next open succeeds', async () => {
    notices.push('error', 'open', 'That folder no longer exists')
    api.open.mockResolvedValue(proj)
    await new WorkspaceStore().open('/home/ada/proj')
    expect(notices.in('open')).toEqual([])
  })

  it('does nothing when the folder dialog is cancelled', async () => {
    api.chooseFolder.mockResolvedValue('')
    const store = new WorkspaceStore()
    await store.choose()
    expect(api.open).not.toHaveBeenCalled()
    expect(store.current).toBeNull()
  })

  it('opens the folder picked in the dialog', async () => {
    api.chooseFolder.mockResolvedValue('/home/ada/proj')
    api.open.mockResolvedValue(proj)
    const store = new WorkspaceStore()
    await store.choose()
    expect(api.open).toHaveBeenCalledWith('/home/ada/proj')
    expect(store.current?.name).toBe('proj')
  })

  it('restores the open workspace and is ready afterwards', async () => {
    api.current.mockResolvedValue(proj)
    const store = new WorkspaceStore()
    expect(store.ready).toBe(false)
    await store.restore()
    expect(store.ready).toBe(true)
    expect(store.current).toEqual(proj)
  })

  it('is ready with no workspace when none is open', async () => {
    api.current.mockResolvedValue(null)
    const store = new WorkspaceStore()
    await store.restore()
    expect(store.ready).toBe(true)
    expect(store.current).toBeNull()
    expect(store.tree).toBeNull()
  })

  it('boots straight to the welcome screen when the page says no project is open', () => {
    const store = new WorkspaceStore()
    void store.boot('none')
    // Ready before any call answers: the first frame is the welcome screen, not a blank one.
    expect(store.ready).toBe(true)
    expect(api.current).not.toHaveBeenCalled()
  })

  it('asks which project is open when the page says one is, or says nothing', async () => {
    api.current.mockResolvedValue(proj)
    for (const mark of ['open', undefined]) {
      api.current.mockClear()
      const store = new WorkspaceStore()
      const booting = store.boot(mark)
      expect(store.ready).toBe(false)
      await booting
      expect(api.current).toHaveBeenCalledOnce()
      expect(store.ready).toBe(true)
      expect(store.current).toEqual(proj)
    }
  })

  it('returns to the welcome screen on close', async () => {
    api.open.mockResolvedValue(proj)
    api.close.mockResolvedValue(undefined)
    const store = new WorkspaceStore()
    await store.open('/home/ada/proj')
    await store.close()
    expect(api.close).toHaveBeenCalled()
    expect(store.current).toBeNull()
    expect(store.tree).toBeNull()
  })

  it('reloads changed folders for the open project and shows the watch note once', async () => {
    api.open.mockResolvedValue(proj)
    const store = new WorkspaceStore()
    await store.open('/home/ada/proj')
    api.listDir.mockClear()
    const changed = (root: string, note = '') => ({
      id: 'e', seq: 1, sessionId: '', runId: '', time: '', type: EventType.WorkspaceChanged,
      payload: { root, dirs: [''], paths: ['a.txt'], more: false, overflow: false, note },
    })

    store.handleEvent(changed('/home/ada/other'))
    expect(api.listDir).not.toHaveBeenCalled()

    const note = 'Watching 3 of 6 folders: the system\'s inotify limit is reached'
    store.handleEvent(changed(proj.path, note))
    store.handleEvent(changed(proj.path, note))
    await vi.waitFor(() => expect(api.listDir).toHaveBeenCalledWith(''))
    expect(notices.in('app').map((n) => n.text)).toEqual([note])
    notices.items = []
    store.handleEvent(changed(proj.path, note))
    expect(notices.items, 'a dismissed note stays dismissed').toEqual([])
  })
})
