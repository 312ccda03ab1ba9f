// What the browser benchmarks share: a fake Ollama and a real `gantry serve` with their own
// folders, a project, and headless Chromium; stop() ends them all and removes the folders.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { chromium } from 'playwright-core'

const gantryBin = resolve(process.env.GANTRY_BIN ?? '../test-output/bin/gantry-serve')
const fakeBin = resolve(process.env.FAKE_OLLAMA_BIN ?? '../test-output/bin/fake-ollama')

/** Prints one row of bench.sh's table. */
export const line = (name, value, unit) => console.log(`${name}\t${value}\t${unit}`)

/** Starts everything; the page has the project open with model qwen3:4b chosen. */
export async function setUp({ instrument } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'gantry-bench-'))
  const children = []
  const start = (cmd, args, env, re) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    children.push(child)
    return new Promise((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`${cmd} did not start`)), 15_000)
      createInterface({ input: child.stdout }).on('line', (l) => {
        const m = re.exec(l)
        if (m) { clearTimeout(timer); ok(m[1]) }
      })
      child.on('exit', (code) => fail(new Error(`${cmd} exited with ${code}`)))
    })
  }
  let browser
  const stop = async () => {
    await browser?.close()
    for (const c of children) c.kill('SIGTERM')
    await new Promise((r) => setTimeout(r, 200))
    rmSync(root, { recursive: true, force: true })
  }
  try {
    const fakeScript = join(root, 'fake.json')
    writeFileSync(fakeScript, JSON.stringify({
      models: [{ name: 'qwen3:4b', arch: 'qwen3', contextLength: 40960, capabilities: ['completion', 'tools', 'thinking'] }],
    }))
    const fakeURL = await start(fakeBin, ['--listen', '127.0.0.1:0', '--script', fakeScript], {}, /^listening on (\S+)/)
    const configDir = join(root, 'config')
    mkdirSync(configDir)
    writeFileSync(join(configDir, 'settings.json'), JSON.stringify({ defaultModel: 'qwen3:4b' }))
    const url = await start(gantryBin, ['serve', '--listen', '127.0.0.1:0', '--data-dir', join(root, 'data'), '--config-dir', configDir],
      { OLLAMA_HOST: fakeURL.replace(/^http:\/\//, '') }, /ready at (\S+)/)
    const project = join(root, 'project')
    mkdirSync(project)
    writeFileSync(join(project, 'README.md'), '# Bench\n')

    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update'],
    })
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    if (instrument) await page.addInitScript(instrument)
    await page.goto(url)
    await page.evaluate((p) => window.dispatchEvent(new CustomEvent('gantry:filedrop', { detail: { paths: [p] } })), project)
    await page.getByRole('button', { name: 'Close project' }).waitFor({ timeout: 10_000 })

    /** Queues the fake's answers (its /_fake/turns control endpoint). */
    const queue = async (turns) => {
      const res = await fetch(`${fakeURL}/_fake/turns`, { method: 'POST', body: JSON.stringify(turns) })
      if (!res.ok) throw new Error(`fake Ollama refused the turns: ${res.status}`)
    }
    /** Sends a task the way a person does. */
    const send = async (text) => {
      const box = page.getByLabel('Task', { exact: true })
      await box.fill(text)
      await box.press('Enter')
    }
    return { page, project, queue, send, stop }
  } catch (err) {
    await stop()
    throw err
  }
}
