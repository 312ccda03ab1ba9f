// The only place that knows how to reach the Go backend. In the Wails window, bound methods live
// on window.go and events arrive through window.runtime; in browser mode (`gantry serve`) calls go
// over HTTP and events over Server-Sent Events. Components use the typed wrappers in api.ts.
import type { GantryEvent } from './events'

interface WailsRuntime {
  EventsOn(name: string, cb: (...data: unknown[]) => void): () => void
  OnFileDrop(cb: (x: number, y: number, paths: string[]) => void, useDropTarget: boolean): void
  OnFileDropOff(): void
}

type Bound = Record<string, Record<string, Record<string, (...args: unknown[]) => Promise<unknown>>>>

declare global {
  interface Window {
    go?: Bound
    runtime?: WailsRuntime
  }
}

/** The Go package holding the bound services (Wails names bindings window.go.<package>.<Struct>). */
const goPackage = 'app'
/** The single Wails event name every Gantry event is posted under, which keeps them in order. */
export const eventChannel = 'gantry:event'
/** Browser mode: a drop cannot reveal folder paths, so tests and tools dispatch this instead. */
export const dropEventName = 'gantry:filedrop'

export type Mode = 'desktop' | 'browser'

export function mode(): Mode {
  return typeof window !== 'undefined' && window.go ? 'desktop' : 'browser'
}

const tokenKey = 'gantry-token'

/** Browser mode: the server's random token arrives once in the URL; keep it for this tab. */
export function browserToken(): string {
  const fromUrl = new URLSearchParams(window.location.search).get('token')
  if (fromUrl) {
    sessionStorage.setItem(tokenKey, fromUrl)
    const clean = new URL(window.location.href)
    clean.searchParams.delete('token')
    window.history.replaceState(null, '', clean)
    return fromUrl
  }
  return sessionStorage.getItem(tokenKey) ?? ''
}

/** An error from the backend, with the message Go returned. */
export class BackendError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'BackendError'
  }
}

export async function call<T>(service: string, method: string, ...args: unknown[]): Promise<T> {
  if (mode() === 'desktop') {
    const fn = window.go?.[goPackage]?.[service]?.[method]
    if (!fn) throw new BackendError(`${service}.${method} is not bound`)
    try {
      return (await fn(...args)) as T
    } catch (err) {
      throw new BackendError(typeof err === 'string' ? err : String((err as Error)?.message ?? err))
    }
  }
  let res: Response
  try {
    res = await fetch(`/rpc/${service}/${method}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Gantry-Token': browserToken() },
      body: JSON.stringify(args),
    })
  } catch {
    throw new BackendError('Lost the connection to Gantry. Is `gantry serve` still running?')
  }
  const body = await res.json().catch(() => null)
  if (!res.ok) throw new BackendError(body?.error ?? `${service}.${method} failed (HTTP ${res.status})`)
  return body as T
}

type Handler = (e: GantryEvent) => void
const handlers = new Set<Handler>()
let started = false

function dispatch(e: GantryEvent) {
  for (const h of handlers) h(e)
}

function startEvents() {
  if (started) return
  started = true
  if (mode() === 'desktop') {
    window.runtime?.EventsOn(eventChannel, (e) => dispatch(e as GantryEvent))
    return
  }
  // EventSource reconnects by itself after the server restarts or the network blips.
  const source = new EventSource(`/events?token=${encodeURIComponent(browserToken())}`)
  source.onmessage = (msg) => dispatch(JSON.parse(msg.data) as GantryEvent)
}

/** Subscribe to every backend event, in the order the backend emitted them. */
export function onEvent(handler: Handler): () => void {
  startEvents()
  handlers.add(handler)
  return () => handlers.delete(handler)
}

/** Calls handler with the paths dropped on the window (the OS gives real paths only in the desktop app). */
export function onPathsDropped(handler: (paths: string[]) => void): () => void {
  const fromEvent = (e: Event) => handler((e as CustomEvent<{ paths: string[] }>).detail.paths)
  window.addEventListener(dropEventName, fromEvent)
  if (mode() === 'desktop') {
    window.runtime?.OnFileDrop((_x, _y, paths) => handler(paths), false)
  }
  return () => {
    window.removeEventListener(dropEventName, fromEvent)
    if (mode() === 'desktop') window.runtime?.OnFileDropOff()
  }
}
