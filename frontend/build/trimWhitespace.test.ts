import { compile, preprocess } from 'svelte/compiler'
import { describe, expect, it } from 'vitest'
import { marker, trimWhitespace } from './trimWhitespace'

const trim = async (source: string) => (await preprocess(source, trimWhitespace(), { filename: 'T.svelte' })).code

describe('trimWhitespace', () => {
  it('drops the line breaks between tags and blocks of a component that says so', async () => {
    const source = `${marker}
<script lang="ts">
  let { a, b }: { a: boolean; b: string } = $props()
</script>

<li class="row">
  <button type="button">
    <span>{b}</span>
    {#if a}
      <i>x</i>
    {:else}
      <b>y</b>
    {/if}
  </button>
  <span class="meta" title="a
b">{b} · {b}</span> <em>kept</em>
  <pre>
  kept
</pre>
</li>
`
    const out = await trim(source)
    expect(out).toContain('<li class="row"><button type="button"><span>{b}</span>{#if a}<i>x</i>{:else}<b>y</b>{/if}</button>')
    // A space on one line, text, attribute values and <pre> are as written.
    expect(out).toContain('<span class="meta" title="a\nb">{b} · {b}</span> <em>kept</em><pre>\n  kept\n</pre></li>')
    expect(out).toContain('let { a, b }: { a: boolean; b: string } = $props()\n</script>')
    // What it gives is still a component.
    expect(() => compile(out, { filename: 'T.svelte' })).not.toThrow()
  })

  it('leaves a component without the marker as written', async () => {
    const source = '<p>\n  <b>a</b>\n  <i>b</i>\n</p>\n'
    expect(await trim(source)).toBe(source)
  })
})
