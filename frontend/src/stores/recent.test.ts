import { beforeEach, describe, expect, it, vi } from 'vitest'
import { workspaces } from '../lib/api'
import { BackendError, onEvent } from '../lib/bridge'
import type { GantryEvent } from '../lib/events'
import { notices } from './notices.svelte'
import { RecentStore } from './recent.svelte'

vi.mock('../lib/api', () => ({ workspaces: { recent: vi.fn(), remove: vi.fn() } }))
vi.mock('../lib/bridge', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../lib/bridge')>()),
  onEvent: vi.fn(() => () => {}),
}))
const api = vi.mocked(workspaces)
const project = (id: number, openedAt: string) => ({ id, path: `/p/${id}`, name: `p${id}`, openedAt, missing: false })

beforeEach(() => {
  vi.clearAllMocks()
  notices.items = []
})

describe('RecentStore', () => {
  it('lists projects newest first', async () => {
    api.recent.mockResolvedValue([
      project(1, '2025-06-01T10:00:00Z'),
      project(2, '2025-06-03T10:00:00Z'),
      project(3, '2025-06-02T10:00:00Z'),
    ])
    const store = new RecentStore()
    await store.load()
    expect(store.items.map((p) => p.id)).toEqual([2, 3, 1])
    expect(store.loaded).toBe(true)
  })

  it('reloads when the backend says the list changed', async () => {
    api.recent.mockResolvedValue([])
    const store = new RecentStore()
    store.start()
    await store.load()
    api.recent.mockResolvedValue([project(7, '2025-06-01T10:00:00Z')])
    const handler = vi.mocked(onEvent).mock.calls[0][0]
    handler({ type: 'recentChanged', payload: {} } as GantryEvent)
    await vi.waitFor(() => expect(store.items.map((p) => p.id)).toEqual([7]))
    expect(api.recent).toHaveBeenCalledTimes(2)
  })

  it('puts a row back and says so when removing fails', async () => {
    api.recent.mockResolvedValue([project(1, '2025-06-01T10:00:00Z'), project(2, '2025-06-02T10:00:00Z')])
    api.remove.mockRejectedValue(new BackendError('database is locked'))
    const store = new RecentStore()
    await store.load()
    const pending = store.remove(1)
    expect(store.items.map((p) => p.id)).toEqual([2])
    await pending
    expect(store.items.map((p) => p.id)).toEqual([2, 1])
    expect(notices.in('app')[0].text).toContain('database is locked')
  })
})
