import { beforeEach, describe, expect, it, vi } from 'vitest'
import { ollama } from '../lib/api'
import { ToolCheckStore } from './toolchecks.svelte'

vi.mock('../lib/api', () => ({ ollama: { checkTools: vi.fn() } }))

beforeEach(() => vi.clearAllMocks())

const check = { model: 'qwen3:4b', digest: 'd', declared: true, verdict: 'native' as const, checkedAt: '' }

describe('ToolCheckStore', () => {
  it('asks once per model, shows the check while it runs, and asks again after a failure', async () => {
    const s = new ToolCheckStore()
    let answer!: (c: typeof check) => void
    vi.mocked(ollama.checkTools).mockReturnValueOnce(new Promise((r) => (answer = r)))
    const first = s.check('qwen3:4b')
    expect(s.byModel['qwen3:4b']).toEqual({ state: 'checking' })
    await s.check('qwen3:4b')
    answer(check)
    await first
    expect(s.byModel['qwen3:4b']).toEqual({ state: 'done', check })
    expect(ollama.checkTools).toHaveBeenCalledTimes(1)

    vi.mocked(ollama.checkTools).mockRejectedValueOnce(new Error('Ollama is not reachable'))
    await s.check('llama3.2:3b')
    expect(s.byModel['llama3.2:3b']).toEqual({ state: 'failed', error: 'Ollama is not reachable' })
    vi.mocked(ollama.checkTools).mockResolvedValueOnce({ ...check, model: 'llama3.2:3b' })
    await s.check('llama3.2:3b')
    expect(s.byModel['llama3.2:3b']).toMatchObject({ state: 'done' })
  })
})
