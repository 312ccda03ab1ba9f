import { afterAll, afterEach, expect, test } from 'vitest'
import { see } from './see'
import type { Page } from 'playwright-core'
import { stopAll, closeAll, openPage, shot, startFakeOllama, startGantry, tempDirs, unusedHost, type FakeOllama, type Gantry } from './harness'

let dirs: ReturnType<typeof tempDirs>
let gantry: Gantry | undefined
let fake: FakeOllama | undefined
let page: Page | undefined

afterEach(async () => {
  await stopAll({ page, gantry, fake, dirs })
  page = gantry = fake = undefined
})
afterAll(closeAll)

const indicator = () => page!.getByTestId('ollama-status')

test('reachable: version and installed models', async () => {
  fake = await startFakeOllama()
  dirs = tempDirs()
  gantry = await startGantry({ ...dirs, ollamaHost: fake.host })
  ;({ page } = await openPage(gantry.url))
  await see(indicator()).toContainText('Ollama 0.17.4 · 2 models')
  await indicator().click()
  const details = page.getByRole('dialog', { name: 'Ollama status' })
  await see(details).toContainText(fake.url)
  await see(details).toContainText('qwen3:4b')
  await see(details).toContainText('llama3.2:3b')
  await shot(page, 'ollama-reachable')
})

test('unreachable: host, error and how to start it; recovers by itself when the server starts', async () => {
  const host = await unusedHost()
  dirs = tempDirs()
  gantry = await startGantry({ ...dirs, ollamaHost: host })
  ;({ page } = await openPage(gantry.url))
  await see(indicator()).toContainText('unreachable')
  await indicator().click()
  const details = page.getByRole('dialog', { name: 'Ollama status' })
  await see(details).toContainText(host)
  await see(details).toContainText('refused')
  await see(details).toContainText('ollama serve')
  await shot(page, 'ollama-unreachable')

  // Start the server late on the same port: the backend re-checks every few seconds and the
  // page learns of it through the event stream, with no click.
  fake = await startFakeOllama(host)
  await see(indicator()).toContainText('Ollama 0.17.4 · 2 models', { timeout: 15_000 })
  await see(details).toContainText('qwen3:4b')

  // And the Refresh button notices it going away again.
  await fake.stop()
  await details.getByRole('button', { name: 'Refresh' }).click()
  await see(indicator()).toContainText('unreachable')
})
