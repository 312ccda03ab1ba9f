// How diffs are laid out, side by side or unified: one choice for every diff in the app,
// remembered across restarts.

export type DiffLayout = 'split' | 'unified'

const storageKey = 'gantry.diffLayout'

/** The part of Storage the store needs; tests pass a Map-backed one. */
export type LayoutStorage = Pick<Storage, 'getItem' | 'setItem'>

function browserStorage(): LayoutStorage | undefined {
  try {
    return globalThis.localStorage ?? undefined
  } catch {
    return undefined // storage can be switched off; the choice then lasts for the session only
  }
}

export class DiffLayoutStore {
  layout = $state<DiffLayout>('split')

  constructor(private readonly storage: LayoutStorage | undefined = browserStorage()) {
    const saved = this.read()
    if (saved === 'split' || saved === 'unified') this.layout = saved
  }

  set(layout: DiffLayout) {
    this.layout = layout
    try {
      this.storage?.setItem(storageKey, layout)
    } catch {
      // A full or refused storage only costs remembering the choice.
    }
  }

  private read(): string | null {
    try {
      return this.storage?.getItem(storageKey) ?? null
    } catch {
      return null
    }
  }
}

export const diffLayout = new DiffLayoutStore()
