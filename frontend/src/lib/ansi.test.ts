import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { color256, parseAnsi, stripAnsi } from './ansi'
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
    expect(got.spans).toEqual([
      { text: '<img src=x onerror=alert(1)>', color: 'var(--ansi-9)', weight: '600' },
      { text: 'true', color: 'rgb(1, 2, 3)', weight: '' },
    ])
  })
})
