// Syntax colours come from classes (tok-keyword, tok-string, …) that app.css colours with theme
// variables, so editors, diffs and markdown code blocks share one palette in light and dark.
import { syntaxHighlighting } from '@codemirror/language'
import { classHighlighter, highlightCode } from '@lezer/highlight'
import { loadLanguage } from './languages'

/** The CodeMirror extension that tags tokens with the shared classes. */
export const codeHighlighting = syntaxHighlighting(classHighlighter)

/**
 * Highlights code outside an editor (markdown blocks, read-only previews) into `target`,
 * built from text nodes and spans only, so nothing in the code can become markup.
 * Returns false when the language is unknown and leaves target untouched.
 */
export async function highlightInto(target: HTMLElement, code: string, language: string): Promise<boolean> {
  const support = await loadLanguage(language)
  if (!support) return false
  const tree = support.language.parser.parse(code)
  const out = document.createDocumentFragment()
  highlightCode(
    code,
    tree,
    classHighlighter,
    (text, classes) => {
      if (!classes) {
        out.append(document.createTextNode(text))
        return
      }
      const span = document.createElement('span')
      span.className = classes
      span.textContent = text
      out.append(span)
    },
    () => out.append(document.createTextNode('\n')),
  )
  target.replaceChildren(out)
  return true
}
