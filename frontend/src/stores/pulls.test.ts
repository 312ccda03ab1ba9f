import { beforeEach, describe, expect, it, vi } from 'vitest'
import { ollama } from '../lib/api'
import { BackendError } from '../lib/bridge'
import { EventType, type GantryEvent } from '../lib/events'
import type { PullState } from '../lib/types'
import { ollamaStore } from './ollama.svelte'
import { PullStore } from './pulls.svelte'

vi.mock('../lib/api', () => ({
  ollama: { pull: vi.fn(), cancelPull: vi.fn(), pulls: vi.fn(), status: vi.fn(), refresh: vi.fn() },
}))

const state = (over: Partial<PullState> = {}): PullState => ({
  model: 'qwen3:4b',
  state: 'running',
  status: 'pulling manifest',
  completed: 0,
  total: 0,
  percent: 0,
  error: '',
  ...over,
})
const event = (p: PullState) => ({ type: EventType.ModelPull, payload: p }) as GantryEvent

beforeEach(() => {
  vi.clearAllMocks()
  vi.spyOn(ollamaStore, 'refresh').mockResolvedValue()
})

describe('PullStore', () => {
  it('follows a download from its events to the end and re-reads the models once', () => {
    const store = new PullStore()
    const done = vi.fn()
    store.onDone = done
    store.handleEvent(event(state({ status: 'pulling 3f2a', completed: 50, total: 100, percent: 50 })))
    expect(store.running).toHaveLength(1)
    expect(store.list[0].percent).toBe(50)
    store.handleEvent(event(state({ state: 'done', status: 'success', completed: 100, total: 100, percent: 100 })))
    store.handleEvent(event(state({ state: 'done', status: 'success', percent: 100 })))
    expect(store.running).toHaveLength(0)
    expect(store.list[0].state).toBe('done')
    expect(done).toHaveBeenCalledTimes(1)
    expect(ollamaStore.refresh).toHaveBeenCalledTimes(1)
  })

  it('ignores other events and a late progress line after the end', () => {
    const store = new PullStore()
    store.handleEvent({ type: EventType.OllamaStatus, payload: {} } as GantryEvent)
    expect(store.list).toEqual([])
    store.handleEvent(event(state({ state: 'cancelled', percent: 40 })))
    store.handleEvent(event(state({ percent: 30 })))
    expect(store.list[0].state).toBe('cancelled')
  })

  it('keeps one line per model whatever the case of the name', () => {
    const store = new PullStore()
    store.apply(state({ model: 'Qwen3:4b' }))
    store.apply(state({ model: 'qwen3:4b', percent: 10 }))
    expect(store.list).toHaveLength(1)
    store.dismiss('QWEN3:4b')
    expect(store.list).toEqual([])
  })

  it('shows why a download could not start', async () => {
    const store = new PullStore()
    vi.mocked(ollama.pull).mockRejectedValueOnce(new BackendError('a model name has no spaces'))
    expect(await store.pull('two words')).toBe(false)
    expect(store.error).toBe('a model name has no spaces')
    vi.mocked(ollama.pull).mockResolvedValueOnce(state())
    expect(await store.pull('qwen3:4b')).toBe(true)
    expect(store.error).toBe('')
    expect(store.running).toHaveLength(1)
  })

  it('shows a download started again after it failed, was cancelled or finished', () => {
    const store = new PullStore()
    for (const end of ['failed', 'cancelled', 'done'] as const) {
      store.handleEvent(event(state({ status: 'pulling 3f2a', percent: 80 })))
      store.handleEvent(event(state({ state: end, percent: end === 'done' ? 100 : 80, error: end === 'failed' ? 'net' : '' })))
      // Another window (or this one) starts it again: the backend's first event says "starting".
      store.handleEvent(event(state({ status: 'starting' })))
      expect(store.list[0].state, end).toBe('running')
      store.handleEvent(event(state({ status: 'pulling 3f2a', percent: 50 })))
      expect(store.running, end).toHaveLength(1)
      expect(store.list[0].percent).toBe(50)
    }
  })

  it('starts a new line when this window pulls again, and a late answer does not undo the end', async () => {
    const store = new PullStore()
    store.handleEvent(event(state({ state: 'failed', percent: 80, error: 'net' })))
    let answer!: (p: PullState) => void
    vi.mocked(ollama.pull).mockReturnValueOnce(new Promise((r) => (answer = r)))
    const pulling = store.pull('qwen3:4b')
    expect(store.list).toEqual([]) // the old failure is gone at once
    store.handleEvent(event(state({ status: 'starting' })))
    store.handleEvent(event(state({ status: 'pulling 3f2a', percent: 20 })))
    store.handleEvent(event(state({ state: 'done', status: 'success', percent: 100 })))
    answer(state({ status: 'starting' })) // the RPC answer arrives after the events
    expect(await pulling).toBe(true)
    expect(store.list[0].state).toBe('done')
  })

  it('cancels through the backend', async () => {
    vi.mocked(ollama.cancelPull).mockResolvedValue()
    await new PullStore().cancel('qwen3:4b')
    expect(ollama.cancelPull).toHaveBeenCalledWith('qwen3:4b')
  })
})
