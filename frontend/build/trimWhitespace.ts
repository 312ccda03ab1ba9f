// Svelte keeps the whitespace between two tags (or blocks) as a text node of one space: in
// running text it is the space between two words. In a component laid out in blocks and flex
// rows, the line breaks between its tags are formatting only, yet each becomes a text node that a
// long conversation builds, tears down and collects for nothing: 5,600 of a reopened 60-run
// session's 23,700 nodes, and some 25 ms of reloading it (issue 18). A component whose template
// holds the marker comment loses every whitespace-only text that spans a line break; a space
// written on one line (`<b>a</b> <i>b</i>`) stays, and so does anything in <pre> or <textarea>.
import MagicString from 'magic-string'
import { parse, type AST, type PreprocessorGroup } from 'svelte/compiler'

export const marker = '<!-- line breaks between tags are formatting -->'

export function trimWhitespace(): PreprocessorGroup {
  return {
    name: 'trim-whitespace',
    markup({ content, filename }) {
      if (!content.includes(marker)) return
      const out = new MagicString(content)
      cut(parse(content, { modern: true, filename }).fragment, out)
      return { code: out.toString(), map: out.generateMap({ hires: true, source: filename }) }
    },
  }
}

// The fragments a template node holds: an element's children, a block's branches.
const branches = ['fragment', 'consequent', 'alternate', 'body', 'fallback', 'pending', 'then', 'catch'] as const

function cut(fragment: AST.Fragment, out: MagicString) {
  for (const node of fragment.nodes) {
    if (node.type === 'Text') {
      if (node.data.trim() === '' && node.data.includes('\n')) out.remove(node.start, node.end)
      continue
    }
    if (node.type === 'RegularElement' && (node.name === 'pre' || node.name === 'textarea')) continue
    for (const key of branches) {
      const child = (node as unknown as Record<string, AST.Fragment | null | undefined>)[key]
      if (child?.nodes) cut(child, out)
    }
  }
}
