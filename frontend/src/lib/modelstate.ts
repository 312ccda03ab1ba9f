// Words for what the model is doing and how it calls tools. Pure, so they can be unit-tested.
import type { ContextUsagePayload, ModelWaitingPayload, PromptCutPayload } from './events'
import { dialectName } from './format'
import type { ToolCheck } from './types'

/** 6200 → "6,200", as the backend's messages write counts. */
export function tokens(n: number): string {
  return Math.round(n).toLocaleString('en-US')
}

/**
 * 6213 → "6.1k", 32768 → "32k", 512 → "512": a count short enough for the meter, in the
 * binary thousands context windows are named in (a 32k window is 32,768 tokens).
 */
export function shortTokens(n: number): string {
  const k = n / 1024
  if (k < 1) return String(Math.round(n))
  if (k < 10) return `${k.toFixed(1).replace(/\.0$/, '')}k`
  return `${Math.round(k)}k`
}

/**
 * "Waiting for the model: another task is using it…", "Loading qwen3:8b…", "Reading the prompt
 * (6,200 tokens)…", or "" once the answer arrives.
 */
export function waitingText(w: ModelWaitingPayload | null): string {
  if (!w) return ''
  if (w.phase === 'queued') return 'Waiting for the model: another task is using it…'
  if (w.phase === 'loading') return `Loading ${w.model}…`
  if (w.phase === 'prefill') return w.promptTokens ? `Reading the prompt (${tokens(w.promptTokens)} tokens)…` : 'Reading the prompt…'
  return ''
}

/** How full the window is after an answer: 0 to 1 (more when Ollama counted past it). */
export function usageShare(u: ContextUsagePayload): number {
  return u.window > 0 ? (u.promptTokens + u.answerTokens) / u.window : 0
}

/** The meter's tooltip: what the counts are and where they come from. */
export function usageTitle(u: ContextUsagePayload): string {
  const used = u.promptTokens + u.answerTokens
  const pct = Math.round(usageShare(u) * 100)
  return `Context window: ${tokens(used)} of ${tokens(u.window)} tokens (${pct}%) after the last answer, as Ollama counted them: ` +
    `the prompt ${tokens(u.promptTokens)}, the answer ${tokens(u.answerTokens)}.`
}

/** The chat's note when Ollama cut the prompt to fit the window. */
export function promptCutText(p: PromptCutPayload): string {
  const what = `The conversation did not fit the model's context window of ${tokens(p.window)} tokens: Ollama read only ${tokens(p.promptTokens)} tokens of it, so the model lost the start (its instructions and tools).`
  if (!p.retrying) return `${what} Sending less could not make it fit, so the run stopped.`
  const less = [p.leaner ? 'a shorter system prompt' : '', p.compacted ? 'the older messages summarised' : ''].filter(Boolean).join(' and ')
  return `${what} The answer above was set aside, and the question asked again with ${less || 'less'}.`
}

export type CheckTone = 'ok' | 'warn' | 'neutral' | 'busy'

/** What the model picker says about a model's tool check. */
export interface CheckLabel {
  label: string
  tone: CheckTone
  title: string
}

/** The picker's words for a tool check: checking, done (with what it found) or failed. */
export function toolCheckLabel(state: { state: 'checking' } | { state: 'done'; check: ToolCheck } | { state: 'failed'; error: string }): CheckLabel {
  if (state.state === 'checking') {
    return { label: 'Checking tools…', tone: 'busy', title: 'Asking the model for one tool call, to see how it really calls tools.' }
  }
  if (state.state === 'failed') return { label: 'Tool check failed', tone: 'neutral', title: state.error }
  const c = state.check
  switch (c.verdict) {
    case 'native':
      return { label: 'Native tools', tone: 'ok', title: 'In a test call the model called its tool natively: Gantry sends it the tools.' }
    case 'text':
      return {
        label: 'Tools as text',
        tone: 'warn',
        title: `Ollama says this model calls tools natively, but in a test it wrote its call as text (${dialectName(c.dialect ?? '')}), which Ollama does not pick up. Gantry describes the tools in the prompt and reads the calls from the text.`,
      }
    case 'unclear':
      return {
        label: 'Native tools',
        tone: 'neutral',
        title: 'The model made no tool call in the test, so it is unconfirmed; Gantry sends it the tools, as Ollama says it can take them.',
      }
    default:
      return {
        label: 'Tools as text',
        tone: 'neutral',
        title: 'This model has no native tool calling: Gantry describes the tools in the prompt and reads the calls from the text.',
      }
  }
}
