// Code blocks of a rendered answer, after the sanitiser: syntax colours by the fence's language
// and a Copy button. Both are built from DOM nodes (text nodes, spans, a button), so nothing in the
// model's code can become markup.

// The highlighter (CodeMirror's language package) loads with the first code block, not at start.
const highlighter = () => import('./code/highlight')

const fence = /(?:^|\s)language-([\w+#.-]+)/

/** Highlights and adds Copy to every `pre > code` in root that has not had them yet. */
export function enhanceCodeBlocks(root: HTMLElement) {
  for (const code of root.querySelectorAll<HTMLElement>('pre > code')) {
    const pre = code.parentElement!
    if (pre.dataset.enhanced) continue
    pre.dataset.enhanced = 'true'
    const text = code.textContent ?? ''
    const lang = fence.exec(code.className)?.[1]
    if (lang) {
      code.dataset.lang = lang
      void highlighter().then(({ highlightInto }) => highlightInto(code, text, lang))
    }
    pre.append(copyButton(text))
  }
}

function copyButton(text: string): HTMLButtonElement {
  const button = document.createElement('button')
  button.type = 'button'
  button.className = 'copy'
  button.textContent = 'Copy'
  button.setAttribute('aria-label', 'Copy code')
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text)
      button.textContent = 'Copied'
    } catch {
      button.textContent = 'Copy failed'
    }
    setTimeout(() => (button.textContent = 'Copy'), 1500)
  })
  return button
}
