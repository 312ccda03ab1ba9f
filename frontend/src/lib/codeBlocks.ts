// Code blocks of a rendered answer (lib/markdown.ts): syntax colours by the fence's language
// and a Copy button. Both are built from DOM nodes (text nodes, spans, a button), so nothing in the
// model's code can become markup.
//
// While an answer streams, each update renders the whole message again: a finished block is then
// coloured from a cache (not parsed again), the block still being written is left plain until its
// fence closes, and a Copy button just pressed still says "Copied".

// The highlighter (CodeMirror's language package) loads with the first code block, not at start.
// One import for all blocks: each import() call runs Vite's preload helper again (a DOM query, a
// URL per dependency of the chunk and a chain of promises), 60 times over for a reopened 60-run
// session. A failed load is tried again by the next block.
let loading: Promise<typeof import('./code/highlight')> | undefined
function highlighter() {
  loading ??= import('./code/highlight').catch((err) => {
    loading = undefined
    throw err
  })
  return loading
}

const fence = /(?:^|\s)language-([\w+#.-]+)/

/**
 * Whether the markdown ends inside a fenced code block (its closing fence not written yet), as
 * CommonMark reads fences: up to 3 spaces, then 3+ backticks or tildes, closed by the same
 * character at least as many times with nothing after it.
 */
export function endsInOpenFence(markdown: string): boolean {
  let open: { char: string; length: number } | null = null
  for (const line of markdown.split('\n')) {
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line)
    if (!m) continue
    const [char, length] = [m[1][0], m[1].length]
    if (!open) {
      if (char === '`' && m[2].includes('`')) continue // not a fence: an info string has no backtick
      open = { char, length }
    } else if (char === open.char && length >= open.length && m[2].trim() === '') open = null
  }
  return open !== null
}

// Highlighted blocks by language and text: the nodes to clone into an identical block again.
const cache = new Map<string, DocumentFragment>()
const cacheSize = 200

// When each code text was last copied, so a button rebuilt by the next update keeps saying so.
const copiedAt = new Map<string, number>()
const copiedFor = 1500

/**
 * Highlights and adds Copy to every `pre > code` in root that has not had them yet. With
 * lastIsOpen the last block is still being written: it gets neither until it is finished.
 */
export function enhanceCodeBlocks(root: HTMLElement, lastIsOpen = false) {
  const blocks = [...root.querySelectorAll<HTMLElement>('pre > code')]
  if (lastIsOpen) blocks.pop()
  for (const code of blocks) {
    const pre = code.parentElement!
    if (pre.dataset.enhanced) continue
    pre.dataset.enhanced = 'true'
    const text = code.textContent ?? ''
    const lang = fence.exec(code.className)?.[1]
    if (lang) {
      code.dataset.lang = lang
      const key = `${lang}\n${text}`
      const done = cache.get(key)
      if (done) code.replaceChildren(done.cloneNode(true))
      else
        void highlighter().then(async ({ highlightInto }) => {
          const scratch = document.createElement('code')
          if (!(await highlightInto(scratch, text, lang))) return
          const nodes = document.createDocumentFragment()
          nodes.append(...scratch.childNodes)
          remember(key, nodes)
          code.replaceChildren(nodes.cloneNode(true))
        })
    }
    pre.append(copyButton(text))
  }
}

function remember(key: string, nodes: DocumentFragment) {
  cache.set(key, nodes)
  if (cache.size > cacheSize) cache.delete(cache.keys().next().value!)
}

function copyButton(text: string): HTMLButtonElement {
  const button = document.createElement('button')
  button.type = 'button'
  button.className = 'copy'
  button.setAttribute('aria-label', 'Copy code')
  const show = (label: string, forMs: number) => {
    button.textContent = label
    if (forMs > 0) setTimeout(() => (button.textContent = 'Copy'), forMs)
  }
  const since = Date.now() - (copiedAt.get(text) ?? -Infinity)
  if (since < copiedFor) show('Copied', copiedFor - since)
  else show('Copy', 0)
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text)
      copiedAt.set(text, Date.now())
      show('Copied', copiedFor)
    } catch {
      show('Copy failed', copiedFor)
    }
  })
  return button
}
