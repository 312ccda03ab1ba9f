import { describe, expect, it } from 'vitest'
import { endsInOpenFence } from './codeBlocks'

describe('endsInOpenFence', () => {
  it('sees a code block whose closing fence is not written yet', () => {
    expect(endsInOpenFence('Here:\n```ts\nconst a = 1')).toBe(true)
    expect(endsInOpenFence('Here:\n```ts\nconst a = 1\n```')).toBe(false)
    expect(endsInOpenFence('Here:\n```ts\nconst a = 1\n```\nand\n~~~\nmore')).toBe(true)
    expect(endsInOpenFence('no code at all')).toBe(false)
  })

  it('closes a fence only with the same character, at least as long, and nothing after it', () => {
    expect(endsInOpenFence('````md\n```\ninner\n```\n')).toBe(true) // a shorter fence is content
    expect(endsInOpenFence('````md\n```\ninner\n```\n````')).toBe(false)
    expect(endsInOpenFence('~~~\n```\n')).toBe(true)
    expect(endsInOpenFence('```\ncode\n``` not a close\n')).toBe(true)
    expect(endsInOpenFence('inline ```code``` in a line')).toBe(false)
    expect(endsInOpenFence('```js `weird`\nnot a fence')).toBe(false)
  })
})
