// Command output arrives as the terminal would get it. Colours and text styles (SGR) become styled
// runs; every other escape (cursor moves, titles) is dropped, and a carriage return (progress bars)
// keeps only what was written last on its line. Output is untrusted: it becomes text nodes and
// spans, never markup.
const escapes = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g
const sgr = /^\x1b\[([0-9;:]*)m$/

/** A colour: one of the 16 themed ones (0–15), or an exact one as "rgb(r, g, b)". */
export type AnsiColor = number | string

export interface AnsiStyle {
  fg?: AnsiColor
  bg?: AnsiColor
  bold?: boolean
  dim?: boolean
  italic?: boolean
  underline?: boolean
  inverse?: boolean
}

export interface AnsiRun {
  text: string
  style: AnsiStyle
}

/** The text without any escapes, carriage-return rewrites applied. */
export function stripAnsi(s: string): string {
  return parseAnsi(s)
    .map((r) => r.text)
    .join('')
}

/** The output as runs of equally styled text. */
export function parseAnsi(s: string): AnsiRun[] {
  const runs: AnsiRun[] = []
  let style: AnsiStyle = {}
  const lines = s.replace(/\r\n/g, '\n').split('\n')
  lines.forEach((line, i) => {
    // A carriage return rewinds the line: only the last write shows (a bar that just rewound
    // still shows its previous state). Styles set in the hidden writes still count, as in a terminal.
    const writes = line.split('\r')
    let shown = writes.length - 1
    while (shown > 0 && writes[shown].replace(escapes, '') === '') shown--
    writes.forEach((w, j) => {
      if (j !== shown) {
        for (const m of w.matchAll(escapes)) style = applySgr(style, m[0])
        return
      }
      let last = 0
      for (const m of w.matchAll(escapes)) {
        push(runs, w.slice(last, m.index), style)
        style = applySgr(style, m[0])
        last = m.index + m[0].length
      }
      push(runs, w.slice(last), style)
    })
    if (i < lines.length - 1) push(runs, '\n', style)
  })
  return runs
}

function push(runs: AnsiRun[], text: string, style: AnsiStyle) {
  if (!text) return
  const prev = runs[runs.length - 1]
  if (prev && sameStyle(prev.style, style)) prev.text += text
  else runs.push({ text, style })
}

function sameStyle(a: AnsiStyle, b: AnsiStyle): boolean {
  const keys = ['fg', 'bg', 'bold', 'dim', 'italic', 'underline', 'inverse'] as const
  return keys.every((k) => a[k] === b[k])
}

/** The style after one escape; anything but a colour or text style leaves it as it was. */
function applySgr(style: AnsiStyle, esc: string): AnsiStyle {
  const m = sgr.exec(esc)
  if (!m) return style
  const codes = m[1] === '' ? [0] : m[1].split(/[;:]/).map((c) => (c === '' ? 0 : Number(c)))
  const next = { ...style }
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i]
    if (c === 0) {
      for (const k of Object.keys(next)) delete next[k as keyof AnsiStyle]
    } else if (c === 1) next.bold = true
    else if (c === 2) next.dim = true
    else if (c === 3) next.italic = true
    else if (c === 4) next.underline = true
    else if (c === 7) next.inverse = true
    else if (c === 22) next.bold = next.dim = undefined
    else if (c === 23) next.italic = undefined
    else if (c === 24) next.underline = undefined
    else if (c === 27) next.inverse = undefined
    else if (c >= 30 && c <= 37) next.fg = c - 30
    else if (c >= 90 && c <= 97) next.fg = c - 90 + 8
    else if (c === 39) next.fg = undefined
    else if (c >= 40 && c <= 47) next.bg = c - 40
    else if (c >= 100 && c <= 107) next.bg = c - 100 + 8
    else if (c === 49) next.bg = undefined
    else if (c === 38 || c === 48) {
      const [color, used] = extendedColor(codes, i + 1)
      if (c === 38) next.fg = color
      else next.bg = color
      i += used
    }
  }
  for (const k of Object.keys(next) as (keyof AnsiStyle)[]) if (next[k] === undefined) delete next[k]
  return next
}

/** 38;5;n (256 colours) or 38;2;r;g;b (truecolour), read from codes[at]; returns how many it used. */
function extendedColor(codes: number[], at: number): [AnsiColor | undefined, number] {
  if (codes[at] === 5) {
    const n = codes[at + 1]
    return [n === undefined || n > 255 ? undefined : color256(n), 2]
  }
  if (codes[at] === 2) {
    const [r, g, b] = codes.slice(at + 1, at + 4).map((v) => Math.min(255, v ?? 0))
    return [`rgb(${r ?? 0}, ${g ?? 0}, ${b ?? 0})`, 4]
  }
  return [undefined, 0]
}

/** The 256-colour palette: the 16 themed colours, a 6×6×6 cube, then 24 greys. */
export function color256(n: number): AnsiColor {
  if (n < 16) return n
  if (n < 232) {
    const level = (v: number) => (v === 0 ? 0 : 55 + v * 40)
    const i = n - 16
    return `rgb(${level(Math.floor(i / 36))}, ${level(Math.floor(i / 6) % 6)}, ${level(i % 6)})`
  }
  const grey = 8 + (n - 232) * 10
  return `rgb(${grey}, ${grey}, ${grey})`
}

const cssColor = (c: AnsiColor) => (typeof c === 'number' ? `var(--ansi-${c})` : c)

type RGB = readonly [number, number, number]

/** The output's background in each theme: app.css --bg-sunken (src/theme.test.ts checks it). */
export const outputBackgrounds = { light: [0xf1, 0xf1, 0xf3], dark: [0x14, 0x14, 0x17] } as const satisfies Record<string, RGB>

/** The contrast an exact colour gets at least (WCAG AA for text), as terminals' "minimum contrast". */
export const minimumContrast = 4.5

function luminance([r, g, b]: RGB): number {
  const lin = (v: number) => {
    const c = v / 255
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
}

export function contrast(a: RGB, b: RGB): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x)
  return (hi + 0.05) / (lo + 0.05)
}

/**
 * fg moved towards black (on a light background) or white (on a dark one) just far enough to be
 * readable on bg; the hue stays. A colour that already reads well is left as it is.
 */
export function ensureContrast(fg: RGB, bg: RGB, ratio = minimumContrast): RGB {
  if (contrast(fg, bg) >= ratio) return fg
  const target = luminance(bg) > 0.5 ? 0 : 255
  let out: RGB = fg
  for (let step = 1; step <= 20 && contrast(out, bg) < ratio; step++) {
    const t = step / 20
    out = fg.map((v) => Math.round(v + (target - v) * t)) as unknown as RGB
  }
  return out
}

const rgbText = (c: RGB) => `rgb(${c[0]}, ${c[1]}, ${c[2]})`

function parseRgb(c: AnsiColor | undefined): RGB | undefined {
  const m = typeof c === 'string' ? /^rgb\((\d+), (\d+), (\d+)\)$/.exec(c) : null
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined
}

// Outside a browser (unit tests) there is nothing to ask; assume the modern answer.
const hasLightDark = typeof CSS === 'undefined' || CSS.supports('color', 'light-dark(#000, #fff)')

/** Whether the page shows dark now (for browsers without light-dark()): data-theme says. */
function darkNow(): boolean {
  return document.documentElement.dataset.theme === 'dark'
}

/**
 * An exact foreground colour (256-colour or truecolour) as CSS, readable on what is behind it: its
 * own exact background, else the output panel in the light and the dark theme. The 16 themed
 * colours are picked for the panel already and stay as they are.
 */
export function readableColor(fg: AnsiColor, bg: AnsiColor | undefined): string {
  const exact = parseRgb(fg)
  if (!exact) return cssColor(fg)
  const behind = parseRgb(bg)
  if (behind) return rgbText(ensureContrast(exact, behind))
  if (bg !== undefined) return cssColor(fg) // a themed background: nothing exact to measure
  const light = rgbText(ensureContrast(exact, outputBackgrounds.light))
  const dark = rgbText(ensureContrast(exact, outputBackgrounds.dark))
  if (hasLightDark) return `light-dark(${light}, ${dark})`
  return darkNow() ? dark : light
}

/** Builds the output into target from text nodes and spans (styles set through the DOM, never parsed). */
export function renderAnsi(target: HTMLElement, s: string) {
  const out = document.createDocumentFragment()
  for (const run of parseAnsi(s)) {
    const st = run.style
    if (Object.keys(st).length === 0) {
      out.append(document.createTextNode(run.text))
      continue
    }
    const span = document.createElement('span')
    span.textContent = run.text
    let fg = st.fg
    let bg = st.bg
    // Bold makes the 8 base colours bright, as most terminals do.
    if (st.bold && typeof fg === 'number' && fg < 8) fg += 8
    if (st.inverse) [fg, bg] = [bg ?? 'var(--ansi-bg)', fg ?? 'var(--ansi-fg)']
    if (fg !== undefined) span.style.color = readableColor(fg, bg)
    if (bg !== undefined) span.style.backgroundColor = cssColor(bg)
    if (st.bold) span.style.fontWeight = '600'
    if (st.dim) span.style.opacity = '0.65'
    if (st.italic) span.style.fontStyle = 'italic'
    if (st.underline) span.style.textDecoration = 'underline'
    out.append(span)
  }
  target.replaceChildren(out)
}
