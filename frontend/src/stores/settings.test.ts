import { beforeEach, describe, expect, it, vi } from 'vitest'
import { settings } from '../lib/api'
import { BackendError } from '../lib/bridge'
import type { Settings, SettingsView } from '../lib/types'
import { notices } from './notices.svelte'
import { ollamaStore } from './ollama.svelte'
import { SettingsStore, applyTheme } from './settings.svelte'

vi.mock('../lib/api', () => ({
  settings: { get: vi.fn(), save: vi.fn() },
  ollama: { status: vi.fn(), refresh: vi.fn() },
}))
const defaults: Settings = {
  ollamaHost: '',
  defaultModel: '',
  permissionMode: 'default',
  autoApproveCommands: false,
  numCtxCap: 0,
  maxIterations: 0,
  modelRequests: 0,
  autoApproveSensitiveEdits: false,
  fileRules: null,
  disabledTools: [],
  gitBranch: false,
  terminalTimeout: 0,
  sandbox: false,
  sandboxNetwork: false,
  theme: 'system',
}
const view = (over: Partial<SettingsView> = {}): SettingsView => ({
  settings: { ...defaults },
  path: '/home/ada/.config/gantry/settings.json',
  problem: '',
  effectiveHost: 'http://127.0.0.1:11434',
  envHost: '',
  defaultFileRules: [{ pattern: '.env', action: 'ask' }],
  defaultTerminalTimeout: 30,
  sandbox: { available: true },
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
    const loaded: Settings = { ...defaults, defaultModel: 'qwen3:4b', permissionMode: 'full', numCtxCap: 8192 }
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

describe('saving in a row', () => {
  it('applies quick changes one after the other so none is lost', async () => {
    vi.spyOn(ollamaStore, 'refresh').mockResolvedValue()
    const backend = { ...defaults }
    vi.mocked(settings.save).mockImplementation(async (next) => {
      await new Promise((r) => setTimeout(r, 5))
      Object.assign(backend, next)
      return view({ settings: { ...backend } })
    })
    const store = new SettingsStore()
    store.view = view()
    await Promise.all([store.save({ permissionMode: 'full' }), store.save({ gitBranch: true })])
    expect(backend).toMatchObject({ permissionMode: 'full', gitBranch: true })
    expect(store.view?.settings).toMatchObject({ permissionMode: 'full', gitBranch: true })
  })

  it('goes on after a refused change', async () => {
    vi.spyOn(ollamaStore, 'refresh').mockResolvedValue()
    const store = new SettingsStore()
    vi.mocked(settings.save).mockRejectedValueOnce(new BackendError('no'))
    vi.mocked(settings.save).mockResolvedValueOnce(view({ settings: { ...defaults, gitBranch: true } }))
    const [a, b] = await Promise.allSettled([store.save({ terminalTimeout: -1 }), store.save({ gitBranch: true })])
    expect(a.status).toBe('rejected')
    expect(b.status).toBe('fulfilled')
    expect(store.view?.settings.gitBranch).toBe(true)
  })
})

describe('saveField', () => {
  it('keeps a refusal under the field and clears it once a later change saves', async () => {
    vi.spyOn(ollamaStore, 'refresh').mockResolvedValue()
    const store = new SettingsStore()
    vi.mocked(settings.save).mockRejectedValueOnce(new BackendError('command timeout 900 must be between 1 and 600 seconds'))
    expect(await store.saveField('terminalTimeout', { terminalTimeout: 900 })).toBe(false)
    expect(store.fieldErrors).toEqual({ terminalTimeout: 'command timeout 900 must be between 1 and 600 seconds' })
    expect(store.savedField).toBe('')

    vi.mocked(settings.save).mockResolvedValueOnce(view({ settings: { ...defaults, terminalTimeout: 90 } }))
    expect(await store.saveField('terminalTimeout', { terminalTimeout: 90 })).toBe(true)
    expect(store.fieldErrors).toEqual({})
    expect(store.savedField).toBe('terminalTimeout')
    expect(store.view?.settings.terminalTimeout).toBe(90)
  })
})

describe('theme', () => {
  it('pins light or dark on <html> and follows the system otherwise', async () => {
    const root = { dataset: {} as DOMStringMap }
    applyTheme('dark', root)
    expect(root.dataset.theme).toBe('dark')
    applyTheme('light', root)
    expect(root.dataset.theme).toBe('light')
    // "system" follows the OS, and keeps following it.
    const listeners: (() => void)[] = []
    const os = { matches: true, addEventListener: (_: string, l: () => void) => void listeners.push(l), removeEventListener: vi.fn() }
    applyTheme('system', root, () => os)
    expect(root.dataset.theme).toBe('dark')
    os.matches = false
    listeners.forEach((l) => l())
    expect(root.dataset.theme).toBe('light')
    applyTheme('dark', root)
    expect(os.removeEventListener).toHaveBeenCalled()
    expect(root.dataset.theme).toBe('dark')
  })

  it('applies the saved theme to the document', async () => {
    const html = { dataset: {} as DOMStringMap }
    vi.stubGlobal('document', { documentElement: html })
    vi.stubGlobal('matchMedia', () => ({ matches: false, addEventListener: () => {}, removeEventListener: () => {} }))
    try {
      vi.spyOn(ollamaStore, 'refresh').mockResolvedValue()
      vi.mocked(settings.save).mockResolvedValue(view({ settings: { ...defaults, theme: 'dark' } }))
      await new SettingsStore().save({ theme: 'dark' })
      expect(html.dataset.theme).toBe('dark')
      vi.mocked(settings.get).mockResolvedValue(view())
      await new SettingsStore().load()
      expect(html.dataset.theme).toBe('light') // "system", and the OS is light
    } finally {
      vi.unstubAllGlobals()
    }
  })
})
