// UI responsiveness while the model streams, for `make bench` (scripts/bench-ui.sh): a real
// `gantry serve`, fake Ollama streaming ~500 tokens/s for ~10 s, headless Chromium.
// Prints "name<TAB>value<TAB>unit" lines:
//   long frames   requestAnimationFrame intervals over two frames (33.3 ms) while the answer streams;
//   latency       for every 25th token (a marker like MK12Z): from the SSE message carrying it
//                 arriving in the page (EventSource wrapped by an init script) to the first frame
//                 whose DOM text contains it, taken after that frame's paint (a message posted
//                 from requestAnimationFrame runs once the frame is painted).
// Usage: GANTRY_BIN=… FAKE_OLLAMA_BIN=… node bench/stream.mjs
import { line, setUp } from './setup.mjs'

const tokens = 5000
const tokensPerSecond = 500
const markerEvery = 25
// Go's timers oversleep by a fraction of a millisecond, so 4 tokens per 8 ms chunk stay nearer
// the target rate than 1 token per 2 ms.
const tokensPerChunk = 4

// Words with a marker every markerEvery tokens and a paragraph break now and then, so the
// markdown renderer sees a realistic answer rather than one endless line.
function answerChunks() {
  const words = ['the', 'agent', 'reads', 'files', 'and', 'then', 'explains', 'what', 'changed', 'here']
  const chunks = []
  for (let i = 0; i < tokens; i++) {
    let w = i % markerEvery === 0 ? `MK${i / markerEvery}Z` : words[i % words.length]
    if (i % 120 === 119) w += '.\n\n'
    if (i % tokensPerChunk === 0) chunks.push({ content: '' })
    chunks[chunks.length - 1].content += w + ' '
  }
  chunks.push({ content: 'Done. [TASK_COMPLETE]' })
  return chunks
}

// Runs in the page before its own scripts.
function instrument() {
  const bench = { frames: [], arrivals: {}, seen: {}, messages: 0, firstMarker: 0, lastMarker: 0 }
  const pending = new Set()
  window.__bench = bench
  const Native = window.EventSource
  window.EventSource = class extends Native {
    set onmessage(fn) {
      super.onmessage = (msg) => {
        const t = performance.now()
        bench.messages++
        for (const m of msg.data.matchAll(/MK(\d+)Z/g)) {
          if (m[1] in bench.arrivals) continue
          bench.arrivals[m[1]] = t
          pending.add(m[1])
          bench.firstMarker ||= t
          bench.lastMarker = t
        }
        fn.call(this, msg)
      }
    }
    get onmessage() { return super.onmessage }
  }
  const frame = (ts) => {
    bench.frames.push(ts)
    if (pending.size) {
      const text = document.body.textContent ?? ''
      const found = [...pending].filter((id) => text.includes(`MK${id}Z`))
      if (found.length) {
        for (const id of found) pending.delete(id)
        const ch = new MessageChannel()
        ch.port1.onmessage = () => { const t = performance.now(); for (const id of found) bench.seen[id] = t }
        ch.port2.postMessage(0)
      }
    }
    requestAnimationFrame(frame)
  }
  requestAnimationFrame(frame)
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]

const { page, queue, send, stop } = await setUp({ instrument })
try {
  await queue([{ chunkDelayMs: (1000 * tokensPerChunk) / tokensPerSecond, chunks: answerChunks() }])
  await send('Explain the project at length')
  await page.locator('[data-testid="run-status"][data-status="done"]').waitFor({ timeout: 60_000 })
  await page.waitForTimeout(300)

  const b = await page.evaluate(() => window.__bench)
  const frames = b.frames.filter((t) => t >= b.firstMarker && t <= b.lastMarker)
  const intervals = frames.slice(1).map((t, i) => t - frames[i])
  const long = intervals.filter((d) => d > 2 * 1000 / 60)
  const lat = Object.keys(b.arrivals).filter((id) => id in b.seen).map((id) => b.seen[id] - b.arrivals[id]).sort((x, y) => x - y)
  const secs = (b.lastMarker - b.firstMarker) / 1000
  const markers = Object.keys(b.arrivals).length
  line('stream length (first to last marker)', secs.toFixed(1), 's')
  line('tokens/s reaching the page', ((markers - 1) * markerEvery / secs).toFixed(0), '')
  line('SSE messages', b.messages, '')
  line('frames painted while streaming', frames.length, `(${(frames.length / secs).toFixed(0)}/s)`)
  line('long frames (> 33 ms)', long.length, `(${(100 * long.length / Math.max(1, intervals.length)).toFixed(1)}% of intervals)`)
  line('longest frame', Math.max(0, ...intervals).toFixed(0), 'ms')
  line('chunk-to-screen latency p50', pct(lat, 50)?.toFixed(0) ?? '-', 'ms')
  line('chunk-to-screen latency p95', pct(lat, 95)?.toFixed(0) ?? '-', 'ms')
  line('markers seen on screen', `${lat.length}/${markers}`, '')
} finally {
  await stop()
}
