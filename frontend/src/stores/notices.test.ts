import { describe, expect, it } from 'vitest'
import { BackendError } from '../lib/bridge'
import { messageOf, NoticeStore } from './notices.svelte'

describe('NoticeStore', () => {
  it('keeps notices per scope and dismisses one by id', () => {
    const store = new NoticeStore()
    const a = store.push('error', 'open', 'That folder no longer exists')
    store.push('warning', 'app', 'settings.json was invalid')
    expect(store.in('open').map((n) => n.text)).toEqual(['That folder no longer exists'])
    store.dismiss(a)
    expect(store.in('open')).toEqual([])
    expect(store.in('app')).toHaveLength(1)
  })

  it('shows the same message once, as the newest', () => {
    const store = new NoticeStore()
    store.push('error', 'open', 'A')
    store.push('error', 'open', 'B')
    store.push('error', 'open', 'A')
    expect(store.in('open').map((n) => n.text)).toEqual(['B', 'A'])
  })

  it('clears one scope only', () => {
    const store = new NoticeStore()
    store.push('error', 'open', 'A')
    store.push('warning', 'app', 'B')
    store.clear('open')
    expect(store.items.map((n) => n.text)).toEqual(['B'])
  })
})

describe('messageOf', () => {
  it('takes the message of errors and stringifies anything else', () => {
    expect(messageOf(new BackendError('permission denied'))).toBe('permission denied')
    expect(messageOf('plain string')).toBe('plain string')
  })
})
