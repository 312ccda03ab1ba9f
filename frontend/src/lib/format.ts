// Pure display helpers. Kept free of Svelte and the DOM so they can be unit-tested in Node.

const minute = 60_000
const hour = 60 * minute
const day = 24 * hour

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? '' : 's'} ago`
}

/** "just now", "5 minutes ago", "yesterday", "3 weeks ago"… for a timestamp in the past. */
export function relativeTime(iso: string, now: number = Date.now()): string {
  const then = Date.parse(iso)
  if (Number.isNaN(then)) return ''
  // A clock slightly ahead of ours (or a just-written timestamp) reads as "just now".
  const elapsed = Math.max(0, now - then)
  if (elapsed < minute) return 'just now'
  if (elapsed < hour) return plural(Math.floor(elapsed / minute), 'minute')
  if (elapsed < day) return plural(Math.floor(elapsed / hour), 'hour')
  const days = Math.floor(elapsed / day)
  if (days === 1) return 'yesterday'
  if (days < 7) return plural(days, 'day')
  if (days < 30) return plural(Math.floor(days / 7), 'week')
  if (days < 365) return plural(Math.floor(days / 30), 'month')
  return plural(Math.floor(days / 365), 'year')
}

const units = ['B', 'KB', 'MB', 'GB', 'TB']

/** Decimal units, as Ollama reports model sizes: 4_683_087_332 → "4.7 GB". */
export function formatSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return ''
  let value = bytes
  let unit = 0
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000
    unit++
  }
  if (unit === 0) return `${bytes} B`
  // One decimal below 10 ("4.7 GB"), none above ("19 GB"), like `ollama list`.
  const shown = value < 10 ? value.toFixed(1) : Math.round(value).toString()
  return `${shown} ${units[unit]}`
}

/**
 * Shortens a path to at most max characters by replacing middle folders with "…", keeping the
 * first folder and as many trailing segments as fit: the project's own name matters most.
 */
export function truncateMiddle(path: string, max: number): string {
  if (path.length <= max) return path
  const sep = path.includes('\\') && !path.includes('/') ? '\\' : '/'
  const parts = path.split(sep)
  const last = parts[parts.length - 1]
  // Keep the leading root marker ("" for "/", "C:" on Windows) together with the first folder.
  const headCount = parts[0] === '' ? 2 : 1
  const head = parts.slice(0, headCount).join(sep)
  const ellipsis = '…'
  let tail = last
  for (let i = parts.length - 2; i >= headCount; i--) {
    const candidate = parts[i] + sep + tail
    if (head.length + 2 * sep.length + ellipsis.length + candidate.length > max) break
    tail = candidate
  }
  const joined = head + sep + ellipsis + sep + tail
  if (parts.length > headCount + 1 && joined.length <= max) return joined
  // Even "head/…/last" is too long: cut the final segment itself from the left.
  const keep = Math.max(1, max - ellipsis.length)
  return ellipsis + path.slice(path.length - keep)
}

export interface TextPart {
  text: string
  code: boolean
}

/** Splits "Start it with `ollama serve`." into plain and `code` parts (rendered as text, never HTML). */
export function splitCode(text: string): TextPart[] {
  const parts: TextPart[] = []
  const push = (t: string, code: boolean) => {
    if (t) parts.push({ text: t, code })
  }
  let rest = text
  for (;;) {
    const open = rest.indexOf('`')
    const close = open < 0 ? -1 : rest.indexOf('`', open + 1)
    if (close < 0) {
      // No pair left: an unmatched backtick stays visible as plain text.
      push(rest, false)
      return parts
    }
    push(rest.slice(0, open), false)
    push(rest.slice(open + 1, close), true)
    rest = rest.slice(close + 1)
  }
}

/** "Thought for 8s": whole seconds (at least 1), minutes past a minute ("1m 5s"). */
export function seconds(ms: number): string {
  const s = Math.max(1, Math.round(ms / 1000))
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${s % 60}s`
}

/** A tool action's duration: "12ms", "0.9s", "14s", "2m 3s"; "" when unknown. */
export function duration(ms: number): string {
  if (!ms || ms < 0) return ''
  if (ms < 1000) return `${Math.round(ms)}ms`
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)}s`
  return seconds(ms)
}

/** "a.go", "a.go and b.go", "a.go, b.go and 3 more": a few names of a list, for a sentence. */
export function someNames(names: string[], shown = 3): string {
  if (names.length <= 1) return names.join('')
  if (names.length <= shown) return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`
  return `${names.slice(0, shown).join(', ')} and ${names.length - shown} more`
}

/** The chat's line for a filesChangedOnDisk event: what the model was told before its next step. */
export function filesChangedText(p: { changed: string[]; deleted: string[] }): string {
  const parts: string[] = []
  if (p.changed.length) parts.push(`${someNames(p.changed)} changed on disk`)
  if (p.deleted.length) parts.push(`${someNames(p.deleted)} ${p.deleted.length === 1 ? 'was' : 'were'} deleted`)
  const them = p.changed.length + p.deleted.length === 1 ? 'it' : 'them'
  return `The model was told that ${parts.join(' and ')} since it last saw ${them}.`
}

/** How people know the tool-call forms toolcall reads (its Dialect constants). */
const dialectNames: Record<string, string> = {
  json: 'plain JSON',
  hermes: 'Hermes <tool_call>',
  nemotron: 'Nemotron <toolcall>',
  'qwen3-coder': 'Qwen3-Coder <function=…>',
  'seed-oss': 'Seed-OSS <seed:tool_call>',
  harmony: 'gpt-oss harmony',
  mistral: 'Mistral [TOOL_CALLS]',
  'llama-python-tag': 'Llama <|python_tag|>',
  'llama-function': 'Llama <function=…>',
  pythonic: 'pythonic [name(…)]',
  deepseek: 'DeepSeek',
  granite: 'Granite <|tool_call|>',
  phi: 'Phi functools[…]',
  'function-call': '<function_call>',
  'openai-envelope': 'OpenAI tool_calls JSON',
  glm: 'GLM <arg_key>',
  kimi: 'Kimi K2',
  'invoke-xml': '<invoke> XML',
  'command-r': 'Command-R Action',
  'gemma-tool-code': 'Gemma tool_code',
}

/** "Mistral [TOOL_CALLS]" for "mistral"; an unknown id as it is. */
export function dialectName(id: string): string {
  return dialectNames[id] ?? id
}
