import { describe, expect, it, vi } from 'vitest'
import type { ApprovalView, DiffHunk } from '../lib/types'
import { applyHunks, ApprovalShortcuts, EditProposal, sensitiveReason, shortcutAction, shortcutKeysFor } from './approvals.svelte'

// Hunks as the backend's diff.Hunks makes them, and what its diff.ApplyHunks answers.
const before = 'a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n'
const after = 'a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nL\nm\n'
const line = (kind: 'context' | 'add' | 'delete', oldNumber: number, newNumber: number, text: string, eol = '\n') => ({
  kind, oldNumber, newNumber, text, eol,
})
const hunks: DiffHunk[] = [
  { id: 0, oldStart: 1, oldLines: 5, newStart: 1, newLines: 5, lines: [
    line('context', 1, 1, 'a'), line('delete', 2, 0, 'b'), line('add', 0, 2, 'B'),
    line('context', 3, 3, 'c'), line('context', 4, 4, 'd'), line('context', 5, 5, 'e')] },
  { id: 1, oldStart: 9, oldLines: 4, newStart: 9, newLines: 5, lines: [
    line('context', 9, 9, 'i'), line('context', 10, 10, 'j'), line('context', 11, 11, 'k'),
    line('delete', 12, 0, 'l'), line('add', 0, 12, 'L'), line('add', 0, 13, 'm')] },
]
const view: ApprovalView = { card: { id: 'c1', kind: 'edit', path: 'a.txt', existed: true }, before, after, hunks }

describe('applyHunks', () => {
  it('gives what the backend writes for each choice of hunks', () => {
    expect(applyHunks(before, hunks, new Set([0]))).toBe('a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n')
    expect(applyHunks(before, hunks, new Set([1]))).toBe('a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nL\nm\n')
    expect(applyHunks(before, hunks, new Set([0, 1]))).toBe(after)
    expect(applyHunks(before, hunks, new Set())).toBe(before)
  })

  it('keeps CRLF line ends and a last line without one, and builds a new file', () => {
    const crlf: DiffHunk[] = [{ id: 0, oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [
      line('context', 1, 1, 'x', '\r\n'), line('delete', 2, 0, 'y', '\r\n'), line('add', 0, 2, 'Y', '\r\n'), line('context', 3, 3, 'z', '')] }]
    expect(applyHunks('x\r\ny\r\nz', crlf, new Set([0]))).toBe('x\r\nY\r\nz')
    const created: DiffHunk[] = [{ id: 0, oldStart: 0, oldLines: 0, newStart: 1, newLines: 2, lines: [
      line('add', 0, 1, 'new'), line('add', 0, 2, 'file')] }]
    expect(applyHunks('', created, new Set([0]))).toBe('new\nfile\n')
  })
})

describe('EditProposal', () => {
  it('accepts everything by default, and names the hunks left when some are unticked', () => {
    const p = new EditProposal(view)
    expect(p.acceptLabel).toBe('Accept')
    expect(p.accept()).toEqual({ allowed: true })
    p.toggle(1)
    expect(p.acceptLabel).toBe('Accept 1 of 2 changes')
    expect(p.shown).toBe(applyHunks(before, hunks, new Set([0])))
    expect(p.accept()).toEqual({ allowed: true, acceptedHunks: [0] })
    p.toggle(0)
    expect(p.canAccept).toBe(false)
  })

  it('sends the person\'s text once edited, and Reset goes back to the proposal', () => {
    const p = new EditProposal(view)
    p.toggle(1)
    p.edit()
    expect(p.draft).toBe(applyHunks(before, hunks, new Set([0])))
    expect(p.accept()).toEqual({ allowed: true, content: p.draft }) // the unticked hunk stays out
    p.draft = 'mine\n'
    expect(p.acceptLabel).toBe('Accept my version')
    expect(p.accept()).toEqual({ allowed: true, content: 'mine\n' })
    p.reset()
    expect(p.editing).toBe(false)
    expect(p.shown).toBe(after)
    expect(p.accept()).toEqual({ allowed: true })
  })

  it('sends plain Accept when editing left the proposal as it was', () => {
    const p = new EditProposal(view)
    p.edit()
    expect(p.accept()).toEqual({ allowed: true })
  })
})

describe('ApprovalShortcuts', () => {
  // A key press on Linux/Windows (Alt+letter) as the browser reports it: e.key is what the key types.
  const key = (k: string, over: Partial<KeyboardEvent> = {}) => ({
    key: k, altKey: true, ctrlKey: false, metaKey: false, shiftKey: false, isTrusted: true, repeat: false, isComposing: false,
    preventDefault: vi.fn(), ...over,
  })
  // In Node there is no DOM: a card counts as on screen when it has an element that is connected.
  const el = (connected = true) => ({ isConnected: connected }) as HTMLElement
  const actions = (connected = true) => ({ element: () => el(connected), allow: vi.fn(), deny: vi.fn(), always: vi.fn() })
  const noDialog = () => false

  it('answers the oldest card on screen, and only for a real Alt+key press', () => {
    const s = new ApprovalShortcuts(false, noDialog)
    const hidden = actions(false)
    const first = actions()
    const second = actions()
    s.register('hidden', hidden)
    const unregister = s.register('first', first)
    s.register('second', second)
    expect(s.target).toBe('first')

    expect(s.handle(key('y', { isTrusted: false }))).toBe(false)
    expect(s.handle(key('y', { altKey: false }))).toBe(false)
    expect(s.handle(key('y', { ctrlKey: true }))).toBe(false) // AltGr on Windows
    expect(s.handle(key('y', { repeat: true }))).toBe(false)
    expect(s.handle(key('y', { isComposing: true }))).toBe(false)
    expect(s.handle(key('q'))).toBe(false)
    expect(first.allow).not.toHaveBeenCalled()

    const e = key('y')
    expect(s.handle(e)).toBe(true)
    expect(e.preventDefault).toHaveBeenCalled()
    expect(first.allow).toHaveBeenCalledOnce()
    expect(hidden.allow).not.toHaveBeenCalled()

    unregister()
    expect(s.target).toBe('second')
    s.handle(key('n'))
    expect(second.deny).toHaveBeenCalledOnce()
    s.handle(key('A')) // Caps Lock on
    expect(second.always).toHaveBeenCalledOnce()
  })

  it('goes by the letter on the key, whatever the layout', () => {
    const s = new ApprovalShortcuts(false, noDialog)
    const card = actions()
    s.register('c', card)
    // AZERTY: the key labelled Q sits where QWERTY has A; it types q and must not "always allow".
    expect(s.handle(key('q', { code: 'KeyA' } as Partial<KeyboardEvent>))).toBe(false)
    expect(card.always).not.toHaveBeenCalled()
    // QWERTZ: Z sits where QWERTY has Y, and Y where Z is.
    expect(s.handle(key('z', { code: 'KeyY' } as Partial<KeyboardEvent>))).toBe(false)
    expect(s.handle(key('y', { code: 'KeyZ' } as Partial<KeyboardEvent>))).toBe(true)
    expect(card.allow).toHaveBeenCalledOnce()
    // A layout whose letters are not Latin types no shortcut letter.
    expect(s.handle(key('н'))).toBe(false)
  })

  it('on a Mac wants Control+Option, so typing ñ or å with Option answers nothing', () => {
    const s = new ApprovalShortcuts(true, noDialog)
    const card = actions()
    s.register('c', card)
    expect(s.handle(key('Dead', { code: 'KeyN' } as Partial<KeyboardEvent>))).toBe(false) // Option+N starts ñ
    expect(s.handle(key('å'))).toBe(false) // Option+A
    expect(s.handle(key('n'))).toBe(false) // Option alone, even when the key reports the letter
    expect(card.deny).not.toHaveBeenCalled()
    expect(card.always).not.toHaveBeenCalled()
    expect(s.handle(key('n', { ctrlKey: true, metaKey: true }))).toBe(false)
    expect(s.handle(key('n', { ctrlKey: true }))).toBe(true)
    expect(card.deny).toHaveBeenCalledOnce()
  })

  it('does nothing while a dialog is open (the card is behind it)', () => {
    let open = true
    const s = new ApprovalShortcuts(false, () => open)
    const card = actions()
    s.register('c', card)
    expect(s.handle(key('n'))).toBe(false)
    expect(card.deny).not.toHaveBeenCalled()
    open = false
    expect(s.handle(key('n'))).toBe(true)
  })

  it('targets only a card inside the chat\'s visible area', () => {
    const s = new ApprovalShortcuts(false, noDialog)
    const area = { top: 100, bottom: 500 }
    const at = (top: number, height = 80) =>
      ({
        isConnected: true,
        getBoundingClientRect: () => ({ top, bottom: top + height, height }),
        closest: () => ({ getBoundingClientRect: () => area }),
      }) as unknown as HTMLElement
    const above = { ...actions(), element: () => at(-200) }
    const shown = { ...actions(), element: () => at(450) }
    s.register('above', above) // scrolled out of view: the older card, but not the one on screen
    s.register('shown', shown)
    expect(s.target).toBe('shown')
    s.handle(key('y'))
    expect(shown.allow).toHaveBeenCalledOnce()
    expect(above.allow).not.toHaveBeenCalled()
  })

  it('offers no Alt+A where the card has no "always" (critical commands, sensitive files)', () => {
    const s = new ApprovalShortcuts(false, noDialog)
    const critical = { ...actions(), always: undefined }
    s.register('c', critical)
    expect(s.handle(key('a'))).toBe(false)
    expect(critical.allow).not.toHaveBeenCalled()
  })

  it('shows the keys of each platform', () => {
    expect(shortcutKeysFor(false).allow).toEqual({ label: 'Alt+Y', aria: 'Alt+Y', keys: ['Alt', 'Y'] })
    expect(shortcutKeysFor(true).deny.aria).toBe('Control+Alt+N')
    expect(shortcutKeysFor(true).deny.label).toBe('⌃⌥N')
    expect(shortcutAction(key('y'), false)).toBe('allow')
    expect(shortcutAction(key('y'), true)).toBeNull()
  })
})

describe('sensitiveReason', () => {
  it('says in plain words which rule matched and why it matters', () => {
    expect(sensitiveReason('.env')).toContain('secrets')
    expect(sensitiveReason('.env')).toContain('“.env”')
    expect(sensitiveReason('**/.git/**')).toContain('.git folder')
    expect(sensitiveReason('package-lock.json')).toContain('lock file')
    expect(sensitiveReason('.github/workflows/**')).toContain('CI')
    expect(sensitiveReason('docs/private/*')).toContain('“docs/private/*” in Settings')
  })
})
