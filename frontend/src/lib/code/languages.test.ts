import { describe, expect, it } from 'vitest'
import { hasLanguage, loadLanguage } from './languages'

describe('languages', () => {
  it('finds languages by extension and by fence name', async () => {
    expect(hasLanguage('src/main.go')).toBe(true)
    expect(hasLanguage('python')).toBe(true)
    expect(hasLanguage('notes.txt')).toBe(false)
    expect(await loadLanguage('a.json')).not.toBeNull()
  })

  it('treats files named like Object.prototype members as plain text', async () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'x.constructor', 'src/__proto__', 'x.__proto__']) {
      expect(hasLanguage(name), name).toBe(false)
      const p = loadLanguage(name) // a promise, never a throw
      expect(p).toBeInstanceOf(Promise)
      expect(await p, name).toBeNull()
    }
  })
})
