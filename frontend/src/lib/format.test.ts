import { describe, expect, it } from 'vitest'
import { dialectName, filesChangedText, formatSize, relativeTime, someNames, splitCode, truncateMiddle } from './format'

describe('relativeTime', () => {
  const now = Date.parse('2025-06-15T12:00:00Z')
  const ago = (ms: number) => new Date(now - ms).toISOString()
  const min = 60_000
  const hour = 60 * min
  const day = 24 * hour

  it.each([
    [0, 'just now'],
    [59_000, 'just now'],
    [min, '1 minute ago'],
    [5 * min + 30_000, '5 minutes ago'],
    [hour, '1 hour ago'],
    [2 * hour + 10 * min, '2 hours ago'],
    [day, 'yesterday'],
    [3 * day, '3 days ago'],
    [7 * day, '1 week ago'],
    [20 * day, '2 weeks ago'],
    [45 * day, '1 month ago'],
    [400 * day, '1 year ago'],
    [3 * 365 * day, '3 years ago'],
  ])('%i ms ago reads %s', (elapsed, want) => {
    expect(relativeTime(ago(elapsed), now)).toBe(want)
  })

  it('treats a timestamp slightly in the future as just now', () => {
    expect(relativeTime(new Date(now + 5000).toISOString(), now)).toBe('just now')
  })

  it('returns an empty string for a value that is not a date', () => {
    expect(relativeTime('not a date', now)).toBe('')
    expect(relativeTime('', now)).toBe('')
  })
})

describe('formatSize', () => {
  it.each([
    [0, '0 B'],
    [999, '999 B'],
    [1000, '1.0 KB'],
    [1_536_000, '1.5 MB'],
    [4_683_087_332, '4.7 GB'],
    [19_000_000_000, '19 GB'],
    [2_000_000_000_000, '2.0 TB'],
  ])('%i bytes is %s', (bytes, want) => {
    expect(formatSize(bytes)).toBe(want)
  })

  it('returns an empty string for impossible sizes', () => {
    expect(formatSize(-1)).toBe('')
    expect(formatSize(Number.NaN)).toBe('')
  })
})

describe('truncateMiddle', () => {
  it('leaves short paths alone', () => {
    expect(truncateMiddle('/home/ada/proj', 40)).toBe('/home/ada/proj')
  })

  it('keeps the first folder and as many trailing folders as fit', () => {
    const path = '/home/ada/work/clients/acme/services/billing-api'
    const got = truncateMiddle(path, 36)
    expect(got).toBe('/home/…/acme/services/billing-api')
    expect(got.length).toBeLessThanOrEqual(36)
  })

  it('handles Windows paths', () => {
    expect(truncateMiddle('C:\\Users\\ada\\source\\repos\\shop\\frontend', 28)).toBe('C:\\…\\repos\\shop\\frontend')
  })

  it('cuts the last segment from the left when even head/…/last does not fit', () => {
    const got = truncateMiddle('/srv/an-extremely-long-project-folder-name', 20)
    expect(got).toBe('…project-folder-name')
    expect(got.length).toBe(20)
  })
})

describe('splitCode', () => {
  it('splits backticked spans into code parts', () => {
    expect(splitCode('Start it with `ollama serve`, then press Refresh.')).toEqual([
      { text: 'Start it with ', code: false },
      { text: 'ollama serve', code: true },
      { text: ', then press Refresh.', code: false },
    ])
  })

  it('handles several code spans and one at the start', () => {
    expect(splitCode('`ollama pull x` or `ollama list`')).toEqual([
      { text: 'ollama pull x', code: true },
      { text: ' or ', code: false },
      { text: 'ollama list', code: true },
    ])
  })

  it('keeps an unmatched backtick as plain text', () => {
    expect(splitCode('a `b` c `d')).toEqual([
      { text: 'a ', code: false },
      { text: 'b', code: true },
      { text: ' c `d', code: false },
    ])
  })

  it('never interprets markup', () => {
    expect(splitCode('<img src=x onerror=alert(1)>')).toEqual([{ text: '<img src=x onerror=alert(1)>', code: false }])
  })

  it('returns nothing for an empty hint', () => {
    expect(splitCode('')).toEqual([])
  })
})

import { duration, seconds } from './format'

describe('seconds and duration', () => {
  it.each([[200, '1s'], [8200, '8s'], [59_400, '59s'], [65_000, '1m 5s']])('seconds(%i) is %s', (ms, want) => {
    expect(seconds(ms)).toBe(want)
  })
  it.each([[0, ''], [12, '12ms'], [900, '900ms'], [1234, '1.2s'], [14_000, '14s'], [123_000, '2m 3s']])('duration(%i) is %s', (ms, want) => {
    expect(duration(ms)).toBe(want)
  })
})

describe('filesChangedText', () => {
  it('names a few files and counts the rest', () => {
    expect(someNames(['a.go'])).toBe('a.go')
    expect(someNames(['a.go', 'b.go'])).toBe('a.go and b.go')
    expect(someNames(['a', 'b', 'c'])).toBe('a, b and c')
    expect(someNames(['a', 'b', 'c', 'd', 'e'])).toBe('a, b, c and 2 more')
  })

  it('says what the model was told', () => {
    expect(filesChangedText({ changed: ['README.md'], deleted: [] })).toBe(
      'The model was told that README.md changed on disk since it last saw it.',
    )
    expect(filesChangedText({ changed: ['a.go', 'b.go'], deleted: ['notes.txt'] })).toBe(
      'The model was told that a.go and b.go changed on disk and notes.txt was deleted since it last saw them.',
    )
    expect(filesChangedText({ changed: [], deleted: ['x', 'y'] })).toBe('The model was told that x and y were deleted since it last saw them.')
  })
})

describe('dialectName', () => {
  it('names the forms people know and passes an unknown one through', () => {
    expect(dialectName('mistral')).toBe('Mistral [TOOL_CALLS]')
    expect(dialectName('harmony')).toBe('gpt-oss harmony')
    expect(dialectName('something-new')).toBe('something-new')
  })
})
