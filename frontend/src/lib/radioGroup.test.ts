import { describe, expect, it } from 'vitest'
import { nextRadio, radioTabIndex } from './radioGroup'

describe('radio groups', () => {
  const ids = ['system', 'light', 'dark'] as const

  it('moves with the arrows, wrapping, and jumps with Home and End', () => {
    expect(nextRadio('ArrowRight', ids, 'system')).toBe('light')
    expect(nextRadio('ArrowDown', ids, 'dark')).toBe('system')
    expect(nextRadio('ArrowLeft', ids, 'system')).toBe('dark')
    expect(nextRadio('ArrowUp', ids, 'light')).toBe('system')
    expect(nextRadio('End', ids, 'system')).toBe('dark')
    expect(nextRadio('Home', ids, 'dark')).toBe('system')
    expect(nextRadio('Tab', ids, 'dark')).toBeNull()
    expect(nextRadio(' ', ids, 'dark')).toBeNull()
  })

  it('has one tab stop: the checked option, else the first', () => {
    expect(ids.map((id) => radioTabIndex(id, ids, 'light'))).toEqual([-1, 0, -1])
    expect(ids.map((id) => radioTabIndex(id, ids, 'other' as never))).toEqual([0, -1, -1])
  })
})
