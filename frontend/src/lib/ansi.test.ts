import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { color256, contrast, ensureContrast, minimumContrast, outputBackgrounds, parseAnsi, readableColor, stripAnsi } from './ansi'
import { besides, loadInBrowser, type BrowserModule } from './browserTest'

let browser: BrowserModule | null = null

beforeAll(async () => {
  browser = await loadInBrowser(besides(import.meta.url, './ansi.ts'), 'ansi')
}, 60_000)

afterAll(async () => browser?.close())

describe('stripAnsi', () => {
  it('removes colours, cursor moves and titles', () => {
    expect(stripAnsi('\x1b[1;32mok\x1b[0m  \x1b[2Kdone\x1b]0;title\x07!')).toBe('ok  done!')
  })
  it('keeps the last write of a line rewritten with carriage returns', () => {
    expect(stripAnsi('10%\r50%\r100%\nnext\r\n')).toBe('100%\nnext\n')
  })
  it('keeps a bar that just rewound, until something overwrites it', () => {
    expect(stripAnsi('[==  ] 50%\r')).toBe('[==  ] 50%')
  })
})

describe('parseAnsi', () => {
  it('reads the 16 colours, bright ones and resets', () => {
    expect(parseAnsi('\x1b[31mred\x1b[0m plain \x1b[92mbright\x1b[39m')).toEqual([
      { text: 'red', style: { fg: 1 } },
      { text: ' plain ', style: {} },
      { text: 'bright', style: { fg: 10 } },
    ])
  })
  it('reads 256 colours and truecolour, foreground and background', () => {
    expect(parseAnsi('\x1b[38;5;196;48;5;4mx\x1b[38;2;10;20;30my')).toEqual([
      { text: 'x', style: { fg: 'rgb(255, 0, 0)', bg: 4 } },
      { text: 'y', style: { fg: 'rgb(10, 20, 30)', bg: 4 } },
    ])
    expect(color256(232)).toBe('rgb(8, 8, 8)')
    expect(color256(9)).toBe(9)
  })
  it('reads text styles and their own resets', () => {
    expect(parseAnsi('\x1b[1;3;4mall\x1b[22mnot bold\x1b[m')).toEqual([
      { text: 'all', style: { bold: true, italic: true, underline: true } },
      { text: 'not bold', style: { italic: true, underline: true } },
    ])
  })
  it('carries a colour set in an overwritten write over to the one shown', () => {
    expect(parseAnsi('\x1b[33m10%\r100%')).toEqual([{ text: '100%', style: { fg: 3 } }])
  })
})

describe('renderAnsi', () => {
  it('builds text nodes and spans, never markup from the output', async (ctx) => {
    if (!browser) ctx.skip()
    const got = await browser!.page.evaluate(() => {
      const ansi = (window as unknown as { ansi: typeof import('./ansi') }).ansi
      const el = document.getElementById('out')!
      ansi.renderAnsi(el, '\x1b[1;31m<img src=x onerror=alert(1)>\x1b[0m and \x1b[38;2;1;2;3mtrue')
      const spans = [...el.querySelectorAll('span')]
      return {
        elements: el.querySelectorAll('*').length,
        text: el.textContent,
        spans: spans.map((s) => ({ text: s.textContent, color: s.style.color, weight: s.style.fontWeight })),
      }
    })
    expect(got.elements).toBe(2)
    expect(got.text).toBe('<img src=x onerror=alert(1)> and true')
    // Bold makes a base colour bright.
    expect(got.spans[0]).toEqual({ text: '<img src=x onerror=alert(1)>', color: 'var(--ansi-9)', weight: '600' })
    // An exact near-black stays on the light panel and is lightened on the dark one.
    expect(got.spans[1].color).toMatch(/^light-dark\(rgb\(1, 2, 3\), rgb\(\d+, \d+, \d+\)\)$/)
  })
})

describe('minimum contrast of exact colours', () => {
  const rgb = (s: string) => s.match(/\d+/g)!.map(Number) as [number, number, number]

  it('leaves a readable colour alone and moves an unreadable one just far enough', () => {
    const { light, dark } = outputBackgrounds
    expect(ensureContrast([0, 0, 0], light)).toEqual([0, 0, 0])
    for (const fg of [[255, 255, 0], [0, 0, 255], [20, 20, 20], [128, 128, 128], [95, 255, 95]] as const) {
      for (const bg of [light, dark]) {
        const out = ensureContrast(fg, bg)
        expect(contrast(out, bg), `${fg} on ${bg}`).toBeGreaterThanOrEqual(minimumContrast)
      }
    }
    // Yellow on the light panel darkens, keeping its hue (red and green equal, no blue).
    const yellow = ensureContrast([255, 255, 0], light)
    expect(yellow[0]).toBe(yellow[1])
    expect(yellow[0]).toBeLessThan(255)
    expect(yellow[2]).toBe(0)
  })

  it('gives light and dark values, or measures against an exact background', () => {
    const both = readableColor('rgb(0, 0, 255)', undefined)
    const [l, d] = both.slice('light-dark('.length, -1).split('), ').map((x) => rgb(x))
    expect(contrast(l, outputBackgrounds.light)).toBeGreaterThanOrEqual(minimumContrast)
    expect(contrast(d, outputBackgrounds.dark)).toBeGreaterThanOrEqual(minimumContrast)
    expect(contrast(rgb(readableColor('rgb(250, 250, 250)', 'rgb(255, 255, 255)')), [255, 255, 255])).toBeGreaterThanOrEqual(minimumContrast)
    expect(readableColor(1, undefined)).toBe('var(--ansi-1)')
    expect(readableColor('rgb(0, 0, 255)', 4)).toBe('rgb(0, 0, 255)')
  })
})
