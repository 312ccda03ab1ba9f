import { describe, expect, it } from 'vitest'
import { DiffLayoutStore, type LayoutStorage } from './diffLayout.svelte'

const memory = (): LayoutStorage & { data: Map<string, string> } => {
  const data = new Map<string, string>()
  return { data, getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, v) }
}

describe('DiffLayoutStore', () => {
  it('starts side by side and remembers the choice for the next start', () => {
    const storage = memory()
    const first = new DiffLayoutStore(storage)
    expect(first.layout).toBe('split')
    first.set('unified')
    expect(first.layout).toBe('unified')
    expect(new DiffLayoutStore(storage).layout).toBe('unified')
  })

  it('ignores a stored value it does not know, and storage that fails', () => {
    const storage = memory()
    storage.data.set('gantry.diffLayout', 'diagonal')
    expect(new DiffLayoutStore(storage).layout).toBe('split')

    const broken: LayoutStorage = {
      getItem: () => { throw new Error('denied') },
      setItem: () => { throw new Error('full') },
    }
    const s = new DiffLayoutStore(broken)
    s.set('unified')
    expect(s.layout).toBe('unified')
    expect(new DiffLayoutStore(undefined).layout).toBe('split')
  })
})
