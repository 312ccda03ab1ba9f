/**
 * Runs fn once the page is idle, or after fallbackMs where there is no requestIdleCallback
 * (WebKitGTK, the desktop window, has none). Returns a cancel.
 */
export function whenIdle(fn: () => void, fallbackMs: number): () => void {
  if (typeof requestIdleCallback === 'function') {
    const id = requestIdleCallback(fn, { timeout: 2 * fallbackMs })
    return () => cancelIdleCallback(id)
  }
  const id = setTimeout(fn, fallbackMs)
  return () => clearTimeout(id)
}

/** Resolves when work settles (fulfilled or rejected) or after ms, whichever is first. */
export function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))
  const done = work.then(
    () => {},
    () => {},
  )
  return Promise.race([done, late]).finally(() => clearTimeout(timer))
}
