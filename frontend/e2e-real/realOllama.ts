// A real Ollama server for the browser tests of scripts/ollama-integration.sh: the binary it
// built (OLLAMA_BIN), on a free loopback port, with its own model folder holding models made from
// the tiny random-weight GGUF (GANTRY_TEST_GGUF). The Modelfiles match integration/realollama.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const models = {
  /** No tools capability; a stop sequence ends its gibberish after a few dozen tokens. */
  text: 'tiny-text:latest',
  /** num_predict 8 and no stop: every answer is cut. */
  short: 'tiny-short:latest',
  /** Streams for many seconds: time to kill the server in the middle. */
  long: 'tiny-long:latest',
}

const template = '{{ if .System }}{{ .System }}\n{{ end }}{{ range .Messages }}{{ .Role }}: {{ .Content }}\n{{ end }}assistant: '

function modelfile(gguf: string, params: string[]): string {
  return [`FROM ${gguf}`, ...params.map((p) => `PARAMETER ${p}`), `TEMPLATE """${template}"""`, ''].join('\n')
}

export function required(name: string): string {
  const v = process.env[name]
  if (!v) throw new Error(`${name} is not set: run these tests with scripts/ollama-integration.sh`)
  return v
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout!.on('data', (d) => (out += d))
    child.stderr!.on('data', (d) => (out += d))
    child.on('error', reject)
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')}: exit ${code}: ${out}`))))
  })
}

export class RealOllama {
  /** host:port, as OLLAMA_HOST and the Settings field take it. */
  host = ''
  private child: ChildProcess | null = null
  private log = ''

  private constructor(
    private bin: string,
    private modelsDir: string,
  ) {}

  /** Starts a server with the suite's models. */
  static async start(): Promise<RealOllama> {
    const o = new RealOllama(required('OLLAMA_BIN'), mkdtempSync(join(tmpdir(), 'gantry-real-ollama-')))
    o.host = `127.0.0.1:${await freePort()}`
    await o.restart()
    try {
      await o.createModels(required('GANTRY_TEST_GGUF'))
    } catch (e) {
      await o.dispose()
      throw e
    }
    return o
  }

  private async createModels(gguf: string) {
    for (const [name, params] of [
      [models.text, ['stop "q"', 'num_predict 1000']],
      [models.short, ['num_predict 8']],
      [models.long, ['num_predict 20000']],
    ] as const) {
      const file = join(this.modelsDir, `${name.replace(/\W/g, '-')}.Modelfile`)
      writeFileSync(file, modelfile(gguf, [...params]))
      await run(this.bin, ['create', name, '-f', file], this.env())
    }
  }

  private env(): NodeJS.ProcessEnv {
    return { OLLAMA_HOST: this.host, OLLAMA_MODELS: this.modelsDir, HOME: this.modelsDir, OLLAMA_NOPRUNE: '1' }
  }

  /** Starts the server (again) on the same port and model folder; resolves once it answers. */
  async restart() {
    if (this.child) throw new Error('the Ollama server is already running')
    this.log = ''
    // Its own process group (detached), so kill() also takes the model runner it starts.
    const child = spawn(this.bin, ['serve'], { env: { ...process.env, ...this.env() }, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    this.child = child
    // A test process that dies without its afterAll must not leave the server behind.
    const orphanGuard = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // gone already
      }
    }
    process.once('exit', orphanGuard)
    child.once('exit', () => process.off('exit', orphanGuard))
    child.stdout!.on('data', (d) => (this.log += d))
    child.stderr!.on('data', (d) => (this.log += d))
    child.on('exit', () => {
      if (this.child === child) this.child = null
    })
    const deadline = Date.now() + 30_000
    for (;;) {
      try {
        const res = await fetch(`http://${this.host}/api/version`)
        if (res.ok) return
      } catch {
        // not listening yet
      }
      if (!this.child) throw new Error(`the Ollama server exited at start: ${this.log}`)
      if (Date.now() > deadline) throw new Error(`the Ollama server did not answer within 30 s: ${this.log}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }

  /** SIGKILL to the server and its runner: a crash. */
  kill() {
    return this.signal('SIGKILL', 0)
  }

  /** SIGTERM, then SIGKILL after 5 s; nothing when already stopped. */
  stop() {
    return this.signal('SIGTERM', 5_000)
  }

  private async signal(sig: NodeJS.Signals, graceMs: number) {
    const child = this.child
    if (!child || child.pid === undefined) return
    const exited = new Promise<void>((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', () => r())))
    const group = (s: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, s)
      } catch {
        // the group is gone already
      }
    }
    group(sig)
    if (graceMs) await Promise.race([exited, new Promise((r) => setTimeout(r, graceMs))])
    group('SIGKILL')
    await exited
    this.child = null
  }

  /** Stops the server and removes its model folder. */
  async dispose() {
    await this.stop()
    rmSync(this.modelsDir, { recursive: true, force: true })
  }
}
