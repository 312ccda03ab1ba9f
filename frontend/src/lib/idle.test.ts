import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { settledWithin } from './idle'

describe('settledWithin', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  const watch = (p: Promise<void>) => {
    const state = { done: false }
    void p.then(() => (state.done = true))
    return state
  }

  it('resolves as soon as the work settles, fulfilled or rejected, and leaves no timer behind', async () => {
    let answer!: () => void
    const ok = watch(settledWithin(new Promise<void>((r) => (answer = r)), 100))
    await vi.advanceTimersByTimeAsync(10)
    expect(ok.done).toBe(false)
    answer()
    await vi.advanceTimersByTimeAsync(0)
    expect(ok.done).toBe(true)
    expect(vi.getTimerCount()).toBe(0)

    const failed = watch(settledWithin(Promise.reject(new Error('no')), 100))
    await vi.advanceTimersByTimeAsync(0)
    expect(failed.done).toBe(true)
  })

  it('resolves after the time given when the work goes on', async () => {
    const hung = watch(settledWithin(new Promise(() => {}), 100))
    await vi.advanceTimersByTimeAsync(99)
    expect(hung.done).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(hung.done).toBe(true)
  })
})
