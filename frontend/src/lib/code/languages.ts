// Which CodeMirror language a file gets, chosen by its name. Parsers load on demand so the
// first window does not pay for languages the project never shows.
import type { LanguageSupport } from '@codemirror/language'

type Loader = () => Promise<LanguageSupport>

// Maps, not plain objects: a file called "constructor" or "__proto__" must not find
// Object.prototype's members.
const byExtension = new Map<string, Loader>()
const byName = new Map<string, Loader>()

function register(loader: Loader, extensions: string[], names: string[] = []) {
  for (const e of extensions) byExtension.set(e, loader)
  for (const n of names) byName.set(n, loader)
}

register(async () => (await import('@codemirror/lang-javascript')).javascript(), ['js', 'mjs', 'cjs'])
register(async () => (await import('@codemirror/lang-javascript')).javascript({ jsx: true }), ['jsx'])
register(async () => (await import('@codemirror/lang-javascript')).javascript({ typescript: true }), ['ts', 'mts', 'cts'])
register(async () => (await import('@codemirror/lang-javascript')).javascript({ typescript: true, jsx: true }), ['tsx'])
register(async () => (await import('@codemirror/lang-python')).python(), ['py', 'pyi', 'pyw'])
register(async () => (await import('@codemirror/lang-go')).go(), ['go'])
register(async () => (await import('@codemirror/lang-rust')).rust(), ['rs'])
register(async () => (await import('@codemirror/lang-json')).json(), ['json', 'jsonc', 'json5'])
register(async () => (await import('@codemirror/lang-markdown')).markdown(), ['md', 'markdown', 'mdx'])
register(async () => (await import('@codemirror/lang-html')).html(), ['html', 'htm', 'svelte', 'vue', 'xml', 'svg'])
register(async () => (await import('@codemirror/lang-css')).css(), ['css', 'scss', 'less'])
register(async () => (await import('@codemirror/lang-cpp')).cpp(), ['c', 'h', 'cc', 'cpp', 'cxx', 'hpp', 'hh', 'hxx'])
register(async () => (await import('@codemirror/lang-java')).java(), ['java', 'kt', 'kts'])
register(async () => (await import('@codemirror/lang-yaml')).yaml(), ['yaml', 'yml'])
register(async () => (await import('@codemirror/lang-sql')).sql(), ['sql'])

// Fenced code blocks in markdown name their language rather than a file.
const aliases = new Map(Object.entries({
  javascript: 'js', typescript: 'ts', python: 'py', golang: 'go', rust: 'rs', shell: 'sh', bash: 'sh',
  yml: 'yaml', 'c++': 'cpp', markdown: 'md', html: 'html', css: 'css', json: 'json', sql: 'sql', java: 'java',
}))

function loaderFor(path: string): Loader | undefined {
  const base = path.split(/[\\/]/).pop()?.toLowerCase() ?? ''
  const named = byName.get(base)
  if (named) return named
  const dot = base.lastIndexOf('.')
  return dot < 0 ? undefined : byExtension.get(base.slice(dot + 1))
}

function find(pathOrName: string): Loader | undefined {
  return loaderFor(pathOrName) ?? loaderFor('x.' + (aliases.get(pathOrName.toLowerCase()) ?? pathOrName))
}

/** Whether a file (or a fenced block's language name) has syntax highlighting. */
export function hasLanguage(pathOrName: string): boolean {
  return find(pathOrName) !== undefined
}

const loaded = new Map<Loader, Promise<LanguageSupport | null>>()

/**
 * The language for a file path or a fence name ("ts", "python"), or null for plain text. Always a
 * promise, and one that never rejects: a parser that fails to load leaves the file plain.
 */
export function loadLanguage(pathOrName: string): Promise<LanguageSupport | null> {
  const loader = find(pathOrName)
  if (!loader) return Promise.resolve(null)
  let p = loaded.get(loader)
  if (!p) {
    p = Promise.resolve()
      .then(loader)
      .catch(() => {
        loaded.delete(loader) // try again next time
        return null
      })
    loaded.set(loader, p)
  }
  return p
}
