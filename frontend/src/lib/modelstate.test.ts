import { describe, expect, it } from 'vitest'
import { promptCutText, shortTokens, tokens, toolCheckLabel, usageShare, usageTitle, waitingText } from './modelstate'

const usage = { iteration: 1, model: 'qwen3:8b', promptTokens: 6000, answerTokens: 213, window: 32768, loadMs: 0, promptMs: 900, answerMs: 4000 }

describe('waitingText', () => {
  it('names the wait in line, the model loading, then the prompt being read, then nothing', () => {
    expect(waitingText({ phase: 'queued', model: 'qwen3:8b' })).toBe('Waiting for the model: another task is using it…')
    expect(waitingText({ phase: 'loading', model: 'qwen3:8b' })).toBe('Loading qwen3:8b…')
    expect(waitingText({ phase: 'prefill', model: 'qwen3:8b', promptTokens: 6200 })).toBe('Reading the prompt (6,200 tokens)…')
    expect(waitingText({ phase: 'prefill', model: 'qwen3:8b' })).toBe('Reading the prompt…')
    expect(waitingText({ phase: '', model: 'qwen3:8b' })).toBe('')
    expect(waitingText(null)).toBe('')
  })
})

describe('counts', () => {
  it('writes counts in full and short', () => {
    expect(tokens(16384)).toBe('16,384')
    expect([512, 1000, 1024, 6213, 32768, 131072].map(shortTokens)).toEqual(['512', '1000', '1k', '6.1k', '32k', '128k'])
  })

  it('says how full the window is from the real counts', () => {
    expect(usageShare(usage)).toBeCloseTo(6213 / 32768)
    expect(usageTitle(usage)).toBe(
      'Context window: 6,213 of 32,768 tokens (19%) after the last answer, as Ollama counted them: the prompt 6,000, the answer 213.',
    )
  })
})

describe('promptCutText', () => {
  const cut = { iteration: 3, promptTokens: 8192, expected: 7000, window: 8192, retrying: true, compacted: true }
  it('says what happened and what the run does about it', () => {
    expect(promptCutText(cut)).toContain('Ollama read only 8,192 tokens of it')
    expect(promptCutText(cut)).toContain('asked again with the older messages summarised.')
    expect(promptCutText({ ...cut, leaner: true })).toContain('asked again with a shorter system prompt and the older messages summarised.')
    expect(promptCutText({ ...cut, retrying: false })).toContain('so the run stopped')
  })
})

describe('toolCheckLabel', () => {
  const check = { model: 'm', digest: 'd', declared: true, verdict: 'native' as const, checkedAt: '' }
  it('tells native, text and unchecked apart', () => {
    expect(toolCheckLabel({ state: 'checking' })).toMatchObject({ label: 'Checking tools…', tone: 'busy' })
    expect(toolCheckLabel({ state: 'done', check })).toMatchObject({ label: 'Native tools', tone: 'ok' })
    const text = toolCheckLabel({ state: 'done', check: { ...check, verdict: 'text', dialect: 'mistral' } })
    expect(text).toMatchObject({ label: 'Tools as text', tone: 'warn' })
    expect(text.title).toContain('Mistral [TOOL_CALLS]')
    expect(toolCheckLabel({ state: 'done', check: { ...check, verdict: 'unclear' } })).toMatchObject({ label: 'Native tools', tone: 'neutral' })
    expect(toolCheckLabel({ state: 'done', check: { ...check, declared: false, verdict: 'unsupported' } })).toMatchObject({ label: 'Tools as text', tone: 'neutral' })
    expect(toolCheckLabel({ state: 'failed', error: 'Ollama is not reachable' })).toMatchObject({ title: 'Ollama is not reachable' })
  })
})
