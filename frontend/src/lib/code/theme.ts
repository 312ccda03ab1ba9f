// The base look every CodeMirror editor in Gantry shares (diffs, the file viewer): colours only
// from app.css variables, so editors follow the light and dark themes with the rest of the app.
// Views add their own sizes and decorations on top.
import { EditorView } from '@codemirror/view'

export const editorTheme = EditorView.theme({
  '&': { backgroundColor: 'var(--bg-elevated)', color: 'var(--text)' },
  '&.cm-focused': { outline: 'none' },
  '.cm-scroller': { fontFamily: 'var(--font-mono)' },
  '.cm-content': { caretColor: 'var(--text)' },
  '.cm-cursor': { borderLeftColor: 'var(--text)' },
  '.cm-gutters': { backgroundColor: 'var(--bg-panel)', color: 'var(--text-faint)', borderRight: '1px solid var(--border)' },
  '.cm-selectionBackground, &.cm-focused .cm-selectionBackground, ::selection': { backgroundColor: 'var(--accent-soft)' },
})
