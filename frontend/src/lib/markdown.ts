// The model's answers are Markdown from an untrusted source (a prompt-injected README can make the
// model write anything). Two layers keep that text from running: marked escapes raw HTML to plain
// text, and DOMPurify keeps only an allowlist of tags and attributes, with link targets limited to
// http(s) and mailto.
import DOMPurify from 'dompurify'
import { Marked } from 'marked'

const allowedTags = [
  'p', 'br', 'hr', 'strong', 'em', 'del', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li', 'a',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'thead', 'tbody', 'tr', 'th', 'td',
]
// class carries code blocks' language-xyz. No form controls: task-list boxes are dropped.
const allowedAttrs = ['href', 'title', 'class', 'start', 'align']
const safeHref = /^(https?:|mailto:)/i

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  // Raw HTML in an answer is shown as the text it is, never parsed.
  renderer: { html: ({ text }) => escapeHtml(text) },
})

let purifier: ReturnType<typeof DOMPurify> | null = null

function getPurifier(): ReturnType<typeof DOMPurify> | null {
  if (purifier) return purifier
  if (typeof window === 'undefined') return null
  const p = DOMPurify(window)
  if (!p.isSupported) return null
  p.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName !== 'A') return
    const href = node.getAttribute('href') ?? ''
    if (!safeHref.test(href.trim())) node.removeAttribute('href')
    else {
      node.setAttribute('rel', 'noopener noreferrer')
      node.setAttribute('target', '_blank')
    }
  })
  purifier = p
  return p
}

/** Safe HTML for a Markdown answer. Without a DOM to sanitise with, it fails closed: escaped text. */
export function renderMarkdown(src: string): string {
  const p = getPurifier()
  if (!p) return `<p>${escapeHtml(src)}</p>`
  const html = marked.parse(src) as string
  return p.sanitize(html, {
    ALLOWED_TAGS: allowedTags,
    ALLOWED_ATTR: allowedAttrs,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
    ADD_ATTR: ['target', 'rel'],
  }) as string
}
