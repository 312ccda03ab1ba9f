// Messages the user should see and can dismiss. "open" notices belong to opening a folder and are
// shown next to the drop zone (or under the top bar); "app" notices are banners across the window.

export type NoticeKind = 'error' | 'warning'
export type NoticeScope = 'open' | 'app'

export interface Notice {
  id: number
  kind: NoticeKind
  scope: NoticeScope
  text: string
}

export class NoticeStore {
  items = $state<Notice[]>([])
  #nextId = 1

  /** Shows text in scope, replacing an identical notice rather than stacking duplicates. */
  push(kind: NoticeKind, scope: NoticeScope, text: string): number {
    this.items = this.items.filter((n) => !(n.scope === scope && n.text === text))
    const id = this.#nextId++
    this.items.push({ id, kind, scope, text })
    return id
  }

  dismiss(id: number) {
    this.items = this.items.filter((n) => n.id !== id)
  }

  clear(scope: NoticeScope) {
    this.items = this.items.filter((n) => n.scope !== scope)
  }

  in(scope: NoticeScope): Notice[] {
    return this.items.filter((n) => n.scope === scope)
  }
}

export const notices = new NoticeStore()

/** The message of anything thrown by an api call. */
export function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message
  return String(err)
}
