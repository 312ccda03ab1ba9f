import { afterAll, afterEach, expect, test } from 'vitest'
import { see } from './see'
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
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

test('settings are saved, applied at once, and reloaded after a restart', async () => {
  fake = await startFakeOllama()
  dirs = tempDirs()
  gantry = await startGantry({ ...dirs, ollamaHost: await unusedHost() })
  ;({ page } = await openPage(gantry.url))
  await see(page.getByTestId('ollama-status')).toContainText('unreachable')

  await page.getByRole('button', { name: 'Settings' }).first().click()
  const dialog = page.getByRole('dialog', { name: 'Settings' })
  await dialog.getByLabel('Ollama host').fill('not a host')
  await dialog.getByRole('button', { name: 'Save' }).click()
  await see(dialog).toContainText('must not contain spaces')
  expect(existsSync(join(dirs.configDir, 'settings.json'))).toBe(false)

  await dialog.getByLabel('Ollama host').fill(fake.host)
  await dialog.getByLabel('Default model').fill('qwen3:4b')
  await shot(page, 'settings')
  await dialog.getByRole('button', { name: 'Save' }).click()
  await see(dialog).toBeHidden()
  await see(page.getByTestId('ollama-status')).toContainText('Ollama 0.17.4 · 2 models')

  const saved = JSON.parse(readFileSync(join(dirs.configDir, 'settings.json'), 'utf8'))
  expect(saved).toMatchObject({ ollamaHost: fake.host, defaultModel: 'qwen3:4b' })

  await page.context().close()
  await gantry.stop()
  gantry = await startGantry({ ...dirs, ollamaHost: await unusedHost() })
  ;({ page } = await openPage(gantry.url))
  await see(page.getByTestId('ollama-status')).toContainText('Ollama 0.17.4')
  await page.getByRole('button', { name: 'Settings' }).first().click()
  await see(page.getByLabel('Ollama host')).toHaveValue(fake.host)
  await see(page.getByLabel('Default model')).toHaveValue('qwen3:4b')
})

test('a corrupt settings file: clear message, defaults used, the bad file kept aside', async () => {
  dirs = tempDirs()
  writeFileSync(join(dirs.configDir, 'settings.json'), '{"ollamaHost": "127.0.0.1:1",')
  gantry = await startGantry(dirs)
  ;({ page } = await openPage(gantry.url))

  const banner = page.getByRole('alert').filter({ hasText: 'not valid JSON' })
  await see(banner).toBeVisible()
  await see(banner).toContainText('kept as')
  await shot(page, 'settings-corrupt')
  const kept = readdirSync(dirs.configDir).filter((f) => f.startsWith('settings.json.broken-'))
  expect(kept).toHaveLength(1)
  expect(readFileSync(join(dirs.configDir, kept[0]), 'utf8')).toBe('{"ollamaHost": "127.0.0.1:1",')

  // The app still works: the welcome screen is usable and settings can be saved again.
  await see(page.getByText('Drop a project folder here')).toBeVisible()
  await page.getByRole('button', { name: 'Settings' }).first().click()
  await page.getByRole('dialog', { name: 'Settings' }).getByLabel('Default model').fill('llama3.2')
  await page.getByRole('button', { name: 'Save' }).click()
  await see(page.getByRole('dialog', { name: 'Settings' })).toBeHidden()
  expect(JSON.parse(readFileSync(join(dirs.configDir, 'settings.json'), 'utf8')).defaultModel).toBe('llama3.2')
})
