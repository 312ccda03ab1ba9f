import { afterEach, describe, expect, it, vi } from 'vitest'

// A stand-in for the browser's observer: the test says which elements come into view.
class FakeObserver {
  static made: FakeObserver[] = []
  watched = new Set<Element>()
  constructor(readonly report: (entries: Partial<IntersectionObserverEntry>[]) => void) {
    FakeObserver.made.push(this)
  }
  observe(el: Element) {
    this.watched.add(el)
  }
  unobserve(el: Element) {
    this.watched.delete(el)
  }
  show(...els: Element[]) {
    this.report(els.map((target) => ({ target, isIntersecting: true })))
  }
}

describe('whenNearView', () => {
  afterEach(() => vi.unstubAllGlobals())

  it('calls each element back once, when it comes into view, through one observer for all', async () => {
    vi.stubGlobal('IntersectionObserver', FakeObserver)
    vi.resetModules()
    const { whenNearView } = await import('./inView')
    const [a, b, c] = [{}, {}, {}] as Element[]
    const seen: string[] = []
    whenNearView(a, () => seen.push('a'))
    whenNearView(b, () => seen.push('b'))
    const stopC = whenNearView(c, () => seen.push('c'))
    expect(FakeObserver.made).toHaveLength(1)
    const observer = FakeObserver.made[0]

    observer.report([{ target: a, isIntersecting: false }])
    await Promise.resolve()
    expect(seen).toEqual([])
    observer.show(a)
    observer.show(a)
    await Promise.resolve()
    expect(seen).toEqual(['a'])
    expect(observer.watched.has(a)).toBe(false)

    // One removed before it came into view is never called.
    stopC()
    expect(observer.watched.has(c)).toBe(false)
    observer.show(b, c)
    await Promise.resolve()
    expect(seen).toEqual(['a', 'b'])
    expect(observer.watched.size).toBe(0)
  })

  it('calls each element back on its own: one that throws stops no other', async () => {
    vi.stubGlobal('IntersectionObserver', FakeObserver)
    vi.resetModules()
    FakeObserver.made = []
    const { whenNearView } = await import('./inView')
    const [a, b] = [{}, {}] as Element[]
    const seen: string[] = []
    const thrown: unknown[] = []
    vi.stubGlobal('queueMicrotask', (fn: () => void) =>
      Promise.resolve().then(() => {
        try {
          fn()
        } catch (err) {
          thrown.push(err)
        }
      }),
    )
    whenNearView(a, () => {
      throw new Error('a broke')
    })
    whenNearView(b, () => seen.push('b'))
    FakeObserver.made[0].show(a, b)
    await vi.waitFor(() => expect(seen).toEqual(['b']))
    expect(thrown).toEqual([new Error('a broke')])
  })
})
