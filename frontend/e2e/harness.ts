// Starts the real pieces for a browser test: fake Ollama (a process speaking Ollama's protocol),
// `gantry serve` with its own data and config folders, and a headless Chromium page.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { chromium, type Browser, type Page } from 'playwright-core'
import { TestRunner } from 'vitest'

const gantryBin = resolve(process.env.GANTRY_BIN ?? '../test-output/bin/gantry-serve')
const fakeBin = resolve(process.env.FAKE_OLLAMA_BIN ?? '../test-output/bin/fake-ollama')
export const shotsDir = resolve(process.env.SHOTS_DIR ?? '../test-output/e2e')

const children = new Set<ChildProcess>()

/** Starts a command and resolves with the first stdout line matching re (its capture group). */
function startAndWait(cmd: string, args: string[], env: NodeJS.ProcessEnv, re: RegExp): Promise<{ child: ChildProcess; match: string }> {
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  children.add(child)
  child.on('exit', () => children.delete(child))
  let stderr = ''
  child.stderr!.on('data', (d) => (stderr += d))
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`${cmd} did not start: ${stderr}`)), 15_000)
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = re.exec(line)
      if (m) {
        clearTimeout(timer)
        resolvePromise({ child, match: m[1] })
      }
    })
    child.on('exit', (code) => reject(new Error(`${cmd} exited with ${code}: ${stderr}`)))
  })
}

export async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((r) => child.once('exit', r))
  child.kill('SIGTERM')
  await exited
}

export interface FakeOllama {
  url: string
  /** host:port, as OLLAMA_HOST or the Settings field take it. */
  host: string
  child: ChildProcess
  stop(): Promise<void>
}

export const defaultModels = [
  { name: 'qwen3:4b', arch: 'qwen3', contextLength: 40960, capabilities: ['completion', 'tools', 'thinking'], parameterSize: '4.0B', quantization: 'Q4_K_M', size: 2_497_293_931 },
  { name: 'llama3.2:3b', arch: 'llama', contextLength: 131072, capabilities: ['completion', 'tools'], parameterSize: '3.2B', quantization: 'Q4_K_M', size: 2_019_393_189 },
]

/**
 * The app asks a model for one tool call when it is picked (its tool check, whose prompt names
 * get_weather); this standing answer, a native call, keeps the check from taking a turn a test
 * queued for a run.
 */
export const toolCheckRule = {
  contains: 'get_weather',
  turn: { chunks: [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }] },
}

export async function startFakeOllama(listen = '127.0.0.1:0', models = defaultModels): Promise<FakeOllama> {
  const dir = mkdtempSync(join(tmpdir(), 'gantry-fake-'))
  const script = join(dir, 'script.json')
  writeFileSync(script, JSON.stringify({ version: '0.17.4', models, rules: [toolCheckRule] }))
  const { child, match } = await startAndWait(fakeBin, ['--listen', listen, '--script', script], {}, /^listening on (\S+)/)
  return { url: match, host: match.replace(/^http:\/\//, ''), child, stop: () => stop(child) }
}

/** A free loopback port nobody listens on (taken from a fake Ollama that is then stopped). */
export async function unusedHost(): Promise<string> {
  const f = await startFakeOllama()
  await f.stop()
  return f.host
}

export interface Gantry {
  url: string
  dataDir: string
  configDir: string
  child: ChildProcess
  stop(): Promise<void>
}

export function tempDirs() {
  const root = mkdtempSync(join(tmpdir(), 'gantry-e2e-'))
  const dataDir = join(root, 'data')
  const configDir = join(root, 'config')
  mkdirSync(configDir, { recursive: true })
  return { root, dataDir, configDir, cleanup: () => rmSync(root, { recursive: true, force: true }) }
}

export async function startGantry(opts: { dataDir: string; configDir: string; ollamaHost?: string }): Promise<Gantry> {
  const env: NodeJS.ProcessEnv = { OLLAMA_HOST: opts.ollamaHost ?? '127.0.0.1:9' }
  const { child, match } = await startAndWait(
    gantryBin,
    ['serve', '--listen', '127.0.0.1:0', '--data-dir', opts.dataDir, '--config-dir', opts.configDir],
    env,
    /ready at (\S+)/,
  )
  return { url: match, dataDir: opts.dataDir, configDir: opts.configDir, child, stop: () => stop(child) }
}

let browser: Browser | null = null

export async function openPage(url: string, colorScheme: 'light' | 'dark' = 'light'): Promise<{ page: Page; errors: string[] }> {
  browser ??= await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme })
  await context.addInitScript(recordWorkspaceChanges)
  const page = await context.newPage()
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()) })
  await page.goto(url)
  return { page, errors }
}

declare global {
  interface Window {
    /** The paths of every workspaceChanged event the page has received, in order (see below). */
    __workspaceChanges?: string[][]
  }
}

/**
 * Runs in the page before the app: records the paths of each workspaceChanged event the app
 * receives. The recording listener is added before the app sets its own, and both run in the
 * same task, so once a path is recorded the app has handled that event and every earlier one.
 */
function recordWorkspaceChanges() {
  const seen: string[][] = (window.__workspaceChanges = [])
  const Native = window.EventSource
  window.EventSource = class extends Native {
    constructor(url: string | URL, init?: EventSourceInit) {
      super(url, init)
      this.addEventListener('message', (m) => {
        const e = JSON.parse(m.data)
        if (e.type === 'workspaceChanged') seen.push(e.payload.paths)
      })
    }
  }
}

let syncs = 0

/**
 * Waits until the page has handled the file watcher's reports of everything written in the
 * open project so far (the run's own edits, reported after a debounce, may still be on their
 * way when the run shows as done). It writes a new file and waits for its report: the watcher
 * reports in order, so every earlier change has reached the page by then. A panel or tree that
 * started reading again because of them shows aria-busy until the read is in.
 */
export async function watcherCaughtUp(page: Page, project: string) {
  const name = `.e2e-sync-${++syncs}`
  writeFileSync(join(project, name), '')
  await page.waitForFunction((n) => window.__workspaceChanges?.some((paths) => paths.includes(n)), name, { timeout: 10_000 })
}

/** What a drop on the desktop window does: the platform hands the page paths. */
export async function dropPaths(page: Page, paths: string[]) {
  await page.evaluate((p) => window.dispatchEvent(new CustomEvent('gantry:filedrop', { detail: { paths: p } })), paths)
}

export async function shot(page: Page, name: string) {
  mkdirSync(shotsDir, { recursive: true })
  await page.screenshot({ path: join(shotsDir, `${name}.png`) })
}

/** Types a task into the chat input and sends it with Enter, as a person would. */
export async function sendTask(page: Page, text: string) {
  const box = page.getByLabel('Task', { exact: true })
  await box.fill(text)
  await box.press('Enter')
}

export async function closeAll() {
  await browser?.close()
  browser = null
  await Promise.all([...children].map(stop))
}

/** What one test started; `stopAll` takes it down after the test (whatever got started). */
export interface Started {
  page?: Page
  gantry?: Gantry
  fake?: FakeOllama
  dirs?: ReturnType<typeof tempDirs>
}

export async function stopAll(s: Started) {
  if (s.page && !s.page.isClosed() && TestRunner.getCurrentTest()?.result?.state === 'fail') await keepFailure(s.page)
  await s.page?.context().close()
  await s.gantry?.stop()
  await s.fake?.stop()
  s.dirs?.cleanup()
}

/**
 * A failed test leaves what the page showed and held (a screenshot and the DOM) in
 * SHOTS_DIR/failed/, named after the test, so a failure seen once in CI can be understood later.
 */
async function keepFailure(page: Page) {
  const name = (TestRunner.getCurrentTest()?.name ?? 'unknown').replace(/[^\w.-]+/g, '-').slice(0, 80)
  const dir = join(shotsDir, 'failed')
  mkdirSync(dir, { recursive: true })
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true }).catch(() => {})
  const html = await page.content().catch((err) => `could not read the page: ${err}`)
  writeFileSync(join(dir, `${name}.html`), html)
  console.error(`failed test: screenshot and DOM in ${dir}/${name}.{png,html}`)
}

/** Lets the turns and loads the fake holds on name (a turn's hold, the script's holdLoads) go on. */
export async function release(fake: FakeOllama, name: string) {
  const res = await fetch(`${fake.url}/_fake/release`, { method: 'POST', body: JSON.stringify({ name }) })
  if (!res.ok) throw new Error(`fake Ollama refused the release: HTTP ${res.status} ${await res.text()}`)
}

/** Replaces the fake's whole script (models, turns, rules, holds); the tool check's rule is kept. */
export async function setScript(fake: FakeOllama, script: Record<string, unknown>) {
  const res = await fetch(`${fake.url}/_fake/script`, {
    method: 'POST',
    body: JSON.stringify({ version: '0.17.4', models: defaultModels, rules: [toolCheckRule], ...script }),
  })
  if (!res.ok) throw new Error(`fake Ollama refused the script: HTTP ${res.status} ${await res.text()}`)
}

/** Queues scripted answers in a running fake Ollama (its /_fake/turns control endpoint). */
export async function queueTurns(fake: FakeOllama, turns: unknown[]) {
  const res = await fetch(`${fake.url}/_fake/turns`, { method: 'POST', body: JSON.stringify(turns) })
  if (!res.ok) throw new Error(`fake Ollama refused the turns: HTTP ${res.status} ${await res.text()}`)
}

/** Lets the fake's turns held on name answer (Turn.hold). */
export async function releaseTurns(fake: FakeOllama, name: string) {
  const res = await fetch(`${fake.url}/_fake/release`, { method: 'POST', body: JSON.stringify({ name }) })
  if (!res.ok) throw new Error(`fake Ollama refused the release: HTTP ${res.status} ${await res.text()}`)
}

/** Opens a project the way a drop on the window does, and waits for the workspace view. */
export async function openProject(page: Page, path: string) {
  await dropPaths(page, [path])
  await page.getByRole('button', { name: 'Close project' }).waitFor({ state: 'visible', timeout: 10_000 })
}

/** What the app sent back to the model as tool results, oldest first (from the fake's last /api/chat request). */
export async function toolResults(fake: FakeOllama): Promise<string[]> {
  const res = await fetch(`${fake.url}/_fake/requests`)
  const requests = (await res.json()) as { messages?: { role: string; content: string }[] }[]
  const last = requests.at(-1)?.messages ?? []
  return last.filter((m) => m.role === 'tool').map((m) => m.content)
}
