// Approvals as the person answers them: what an edit card will send (chosen hunks or the
// person's own text), and the keyboard shortcuts that answer the oldest card on screen.
import { untrack } from 'svelte'
import { chat } from '../lib/api'
import { isMac } from '../lib/platform'
import type { ApprovalDecision, ApprovalView, DiffHunk } from '../lib/types'
import { messageOf } from './notices.svelte'

/**
 * The file an edit becomes when only the accepted hunks are applied to before: the same answer
 * the backend's diff.ApplyHunks gives, so the card can preview what Accept will write.
 */
export function applyHunks(before: string, hunks: DiffHunk[], accepted: ReadonlySet<number>): string {
  const lines = before.match(/[^\n]*\n|[^\n]+$/g) ?? []
  let out = ''
  let next = 0 // index of the first line of before not yet copied
  for (const h of hunks) {
    const firstOld = h.lines.find((l) => l.oldNumber > 0)?.oldNumber ?? h.oldStart + 1
    while (next < firstOld - 1 && next < lines.length) out += lines[next++]
    const take = accepted.has(h.id)
    for (const l of h.lines) {
      if (l.kind === 'context' || (l.kind === 'delete') !== take) out += l.text + l.eol
      if (l.oldNumber > 0) next = l.oldNumber
    }
  }
  while (next < lines.length) out += lines[next++]
  return out
}

/** An edit card's choices: which hunks to accept, or the person's own text for the file. */
export class EditProposal {
  accepted = $state<Set<number>>(new Set())
  editing = $state(false)
  /** The proposed side as the person left it while editing. */
  draft = $state('')

  constructor(readonly view: ApprovalView) {
    this.accepted = new Set(view.hunks.map((h) => h.id))
    this.draft = view.after
  }

  get total(): number {
    return this.view.hunks.length
  }

  /** What the proposed side shows: the person's text, or the proposal with the chosen hunks. */
  get shown(): string {
    if (this.editing) return this.draft
    return this.accepted.size === this.total ? this.view.after : applyHunks(this.view.before, this.view.hunks, this.accepted)
  }

  get edited(): boolean {
    return this.editing && this.draft !== this.view.after
  }

  /** "Accept", or "Accept 1 of 2 changes" when some are unticked. */
  get acceptLabel(): string {
    if (this.edited) return 'Accept my version'
    if (this.accepted.size === this.total || this.editing) return 'Accept'
    return `Accept ${this.accepted.size} of ${this.total} ${this.total === 1 ? 'change' : 'changes'}`
  }

  /** Accepting nothing is a rejection, which has its own button. */
  get canAccept(): boolean {
    return this.editing || this.accepted.size > 0
  }

  toggle(id: number) {
    const next = new Set(this.accepted)
    if (!next.delete(id)) next.add(id)
    this.accepted = next
  }

  /** Starts editing from what is shown, so unticked hunks stay out of the person's text. */
  edit() {
    this.draft = this.shown
    this.editing = true
  }

  reset() {
    this.editing = false
    this.accepted = new Set(this.view.hunks.map((h) => h.id))
    this.draft = this.view.after
  }

  accept(): ApprovalDecision {
    if (this.editing) return this.edited ? { allowed: true, content: this.draft } : { allowed: true }
    if (this.accepted.size === this.total) return { allowed: true }
    return { allowed: true, acceptedHunks: this.view.hunks.filter((h) => this.accepted.has(h.id)).map((h) => h.id) }
  }
}

/**
 * One card's answer on its way: a second click while it travels does nothing, and a refusal
 * (the backend says why) shows on the card, which stays. On success the card stays busy until
 * approvalResolved removes it.
 */
export class CardResponse {
  busy = $state(false)
  error = $state('')

  constructor(readonly id: string) {}

  async respond(d: ApprovalDecision) {
    if (this.busy) return
    this.busy = true
    this.error = ''
    try {
      await chat.respondApproval(this.id, d)
    } catch (err) {
      this.error = messageOf(err)
      this.busy = false
    }
  }
}

/** What a card on screen does for each shortcut; always is absent where it is not offered. */
export interface CardActions {
  element: () => HTMLElement | undefined
  allow: () => void
  deny: () => void
  always?: () => void
}

export type ShortcutAction = 'allow' | 'deny' | 'always'


/**
 * The keys for each platform: a label for the buttons and the aria-keyshortcuts value. Alt+letter
 * types nothing in the chat input on Linux and Windows; on a Mac Option+letter does, so Control
 * is held with it there.
 */
export function shortcutKeysFor(mac: boolean): Record<ShortcutAction, { label: string; aria: string; keys: string[] }> {
  const k = (letter: string) =>
    mac
      ? { label: `⌃⌥${letter}`, aria: `Control+Alt+${letter}`, keys: ['⌃', '⌥', letter] }
      : { label: `Alt+${letter}`, aria: `Alt+${letter}`, keys: ['Alt', letter] }
  return { allow: k('Y'), deny: k('N'), always: k('A') }
}

export const shortcutKeys = shortcutKeysFor(isMac)

const letters: Record<string, ShortcutAction> = { y: 'allow', n: 'deny', a: 'always' }

type KeyEvent = Pick<
  KeyboardEvent,
  'altKey' | 'ctrlKey' | 'metaKey' | 'shiftKey' | 'key' | 'isTrusted' | 'repeat' | 'isComposing' | 'preventDefault'
>

/**
 * Which action a key press asks for, or null. Matched on the character the key gives (e.key) so
 * that the letter printed on the key counts on every layout (AZERTY, QWERTZ); a dead key, an IME
 * composition, auto-repeat or any other modifier asks for nothing.
 */
export function shortcutAction(e: KeyEvent, mac: boolean): ShortcutAction | null {
  if (!e.isTrusted || e.repeat || e.isComposing || !e.altKey || e.metaKey || e.shiftKey) return null
  if (e.ctrlKey !== mac) return null // Ctrl+Alt is AltGr on Windows; on a Mac Control is required
  const key = e.key.length === 1 ? e.key.toLowerCase() : ''
  return Object.hasOwn(letters, key) ? letters[key] : null
}

/**
 * The cards waiting in the chat, oldest first. A shortcut answers the oldest one the person can
 * see in the chat's scroll area, never while a dialog is open; only a real key press does (a
 * synthetic event is ignored), so text the model wrote can never answer an approval.
 */
export class ApprovalShortcuts {
  cards = $state<{ id: string; actions: CardActions }[]>([])
  /** Bumped when the chat scrolls or the window resizes, so the target is worked out again. */
  #moved = $state(0)
  #listening = false

  constructor(
    readonly mac = isMac,
    /** Whether a dialog (Settings, the shortcuts help…) is open: the keys are then its own. */
    readonly dialogOpen = () => typeof document !== 'undefined' && document.querySelector('dialog[open]') !== null,
  ) {}

  /** The card the shortcuts answer (it shows the keys on its buttons), or "". */
  get target(): string {
    void this.#moved
    return this.cards.find((c) => onScreen(c.actions.element()))?.id ?? ''
  }

  /** Adds a card; untracked, so a component may call it from an effect without depending on the list. */
  register(id: string, actions: CardActions): () => void {
    return untrack(() => this.add(id, actions))
  }

  private add(id: string, actions: CardActions): () => void {
    if (!this.#listening && typeof window !== 'undefined') {
      // Capture: the chat input keeps focus and must not see the key first.
      window.addEventListener('keydown', (e) => this.handle(e), true)
      let queued = false
      const moved = () => {
        if (queued) return
        queued = true
        requestAnimationFrame(() => {
          queued = false
          this.#moved++
        })
      }
      window.addEventListener('scroll', moved, { capture: true, passive: true })
      window.addEventListener('resize', moved, { passive: true })
      this.#listening = true
    }
    this.cards.push({ id, actions })
    return () => {
      this.cards = this.cards.filter((c) => c.id !== id)
    }
  }

  /** Handles a keydown; true when it answered a card. */
  handle(e: KeyEvent): boolean {
    const which = shortcutAction(e, this.mac)
    if (!which || this.dialogOpen()) return false
    const target = this.target
    const act = this.cards.find((c) => c.id === target)?.actions[which]
    if (!act) return false
    e.preventDefault()
    act()
    return true
  }
}

/** Whether a card shows at least partly inside the chat's scroll area (or the window). */
function onScreen(el: HTMLElement | undefined): boolean {
  if (!el?.isConnected) return false
  if (typeof el.checkVisibility === 'function' && !el.checkVisibility()) return false
  if (typeof el.getBoundingClientRect !== 'function') return true
  const r = el.getBoundingClientRect()
  if (r.height <= 0) return false
  const area = el.closest?.('[data-chat-scroll]')?.getBoundingClientRect() ?? {
    top: 0,
    bottom: typeof window !== 'undefined' ? window.innerHeight : Infinity,
  }
  return r.bottom > area.top && r.top < area.bottom
}

export const approvalShortcuts = new ApprovalShortcuts()

/** Why an edit asks, in plain words, from the sensitive-file pattern that matched it. */
export function sensitiveReason(pattern: string | undefined): string {
  const p = pattern ?? ''
  const kinds: [RegExp, string][] = [
    [/(^|\/)\.git\//, 'it is inside the .git folder, where a bad edit can corrupt the repository history'],
    [/\.env|\.envrc|\.netrc|npmrc|pypirc|\.pem|\.key|\.crt|\.cer|\.p12|\.pfx|jks|keystore|\.ppk|id_|\.ssh/, 'it may hold passwords, keys or other secrets'],
    [/lock|shrinkwrap|go\.sum/, 'it is a lock file, which decides exactly what gets installed'],
    [/workflows|gitlab-ci|circleci|Jenkinsfile|pipelines|travis/, 'it configures CI, which runs with your project’s credentials'],
    [/sqlite|\.db$/, 'it is a database, which an edit can destroy'],
  ]
  const why = kinds.find(([re]) => re.test(p))?.[1]
  const rule = p ? `the sensitive-file rule “${p}”` : 'a sensitive-file rule'
  return why ? `Sensitive file: ${why} (${rule}). Check the change before accepting.` : `Sensitive file: it matches ${rule} in Settings, so edits to it always ask. Check the change before accepting.`
}
