// The sanitiser needs a real DOM: the browser tests run the bundled module in Chromium.
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { besides, loadInBrowser, type BrowserModule } from './browserTest'
import { renderMarkdown } from './markdown'

const hostile = [
  '<script>window.__xss = 1</script>',
  'Hi <img src=x onerror="window.__xss = 2">',
  '[click](javascript:window.__xss=3)',
  '[click](JaVaScRiPt:window.__xss=3)',
  '[data](data:text/html,<script>window.__xss=4</script>)',
  '<svg onload="window.__xss = 5"><circle r=1 /></svg>',
  '<iframe src="javascript:parent.__xss = 6"></iframe>',
  '<a href="javascript:window.__xss=7">raw link</a>',
  '<details open ontoggle="window.__xss = 8">x</details>',
  '![img](x" onerror="window.__xss=9)',
  '<math><mi xlink:href="javascript:window.__xss=10">x</mi></math>',
  '<style>body{background:url(javascript:window.__xss=11)}</style>',
  '```\n</code></pre><script>window.__xss=12</script>\n```',
  '<form action="javascript:window.__xss=13"><button>go</button></form>',
  '[ok](https://example.com "t") and <mailto:me@example.com>',
]

let browser: BrowserModule | null = null
let page: Page

beforeAll(async () => {
  browser = await loadInBrowser(besides(import.meta.url, './markdown.ts'), 'md')
  if (browser) page = browser.page
}, 60_000)

afterAll(async () => browser?.close())

describe('renderMarkdown', () => {
  it('fails closed to escaped text where there is no DOM to sanitise with', () => {
    expect(renderMarkdown('<script>x</script> **b**')).toBe('<p>&lt;script&gt;x&lt;/script&gt; **b**</p>')
  })

  it('lets no script, handler or dangerous link through', async (ctx) => {
    if (!browser) ctx.skip()
    let dialogs = 0
    page.on('dialog', (d) => {
      dialogs++
      void d.dismiss()
    })
    const found = await page.evaluate((inputs) => {
      const md = (window as unknown as { md: { renderMarkdown(s: string): string } }).md
      const out = document.getElementById('out')!
      const problems: string[] = []
      for (const input of inputs) {
        const html = md.renderMarkdown(input)
        out.innerHTML = html
        for (const el of out.querySelectorAll('*')) {
          const tag = el.tagName.toLowerCase()
          if (['script', 'iframe', 'svg', 'math', 'img', 'style', 'form', 'button', 'object', 'embed', 'details', 'input'].includes(tag))
            problems.push(`${input} → <${tag}>`)
          for (const attr of el.attributes) {
            const name = attr.name.toLowerCase()
            if (name.startsWith('on') || name === 'src' || name === 'style' || name.includes(':')) problems.push(`${input} → ${name}`)
            if (name === 'href' && !/^(https?:|mailto:)/i.test(attr.value)) problems.push(`${input} → href=${attr.value}`)
          }
          if (tag === 'a' && el.hasAttribute('href') && el.getAttribute('rel') !== 'noopener noreferrer')
            problems.push(`${input} → a without rel`)
        }
      }
      return problems
    }, hostile)
    expect(found).toEqual([])
    await page.waitForTimeout(300)
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined()
    expect(dialogs).toBe(0)
  })

  it('renders Markdown, shows raw HTML as text and keeps safe links', async (ctx) => {
    if (!browser) ctx.skip()
    const html = await page.evaluate(() => {
      const md = (window as unknown as { md: { renderMarkdown(s: string): string } }).md
      return [
        md.renderMarkdown('Done **here**.\n\n```go\nfmt.Println("<b>")\n```'),
        md.renderMarkdown('Use <b>bold</b> [docs](https://go.dev) or [mail](mailto:a@b.c)'),
      ]
    })
    expect(html[0]).toContain('<strong>here</strong>')
    expect(html[0]).toContain('<pre><code class="language-go">fmt.Println("&lt;b&gt;")')
    expect(html[1]).toContain('&lt;b&gt;bold&lt;/b&gt;')
    expect(html[1]).toContain('<a href="https://go.dev" rel="noopener noreferrer" target="_blank">docs</a>')
    expect(html[1]).toContain('href="mailto:a@b.c"')
  })
})
