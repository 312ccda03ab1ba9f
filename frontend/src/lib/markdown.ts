// The model's answers are Markdown from an untrusted source (a prompt-injected README can make the
// model write anything). No HTML is ever parsed from them: marked cuts the text into tokens, and
// each token becomes DOM nodes made here, element by element from an allowlist, with text only
// ever as text nodes. Raw HTML in an answer is shown as the text it is, link targets are limited
// to http(s) and mailto, and images show their alt text. Nothing can become a script, a handler
// or a form: there is no markup to sanitise, only nodes this file chose to make.
//
// (It used to render HTML and sanitise it with DOMPurify: parsing that HTML twice, once to
// sanitise and once to insert, was the largest part of rebuilding a long session's turns.)
import { Lexer, type Token, type Tokens } from 'marked'

const safeHref = /^(https?:|mailto:)/i

const options = { gfm: true, breaks: false }

/** An answer as DOM nodes, ready to insert. */
export function renderMarkdown(src: string): DocumentFragment {
  const out = document.createDocumentFragment()
  blocks(out, Lexer.lex(src, options))
  out.normalize() // "<b>", "raw" and "</b>" as one text, shaped as one run like any other
  return out
}

function el<K extends keyof HTMLElementTagNameMap>(parent: Node, tag: K, children?: Token[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag)
  if (children) inline(e, children)
  parent.appendChild(e)
  return e
}

function text(parent: Node, s: string) {
  if (s) parent.appendChild(document.createTextNode(s))
}

function blocks(parent: Node, tokens: Token[]) {
  for (const t of tokens as Tokens.Generic[]) {
    switch (t.type) {
      case 'paragraph':
        el(parent, 'p', t.tokens ?? [])
        break
      case 'text': // a tight list item's text: inline, no paragraph
        if (t.tokens) inline(parent, t.tokens)
        else text(parent, decodeEntities(t.text))
        break
      case 'heading':
        el(parent, `h${Math.min(Math.max(t.depth, 1), 6)}` as 'h1', t.tokens ?? [])
        break
      case 'code': {
        const code = el(el(parent, 'pre'), 'code')
        const lang = (t.lang ?? '').match(/^\S*/)?.[0]
        if (lang) code.className = `language-${lang}`
        text(code, t.text ? t.text.replace(/\n$/, '') + '\n' : '')
        break
      }
      case 'blockquote':
        blocks(el(parent, 'blockquote'), t.tokens ?? [])
        break
      case 'list': {
        const list = el(parent, t.ordered ? 'ol' : 'ul')
        if (t.ordered && t.start !== '' && t.start !== 1) list.setAttribute('start', String(t.start))
        for (const item of t.items as Tokens.ListItem[]) {
          const li = el(list, 'li')
          if (item.task) li.className = 'task'
          blocks(li, item.tokens)
        }
        break
      }
      case 'table':
        table(parent, t as Tokens.Table)
        break
      case 'hr':
        el(parent, 'hr')
        break
      case 'html': // raw HTML: shown as the text it is
        text(parent, t.text)
        break
      case 'checkbox':
        checkbox(parent, t.checked)
        break
      // space, def (a link's reference): nothing to show
    }
  }
}

function table(parent: Node, t: Tokens.Table) {
  const table = el(parent, 'table')
  const cell = (row: HTMLTableRowElement, c: Tokens.TableCell, tag: 'th' | 'td') => {
    const e = el(row, tag, c.tokens)
    if (c.align) e.setAttribute('align', c.align)
  }
  const head = el(el(table, 'thead'), 'tr')
  for (const c of t.header) cell(head, c, 'th')
  if (!t.rows.length) return
  const body = el(table, 'tbody')
  for (const r of t.rows) {
    const row = el(body, 'tr')
    for (const c of r) cell(row, c, 'td')
  }
}

function inline(parent: Node, tokens: Token[]) {
  for (const t of tokens as Tokens.Generic[]) {
    switch (t.type) {
      case 'text':
        if (t.tokens) inline(parent, t.tokens)
        else text(parent, decodeEntities(t.text))
        break
      case 'escape':
        text(parent, t.text)
        break
      case 'strong':
      case 'em':
      case 'del':
        el(parent, t.type, t.tokens ?? [])
        break
      case 'codespan':
        text(el(parent, 'code'), t.text)
        break
      case 'br':
        el(parent, 'br')
        break
      case 'link':
        link(parent, t as Tokens.Link)
        break
      case 'image': // no images from an answer: their alt text stands in, as marked writes it
        text(parent, plain(t.tokens ?? []))
        break
      case 'html': // raw HTML: shown as the text it is
        text(parent, t.text)
        break
      case 'checkbox': // in a loose list's paragraph
        checkbox(parent, t.checked)
        break
    }
  }
}

// A task list's box, as a mark rather than a form control: nothing in an answer can be ticked.
function checkbox(parent: Node, checked: boolean) {
  text(el(parent, 'span'), checked ? '☑' : '☐')
  text(parent, ' ')
}

// The text of inline tokens without their marks, as marked writes an image's alt text.
function plain(tokens: Token[]): string {
  let out = ''
  for (const t of tokens as Tokens.Generic[]) {
    if (t.tokens) out += plain(t.tokens)
    else if (t.type === 'text' || t.type === 'html') out += decodeEntities(t.text)
    else if (t.type === 'escape' || t.type === 'codespan') out += t.text
  }
  return out
}

function link(parent: Node, t: Tokens.Link) {
  // As marked writes an href, read as HTML reads an attribute (character references decoded);
  // a target it cannot encode makes no link at all.
  let href: string
  try {
    href = encodeURI(decodeEntities(t.href)).replace(/%25/g, '%')
  } catch {
    inline(parent, t.tokens)
    return
  }
  const a = el(parent, 'a', t.tokens)
  if (safeHref.test(href.trim())) {
    a.setAttribute('href', href)
    a.setAttribute('rel', 'noopener noreferrer')
    a.setAttribute('target', '_blank')
  }
  if (t.title) a.setAttribute('title', decodeEntities(t.title))
}

// Character references in text (&amp; &#169; &#x2014;), which Markdown reads as HTML does. The
// named ones are those answers use; another stays as written.
const named: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', copy: '©', reg: '®', trade: '™',
  hellip: '…', mdash: '—', ndash: '–', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', laquo: '«',
  raquo: '»', times: '×', divide: '÷', deg: '°', plusmn: '±', middot: '·', bull: '•', larr: '←',
  rarr: '→', uarr: '↑', darr: '↓', harr: '↔', le: '≤', ge: '≥', ne: '≠', check: '✓', euro: '€',
  pound: '£', yen: '¥', sect: '§', para: '¶', shy: '\u00ad', zwj: '\u200d', zwnj: '\u200c',
}

function decodeEntities(s: string): string {
  if (!s.includes('&')) return s
  return s.replace(/&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z][a-zA-Z0-9]{1,31}));/g, (ref, dec, hex, name) => {
    if (name) return Object.hasOwn(named, name) ? named[name] : ref
    const code = dec ? parseInt(dec, 10) : parseInt(hex, 16)
    // As HTML: NUL, surrogates and numbers past Unicode become the replacement character.
    return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? '\ufffd' : String.fromCodePoint(code)
  })
}
