import { describe, expect, it } from 'vitest'
import type { GantryEvent } from '../lib/events'
import { latestReviewRun } from './reviewPrefetch'

let seq = 0
const ev = (type: string, runId: string, payload: unknown): GantryEvent =>
  ({ id: `e${++seq}`, seq, sessionId: 's1', runId, type, payload, time: '' }) as GantryEvent
const changed = [{ path: 'a.go', status: 'pending', change: 'modified', added: 1, removed: 0 }]
const started = (runId: string, subagent?: unknown) => ev('runStarted', runId, { text: runId, subagent })
const finished = (runId: string, filesChanged: unknown) => ev('runFinished', runId, { status: 'done', message: '', filesChanged })

describe('latestReviewRun', () => {
  it("names the latest run when it ended having changed files, as the latest turn's panel shows", () => {
    expect(latestReviewRun([started('r1'), finished('r1', null), started('r2'), finished('r2', changed)])).toBe('r2')
  })

  it('names none when the latest run changed nothing, is still going, or there is no run', () => {
    expect(latestReviewRun([started('r1'), finished('r1', changed), started('r2'), finished('r2', [])])).toBe('')
    expect(latestReviewRun([started('r1'), finished('r1', changed), started('r2')])).toBe('')
    expect(latestReviewRun([])).toBe('')
  })

  it("skips subagents' runs, shown inside their parent's turn", () => {
    const sub = { parentRunId: 'r1', actionId: 'a1' }
    expect(latestReviewRun([started('r1'), started('s1', sub), finished('s1', []), finished('r1', changed)])).toBe('r1')
    expect(latestReviewRun([started('r1'), finished('r1', changed), started('s2', { ...sub, taskId: 't1' }), finished('s2', [])])).toBe('r1')
  })
})
