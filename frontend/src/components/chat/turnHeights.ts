// A turn out of view is neither laid out nor painted (MessageList's .slot has content-visibility:
// auto), so a reopened long conversation lays out only what shows. Until a skipped turn has been
// laid out once, the browser gives it a guessed height, and WebKitGTK (the desktop window) does
// not anchor scrolling: the real height arriving as the person scrolls up to that turn would move
// what they are reading. measureTurnHeights lays each such turn out once in the background, a few
// at a time while the page is idle, keeps its real height as its size while skipped, and holds
// the scroll position on what is shown meanwhile where the browser does not.
import { whenIdle } from '../../lib/idle'

/** Whether the browser keeps what is in view in place when content above it changes size
 * (Chromium does; WebKitGTK 2.50 does not): moving the scroll position as well would move it
 * twice. */
const anchors = typeof CSS !== 'undefined' && CSS.supports('overflow-anchor', 'auto')

/** Turns laid out per idle moment: a few milliseconds of layout each. */
const batch = 8

/**
 * Measures the slots (content's children) not measured yet, newest first: the turns just above
 * the view are the next the person scrolls to. following says the view sticks to the bottom,
 * which then moves by itself. A change of width measures them all again. Returns a stop.
 */
export function measureTurnHeights(scroller: HTMLElement, content: HTMLElement, following: () => boolean): () => void {
  let cancel = whenIdle(step, 50)
  let width = content.clientWidth
  const resized = new ResizeObserver(() => {
    if (content.clientWidth === width) return
    width = content.clientWidth
    for (const slot of slots()) delete slot.dataset.measured
    cancel()
    cancel = whenIdle(step, 50)
  })
  resized.observe(content)
  return () => {
    cancel()
    resized.disconnect()
  }

  function slots(): HTMLElement[] {
    return [...content.children].filter((c): c is HTMLElement => c instanceof HTMLElement)
  }

  function step() {
    const todo = slots()
      .filter((s) => !s.dataset.measured)
      .slice(-batch)
    if (!todo.length) return
    const style = getComputedStyle(todo[0])
    const padding = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom)
    const view = scroller.getBoundingClientRect()
    const before = todo.map((s) => s.getBoundingClientRect())
    // A turn in view is laid out already, its height is what it shows. Switching its
    // containment off and on again would make it skipped until the next frame decides it is in
    // view again: its text would be missing meanwhile.
    const hidden = todo.filter((_, i) => before[i].bottom <= view.top || before[i].top >= view.bottom)
    for (const s of hidden) s.classList.add('measuring')
    // Reading the heights lays the batch out, in this task: nothing is painted in between.
    const heights = todo.map((s) => s.getBoundingClientRect().height)
    let shift = 0
    todo.forEach((s, i) => {
      s.style.containIntrinsicSize = `auto ${heights[i] - padding}px`
      s.classList.remove('measuring')
      s.dataset.measured = 'true'
      if (before[i].bottom <= view.top) shift += heights[i] - before[i].height
    })
    if (shift && !anchors && !following()) scroller.scrollTop += shift
    cancel = whenIdle(step, 50)
  }
}
