import { beforeEach, describe, expect, it, vi } from 'vitest'
import { settings } from '../lib/api'
import { BackendError } from '../lib/bridge'
import type { SettingsView } from '../lib/types'
import { notices } from './notices.svelte'
import { ollamaStore } from './ollama.svelte'
import { SettingsStore } from './settings.svelte'

vi.mock('../lib/api', () => ({
  settings: { get: vi.fn(), save: vi.fn() },
  ollama: { status: vi.fn(), refresh: vi.fn() },
}))
const defaults = { ollamaHost: '', defaultModel: '', permissionMode: 'default', autoApproveCommands: false, numCtxCap: 0, maxIterations: 0 } as const
const view = (over: Partial<SettingsView> = {}): SettingsView => ({
  settings: { ...defaults },
  path: '/home/ada/.config/gantry/settings.json',
  problem: '',
  effectiveHost: 'http://127.0.0.1:11434',
  envHost: '',
  ...over,
})

beforeEach(() => {
  vi.clearAllMocks()
  notices.items = []
})

describe('SettingsStore', () => {
  it('turns a start-up problem into an app banner', async () => {
    vi.mocked(settings.get).mockResolvedValue(view({ problem: 'settings.json was not valid JSON; using defaults' }))
    await new SettingsStore().load()
    expect(notices.in('app')).toMatchObject([{ kind: 'warning', text: 'settings.json was not valid JSON; using defaults' }])
  })

  it('shows no banner when the file was fine', async () => {
    vi.mocked(settings.get).mockResolvedValue(view())
    const store = new SettingsStore()
    await store.load()
    expect(store.view?.effectiveHost).toBe('http://127.0.0.1:11434')
    expect(notices.items).toEqual([])
  })

  it('keeps the settings this screen does not show when it saves', async () => {
    const loaded = { ...defaults, defaultModel: 'qwen3:4b', permissionMode: 'full', numCtxCap: 8192 } as const
    vi.mocked(settings.get).mockResolvedValue(view({ settings: loaded }))
    vi.mocked(settings.save).mockResolvedValue(view())
    const store = new SettingsStore()
    await store.load()
    await store.save({ ollamaHost: 'gpu:11434' })
    expect(settings.save).toHaveBeenCalledWith({ ...loaded, ollamaHost: 'gpu:11434' })
  })

  it('re-checks Ollama after a successful save', async () => {
    const refresh = vi.spyOn(ollamaStore, 'refresh').mockResolvedValue()
    vi.mocked(settings.save).mockResolvedValue(view({ settings: { ...defaults, ollamaHost: 'gpu:11434' } }))
    const store = new SettingsStore()
    await store.save({ ollamaHost: 'gpu:11434', defaultModel: '' })
    expect(store.view?.settings.ollamaHost).toBe('gpu:11434')
    expect(refresh).toHaveBeenCalledTimes(1)
  })

  it('rejects with the validation message and does not re-check', async () => {
    const refresh = vi.spyOn(ollamaStore, 'refresh').mockResolvedValue()
    vi.mocked(settings.save).mockRejectedValue(new BackendError('Ollama host "a b" must not contain spaces'))
    const store = new SettingsStore()
    await expect(store.save({ ollamaHost: 'a b', defaultModel: '' })).rejects.toThrow('must not contain spaces')
    expect(refresh).not.toHaveBeenCalled()
  })
})
