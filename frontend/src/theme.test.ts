// app.css gives each colour as light-dark(light, dark) and again, plain, for browsers without
// light-dark(): this keeps the two in step, and lib/ansi.ts's idea of the output background too.
import { describe, expect, it } from 'vitest'
import { outputBackgrounds } from './lib/ansi'

// The stylesheet as written (Vitest hands CSS imports over empty). Node's fs is imported by a
// computed name because the project's types are the browser's.
const fs: { readFileSync(path: URL, encoding: 'utf8'): string } = await import(/* @vite-ignore */ ['node', 'fs'].join(':'))
const css = fs.readFileSync(new URL('./app.css', import.meta.url), 'utf8')

/** The declarations of the block that starts at the given selector line. */
function block(selector: string, from = 0): Map<string, string> {
  const start = css.indexOf(selector + ' {\n', from)
  expect(start, selector).toBeGreaterThanOrEqual(0)
  const body = css.slice(start + selector.length + 3, css.indexOf('\n' + ' '.repeat(selector.length - selector.trimStart().length) + '}', start))
  const out = new Map<string, string>()
  for (const m of body.matchAll(/(--[\w-]+):([^;]*);/g)) out.set(m[1], m[2].replace(/\s+/g, ' ').trim())
  return out
}

/** The value with each light-dark(a, b) replaced by one side. */
function side(value: string, which: 0 | 1): string {
  let out = ''
  let i = 0
  for (let j = value.indexOf('light-dark(', i); j >= 0; j = value.indexOf('light-dark(', i)) {
    out += value.slice(i, j)
    let k = j + 'light-dark('.length
    const args = ['']
    for (let depth = 1; ; k++) {
      const c = value[k]
      if (c === '(') depth++
      if (c === ')' && --depth === 0) break
      if (c === ',' && depth === 1) args.push('')
      else args[args.length - 1] += c
    }
    out += args[which].trim()
    i = k + 1
  }
  return out + value.slice(i)
}

describe('app.css', () => {
  const main = block(':root')
  const themed = [...main].filter(([, v]) => v.includes('light-dark('))
  const fallback = css.indexOf('@supports not (color: light-dark(#000, #fff))')

  it('repeats every light-dark() colour, plain, for browsers without it', () => {
    expect(themed.length).toBeGreaterThan(40)
    expect(fallback).toBeGreaterThan(css.indexOf(':root {')) // after the main block, so it wins
    const light = block('  :root', fallback)
    const dark = block("  :root[data-theme='dark']", fallback)
    for (const [name, value] of themed) {
      expect(light.get(name), name).toBe(side(value, 0))
      expect(dark.get(name), name).toBe(side(value, 1))
    }
    for (const b of [light, dark]) expect(b.size).toBe(themed.length)
    // data-theme is always set, so the dark values are written once.
    expect(css).not.toContain('prefers-color-scheme')
  })

  it('agrees with lib/ansi.ts on the command output background', () => {
    const hex = (rgb: readonly number[]) => '#' + rgb.map((v) => v.toString(16).padStart(2, '0')).join('')
    const sunken = main.get('--bg-sunken') ?? ''
    expect(side(sunken, 0)).toBe(hex(outputBackgrounds.light))
    expect(side(sunken, 1)).toBe(hex(outputBackgrounds.dark))
  })
})
