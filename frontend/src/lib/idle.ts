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
