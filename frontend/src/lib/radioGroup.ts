// Keyboard for a role="radiogroup" of buttons, as native radios behave: one tab stop (the checked
// one, else the first), arrows move the choice with the focus, wrapping; Home and End jump.

/** The option an arrow/Home/End key picks, or null for any other key. */
export function nextRadio<T>(key: string, ids: readonly T[], current: T): T | null {
  if (!ids.length) return null
  const at = Math.max(0, ids.indexOf(current))
  switch (key) {
    case 'ArrowRight':
    case 'ArrowDown':
      return ids[(at + 1) % ids.length]
    case 'ArrowLeft':
    case 'ArrowUp':
      return ids[(at - 1 + ids.length) % ids.length]
    case 'Home':
      return ids[0]
    case 'End':
      return ids[ids.length - 1]
    default:
      return null
  }
}

/** The tabindex of an option: only the checked one (or the first when none is) is a tab stop. */
export function radioTabIndex<T>(id: T, ids: readonly T[], current: T): 0 | -1 {
  return id === current || (!ids.includes(current) && id === ids[0]) ? 0 : -1
}

/** Handles a keydown on the group: chooses the next option and moves the focus to it. */
export function radioKeydown<T>(e: KeyboardEvent, ids: readonly T[], current: T, choose: (id: T) => void) {
  if (e.altKey || e.ctrlKey || e.metaKey) return
  const radios = [...(e.currentTarget as HTMLElement).querySelectorAll<HTMLElement>('[role="radio"]')]
  // From the focused option: a choice still being saved has not reached current yet.
  const focused = radios.indexOf(document.activeElement as HTMLElement)
  const from = focused >= 0 ? ids[focused] : current
  const next = nextRadio(e.key, ids, from)
  if (next === null) return
  e.preventDefault()
  if (next !== current) choose(next)
  radios[ids.indexOf(next)]?.focus()
}
