// The CodeMirror side of DiffView: a side-by-side MergeView or a unified editor over one change,
// coloured only through app.css variables so it follows the light and dark themes.
import { MergeView, unifiedMergeView } from '@codemirror/merge'
import { Compartment, EditorState, type Extension } from '@codemirror/state'
import { EditorView, lineNumbers } from '@codemirror/view'
import { codeHighlighting } from '../../lib/code/highlight'
import { editorTheme } from '../../lib/code/theme'
import type { DiffLayout } from '../../stores/diffLayout.svelte'

// The diff's own colours on top of the shared editor look.
const diffTheme = EditorView.theme({
  '&': { fontSize: 'var(--fs-xs)' },
  '.cm-scroller': { lineHeight: '1.6' },
  '.cm-content': { padding: '2px 0' },
  '.cm-lineNumbers .cm-gutterElement': { minWidth: '28px', padding: '0 6px 0 4px' },
  '&.cm-merge-a .cm-changedLine, .cm-deletedChunk': { backgroundColor: 'color-mix(in srgb, var(--bad) 9%, transparent)' },
  '&.cm-merge-b .cm-changedLine, .cm-inlineChangedLine': { backgroundColor: 'color-mix(in srgb, var(--ok) 11%, transparent)' },
  '&.cm-merge-a .cm-changedText, .cm-deletedChunk .cm-deletedText': {
    background: 'color-mix(in srgb, var(--bad) 24%, transparent)',
  },
  '&.cm-merge-b .cm-changedText': { background: 'color-mix(in srgb, var(--ok) 26%, transparent)' },
  '.cm-deletedChunk': { paddingLeft: '6px' },
  '.cm-insertedLine, .cm-deletedLine, .cm-deletedLine del': { textDecoration: 'none' },
  '&.cm-merge-a .cm-changedLineGutter, .cm-deletedLineGutter': { background: 'var(--bad)' },
  '&.cm-merge-b .cm-changedLineGutter': { background: 'var(--ok)' },
  '.cm-collapsedLines': {
    padding: '3px 8px',
    background: 'var(--bg-sunken)',
    color: 'var(--text-muted)',
    fontFamily: 'var(--font-ui)',
    fontSize: 'var(--fs-xs)',
  },
})

/** The parts of an editor that change after it is built. */
export interface DiffCompartments {
  language: Compartment
  editable: Compartment
}

function sideExtensions(c: DiffCompartments, editable: Extension, onChange?: (text: string) => void): Extension[] {
  return [
    lineNumbers(),
    codeHighlighting,
    editorTheme,
    diffTheme,
    c.language.of([]),
    c.editable.of(editable),
    onChange ? EditorView.updateListener.of((u) => u.docChanged && onChange(u.state.doc.toString())) : [],
  ]
}

/** The proposed side: read-only, or open to the person's typing (an approval card's Edit). */
export function editableExtensions(editable: boolean): Extension {
  return [
    EditorState.readOnly.of(!editable),
    EditorView.editable.of(editable),
    EditorView.contentAttributes.of({ 'aria-label': editable ? 'Proposed text, editable' : 'Proposed text' }),
  ]
}

const beforeSide = [
  EditorState.readOnly.of(true),
  EditorView.editable.of(false),
  EditorView.contentAttributes.of({ 'aria-label': 'Text before the change' }),
]

const collapse = { margin: 3, minSize: 4 }

/** The built editor: the view holding the proposed side, and how to take it down. */
export interface DiffEditor {
  /** The editor of the proposed (after) side. */
  proposed: EditorView
  /** Every editor, for reconfiguring all at once. */
  views: EditorView[]
  destroy(): void
}

export function buildDiffEditor(
  parent: HTMLElement,
  layout: DiffLayout,
  before: string,
  after: string,
  c: DiffCompartments,
  editable: boolean,
  onChange: (text: string) => void,
): DiffEditor {
  if (layout === 'split') {
    const merge = new MergeView({
      parent,
      a: { doc: before, extensions: sideExtensions({ language: c.language, editable: new Compartment() }, beforeSide) },
      b: { doc: after, extensions: sideExtensions(c, editableExtensions(editable), onChange) },
      collapseUnchanged: collapse,
      gutter: true,
    })
    return { proposed: merge.b, views: [merge.a, merge.b], destroy: () => merge.destroy() }
  }
  const view = new EditorView({
    parent,
    doc: after,
    extensions: [
      sideExtensions(c, editableExtensions(editable), onChange),
      unifiedMergeView({ original: before, mergeControls: false, collapseUnchanged: collapse, gutter: true }),
    ],
  })
  return { proposed: view, views: [view], destroy: () => view.destroy() }
}
