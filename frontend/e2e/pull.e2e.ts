// Downloading a model from Settings: Ollama's /api/pull (the fake's, scripted with a library
// and a delay between progress lines) streamed to every window as a progress bar.
import { afterAll, afterEach, expect, test } from 'vitest'
import type { Locator, Page } from 'playwright-core'
import { see } from './see'
import { makeProject } from './fixtures'
import { closeAll, defaultModels, openPage, openProject, shot, startFakeOllama, startGantry, stopAll, tempDirs, toolCheckRule, type FakeOllama, type Gantry } from './harness'

let dirs: ReturnType<typeof tempDirs>
let gantry: Gantry | undefined
let fake: FakeOllama | undefined
let page: Page | undefined
let other: Page | undefined

afterEach(async () => {
  await other?.context().close()
  await stopAll({ page, gantry, fake, dirs })
  page = other = gantry = fake = undefined
})
afterAll(closeAll)

const library = [
  { name: 'qwen2.5-coder:7b', arch: 'qwen2', capabilities: ['completion', 'tools'], parameterSize: '7.6B', quantization: 'Q4_K_M', size: 4_683_087_332 },
  { name: 'phi3:mini', arch: 'phi3', capabilities: ['completion'], parameterSize: '3.8B', quantization: 'Q4_0', size: 2_176_178_913 },
]

/** Starts fake Ollama and Gantry. Downloads stop halfway through the model until `release()`, so
 * the test looks at (or cancels) one in progress for as long as it needs, however slow the machine. */
async function start(pullDelayMs: number) {
  fake = await startFakeOllama()
  const res = await fetch(`${fake.url}/_fake/script`, {
    method: 'POST',
    body: JSON.stringify({ version: '0.17.4', models: defaultModels, library, pullDelayMs, pullHold: true, rules: [toolCheckRule] }),
  })
  expect(res.ok).toBe(true)
  dirs = tempDirs()
  gantry = await startGantry({ ...dirs, ollamaHost: fake.host })
}

/** Lets the held downloads finish. */
async function release() {
  const res = await fetch(`${fake!.url}/_fake/pulls/release`, { method: 'POST' })
  expect(res.ok).toBe(true)
}

async function modelsSection(p: Page): Promise<Locator> {
  await p.getByRole('button', { name: 'Settings' }).first().click()
  const dialog = p.getByRole('dialog', { name: 'Settings' })
  await dialog.getByRole('tab', { name: 'Models' }).click()
  await see(dialog.getByRole('table')).toBeVisible()
  return dialog
}

async function download(dialog: Locator, name: string) {
  await dialog.getByLabel('Model to download').fill(name)
  await dialog.getByRole('button', { name: 'Download' }).click()
}

test('a model downloads with a progress bar in every window, then is listed and offered in the chat', async () => {
  await start(200)
  ;({ page } = await openPage(gantry!.url))
  await openProject(page, makeProject())
  await see(page.getByLabel('Model')).toHaveValue('llama3.2:3b')
  ;({ page: other } = await openPage(gantry!.url, 'dark'))

  const dialog = await modelsSection(page)
  const otherDialog = await modelsSection(other)
  await see(dialog.getByRole('table').getByRole('row')).toHaveCount(3)
  await download(dialog, 'qwen2.5-coder:7b')

  const bar = dialog.getByRole('progressbar', { name: 'Downloading qwen2.5-coder:7b' })
  await see(bar).toBeVisible()
  await see(dialog.getByTestId('pull')).toContainText('Downloading…')
  // Part way: the bar moves and the bytes show, in both windows.
  await expect.poll(async () => Number(await bar.getAttribute('aria-valuenow')), { timeout: 10_000 }).toBeGreaterThan(10)
  await see(dialog.getByTestId('pull')).toContainText(' / 4.7 GB')
  await see(otherDialog.getByRole('progressbar', { name: 'Downloading qwen2.5-coder:7b' })).toBeVisible()
  await shot(page, 'pull-progress')

  await release()
  await see(dialog.getByTestId('pull')).toHaveAttribute('data-state', 'done', { timeout: 20_000 })
  await see(bar).toHaveAttribute('aria-valuenow', '100')
  await see(dialog.getByTestId('pull')).toContainText('100%')
  await see(otherDialog.getByTestId('pull')).toHaveAttribute('data-state', 'done')

  const row = dialog.getByRole('row').filter({ hasText: 'qwen2.5-coder:7b' })
  await see(row).toBeVisible()
  await see(row).toContainText('7.6B')
  await see(row).toContainText('Q4_K_M')
  await see(row).toContainText('native')
  await see(otherDialog.getByRole('row').filter({ hasText: 'qwen2.5-coder:7b' })).toBeVisible()
  await shot(page, 'pull-done')

  await dialog.getByRole('button', { name: 'Done' }).click()
  await see(page.getByTestId('ollama-status')).toContainText('3 models')
  await expect.poll(() => page!.getByLabel('Model').locator('option').allTextContents()).toContain('qwen2.5-coder:7b')
  await page.getByLabel('Model').selectOption('qwen2.5-coder:7b')
})

test('an unknown name fails plainly, and a download can be cancelled', async () => {
  await start(250)
  ;({ page } = await openPage(gantry!.url))
  const dialog = await modelsSection(page)

  await download(dialog, 'no-such-model:1b')
  const failed = dialog.getByTestId('pull').filter({ hasText: 'no-such-model:1b' })
  await see(failed).toHaveAttribute('data-state', 'failed')
  await see(failed.getByRole('alert')).toContainText('Ollama could not find a model named "no-such-model:1b"')

  await download(dialog, 'two words')
  await see(dialog.getByRole('alert').filter({ hasText: 'no spaces' })).toBeVisible()

  await download(dialog, 'phi3:mini')
  const pull = dialog.getByTestId('pull').filter({ hasText: 'phi3:mini' })
  await expect
    .poll(async () => Number(await pull.getByRole('progressbar').getAttribute('aria-valuenow')), { timeout: 10_000 })
    .toBeGreaterThan(0)
  await shot(page, 'pull-failed-and-running')
  await pull.getByRole('button', { name: 'Cancel' }).click()
  await see(pull).toHaveAttribute('data-state', 'cancelled')
  await see(pull).toContainText('Cancelled')
  const tags = (await (await fetch(`${fake!.url}/api/tags`)).json()) as { models: { name: string }[] }
  expect(tags.models.map((m) => m.name)).not.toContain('phi3:mini')
  await see(dialog.getByRole('table').getByRole('row')).toHaveCount(3)
})
