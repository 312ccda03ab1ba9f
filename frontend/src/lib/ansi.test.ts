import { describe, expect, it } from 'vitest'
import { stripAnsi } from './ansi'

describe('stripAnsi', () => {
  it('removes colours, cursor moves and titles', () => {
    expect(stripAnsi('\x1b[1;32mok\x1b[0m  \x1b[2Kdone\x1b]0;title\x07!')).toBe('ok  done!')
  })
  it('keeps the last write of a line rewritten with carriage returns', () => {
    expect(stripAnsi('10%\r50%\r100%\nnext\r\n')).toBe('100%\nnext\n')
  })
})
