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

/** Resolves at the next frame (at once where there are no frames: no requestAnimationFrame). */
export function nextFrame(): Promise<void> {
  if (typeof requestAnimationFrame !== 'function') return Promise.resolve()
  return new Promise((resolve) => requestAnimationFrame(() => resolve()))
}
