import { beforeEach, describe, expect, it, vi } from 'vitest'
import { ollama } from '../lib/api'
import { BackendError, onEvent } from '../lib/bridge'
import type { GantryEvent } from '../lib/events'
import type { OllamaStatus } from '../lib/types'
import { OllamaStore, summarize } from './ollama.svelte'

vi.mock('../lib/api', () => ({ ollama: { status: vi.fn(), refresh: vi.fn() } }))
vi.mock('../lib/bridge', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../lib/bridge')>()),
  onEvent: vi.fn(() => () => {}),
}))

const status = (over: Partial<OllamaStatus>): OllamaStatus => ({
  host: 'http://127.0.0.1:11434',
  reachable: false,
  version: '',
  models: [],
  error: '',
  hint: '',
  checkedAt: '2025-06-15T12:00:00Z',
  ...over,
})
const event = (payload: OllamaStatus, type = 'ollamaStatus'): GantryEvent =>
  ({ id: 'e1', seq: 1, sessionId: '', runId: '', type, payload, time: '' }) as GantryEvent

beforeEach(() => vi.clearAllMocks())

describe('OllamaStore', () => {
  it('is checking until a status with checkedAt arrives', () => {
    const store = new OllamaStore()
    expect(store.state).toBe('checking')
    store.apply(status({ checkedAt: '' }))
    expect(store.state).toBe('checking')
    store.apply(status({ reachable: true, version: '0.17.4' }))
    expect(store.state).toBe('reachable')
  })

  it('applies ollamaStatus events and ignores other events', () => {
    const store = new OllamaStore()
    store.handleEvent(event(status({ error: 'connection refused' })))
    expect(store.state).toBe('unreachable')
    expect(store.status?.error).toBe('connection refused')
    store.handleEvent(event(status({ reachable: true, checkedAt: '2025-06-15T12:00:05Z' }), 'recentChanged'))
    expect(store.state).toBe('unreachable')
    store.handleEvent(event(status({ reachable: true, version: '0.17.4', checkedAt: '2025-06-15T12:00:05Z' })))
    expect(store.state).toBe('reachable')
    expect(store.status?.version).toBe('0.17.4')
  })

  it('keeps a newer status over an older one that arrives late', () => {
    const store = new OllamaStore()
    store.apply(status({ reachable: true, checkedAt: '2025-06-15T12:00:10Z' }))
    store.apply(status({ reachable: false, checkedAt: '2025-06-15T12:00:05Z' }))
    expect(store.state).toBe('reachable')
  })

  it('start shows the last known status, then refreshes, and listens for events', async () => {
    vi.mocked(ollama.status).mockResolvedValue(status({ checkedAt: '' }))
    vi.mocked(ollama.refresh).mockResolvedValue(status({ reachable: true, version: '0.17.4' }))
    const store = new OllamaStore()
    store.start()
    expect(onEvent).toHaveBeenCalledTimes(1)
    await vi.waitFor(() => expect(store.state).toBe('reachable'))
    expect(ollama.status).toHaveBeenCalledBefore(vi.mocked(ollama.refresh))
    expect(store.checking).toBe(false)

    const handler = vi.mocked(onEvent).mock.calls[0][0]
    handler(event(status({ error: 'connection refused', checkedAt: '2025-06-15T12:01:00Z' })))
    expect(store.state).toBe('unreachable')
  })

  it('start does not ask the server again when the backend has checked it already', async () => {
    vi.mocked(ollama.status).mockResolvedValue(status({ reachable: true, version: '0.17.4', checkedAt: '2025-06-15T12:00:00Z' }))
    const store = new OllamaStore()
    store.start()
    await vi.waitFor(() => expect(store.state).toBe('reachable'))
    await Promise.resolve()
    expect(ollama.refresh).not.toHaveBeenCalled()
  })

  it('reports a failing backend call without losing the last status', async () => {
    const store = new OllamaStore()
    store.apply(status({ reachable: true }))
    vi.mocked(ollama.refresh).mockRejectedValue(new BackendError('OllamaService.Refresh is not bound'))
    const pending = store.refresh()
    expect(store.checking).toBe(true)
    await pending
    expect(store.checking).toBe(false)
    expect(store.failure).toBe('OllamaService.Refresh is not bound')
    expect(store.state).toBe('reachable')
  })
})

describe('summarize', () => {
  it.each([
    ['reachable', { reachable: true, version: '0.17.4', models: [1, 2, 3] }, 'Ollama 0.17.4 · 3 models'],
    ['reachable', { reachable: true, version: '0.17.4', models: [1] }, 'Ollama 0.17.4 · 1 model'],
    ['reachable', { reachable: true, version: '0.17.4', models: [] }, 'Ollama 0.17.4 · no models'],
    ['reachable', { reachable: true, version: '', models: [1, 2] }, 'Ollama · 2 models'],
    ['unreachable', { error: 'connection refused' }, 'Ollama unreachable'],
    ['checking', {}, 'Checking Ollama…'],
  ] as const)('%s %j reads %s', (state, over, want) => {
    expect(summarize(state, status(over as unknown as Partial<OllamaStatus>))).toBe(want)
  })

  it('says the status is unknown when the backend cannot be asked at all', async () => {
    vi.mocked(ollama.status).mockRejectedValue(new BackendError('OllamaService.Status is not bound'))
    vi.mocked(ollama.refresh).mockRejectedValue(new BackendError('OllamaService.Refresh is not bound'))
    const store = new OllamaStore()
    store.start()
    await vi.waitFor(() => expect(store.checking).toBe(false))
    await vi.waitFor(() => expect(store.summary).toBe('Ollama status unknown'))
  })
})
