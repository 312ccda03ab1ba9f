// renderMarkdown makes DOM nodes: the browser tests run the bundled module in Chromium.
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { besides, loadInBrowser, type BrowserModule } from './browserTest'

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

type Md = { md: { renderMarkdown(s: string): DocumentFragment } }

describe('renderMarkdown', () => {
  it('lets no script, handler or dangerous link through', async (ctx) => {
    if (!browser) ctx.skip()
    let dialogs = 0
    page.on('dialog', (d) => {
      dialogs++
      void d.dismiss()
    })
    const found = await page.evaluate((inputs) => {
      const md = (window as unknown as Md).md
      const out = document.getElementById('out')!
      const problems: string[] = []
      for (const input of inputs) {
        out.replaceChildren(md.renderMarkdown(input))
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
      const md = (window as unknown as Md).md
      const render = (s: string) => {
        const div = document.createElement('div')
        div.append(md.renderMarkdown(s))
        return div.innerHTML
      }
      return [
        render('Done **here**.\n\n```go\nfmt.Println("<b>")\n```'),
        render('Use <b>bold</b> [docs](https://go.dev) or [mail](mailto:a@b.c "Write")'),
        render('[bad](javascript:alert(1)) and ![a diagram](https://x.test/d.png)'),
        render('1. one\n2. *two*\n\n---\n\n3. three\n\n> ~~quoted~~ `a<b>&amp;`'),
        render('| a | b |\n|:-|-:|\n| 1 | 2 |'),
        render('Tom &amp; Jerry &copy; &#8212; &#x41; &bogus; \\*not em\\*'),
        render('# Title\n\n- [x] done\n- [ ] to do\n- plain\n\n* [x] loose\n\n  more'),
        render('![**Fig** 1\\_a](u) &constructor; [q](https://x.test/?a=1&amp;b=2 "A &amp; B")'),
      ]
    })
    expect(html[0]).toBe('<p>Done <strong>here</strong>.</p><pre><code class="language-go">fmt.Println("&lt;b&gt;")\n</code></pre>')
    expect(html[1]).toBe(
      '<p>Use &lt;b&gt;bold&lt;/b&gt; <a href="https://go.dev" rel="noopener noreferrer" target="_blank">docs</a> or ' +
        '<a href="mailto:a@b.c" rel="noopener noreferrer" target="_blank" title="Write">mail</a></p>',
    )
    expect(html[2]).toBe('<p><a>bad</a> and a diagram</p>')
    expect(html[3]).toBe('<ol><li>one</li><li><em>two</em></li></ol><hr><ol start="3"><li>three</li></ol><blockquote><p><del>quoted</del> <code>a&lt;b&gt;&amp;amp;</code></p></blockquote>')
    expect(html[4]).toBe('<table><thead><tr><th align="left">a</th><th align="right">b</th></tr></thead><tbody><tr><td align="left">1</td><td align="right">2</td></tr></tbody></table>')
    expect(html[5]).toBe('<p>Tom &amp; Jerry © — A &amp;bogus; *not em*</p>')
    expect(html[6]).toBe('<h1>Title</h1><ul><li class="task"><span>☑</span> done</li><li class="task"><span>☐</span> to do</li><li>plain</li></ul><ul><li class="task"><p><span>☑</span> loose</p><p>more</p></li></ul>')
    expect(html[7]).toBe(
      '<p>Fig 1_a &amp;constructor; <a href="https://x.test/?a=1&amp;b=2" rel="noopener noreferrer" target="_blank" title="A &amp; B">q</a></p>',
    )
  })
})
