// One IntersectionObserver for every element waiting to come into view: a reopened 60-run
// session has a review panel per run, and an observer each was some 10% of building its turns
// (issue 18).

const waiting = new Map<Element, () => void>()
let observer: IntersectionObserver | undefined

/**
 * Calls seen once el comes within 300px of the viewport (at once if it is there already).
 * Returns a stop, for an element removed before that.
 */
export function whenNearView(el: Element, seen: () => void): () => void {
  observer ??= new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        const fn = waiting.get(e.target)
        if (!e.isIntersecting || !fn) continue
        stop(e.target)
        queueMicrotask(fn) // on its own: one that throws stops no other
      }
    },
    { rootMargin: '300px 0px' },
  )
  waiting.set(el, seen)
  observer.observe(el)
  return () => stop(el)
}

function stop(el: Element) {
  if (waiting.delete(el)) observer?.unobserve(el)
}
