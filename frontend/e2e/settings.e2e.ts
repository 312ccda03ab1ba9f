// The Settings screen against a real `gantry serve`: every change is saved at once (or refused
// with the reason under the field), the files on disk say so, and the next run uses them.
import { afterAll, afterEach, expect, test } from 'vitest'
import { see } from './see'
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { makeProject } from './fixtures'
import { sendTask, closeAll, openPage, openProject, queueTurns, shot, startFakeOllama, startGantry, stopAll, tempDirs, toolResults, unusedHost, type FakeOllama, type Gantry,  } from './harness'

let dirs: ReturnType<typeof tempDirs>
let gantry: Gantry | undefined
let fake: FakeOllama | undefined
let page: Page | undefined

afterEach(async () => {
  await stopAll({ page, gantry, fake, dirs })
  page = gantry = fake = undefined
})
afterAll(closeAll)

const saved = () => JSON.parse(readFileSync(join(dirs.configDir, 'settings.json'), 'utf8'))

async function openSettings(p: Page, section?: string): Promise<Locator> {
  await p.getByRole('button', { name: 'Settings' }).first().click()
  const dialog = p.getByRole('dialog', { name: 'Settings' })
  await see(dialog).toBeVisible()
  if (section) await dialog.getByRole('tab', { name: section }).click()
  return dialog
}

test('each change is saved at once, refused ones say why, and all is there after a restart', async () => {
  fake = await startFakeOllama()
  dirs = tempDirs()
  gantry = await startGantry({ ...dirs, ollamaHost: await unusedHost() })
  ;({ page } = await openPage(gantry.url))
  await see(page.getByTestId('ollama-status')).toContainText('unreachable')

  const dialog = await openSettings(page)
  const host = dialog.getByLabel('Ollama host')
  await host.fill('not a host')
  await host.press('Enter')
  await see(dialog.getByRole('alert')).toContainText('must not contain spaces')
  expect(existsSync(join(dirs.configDir, 'settings.json'))).toBe(false)

  await host.fill(fake.host)
  await host.press('Enter')
  await see(dialog).toContainText('Saved')
  await see(page.getByTestId('ollama-status')).toContainText('Ollama 0.17.4 · 2 models')
  expect(saved()).toMatchObject({ ollamaHost: fake.host })
  const requests = dialog.getByLabel('Model requests at once')
  await requests.fill('20')
  await requests.press('Tab')
  await see(dialog.getByRole('alert')).toContainText('model requests at once 20 must be between 1 and 16')
  await requests.fill('2')
  await requests.press('Tab')
  await expect.poll(() => saved().modelRequests).toBe(2)

  await dialog.getByRole('tab', { name: 'Models' }).click()
  await dialog.getByLabel('Default model').fill('qwen3:4b')
  await dialog.getByLabel('Default model').press('Enter')
  await dialog.getByLabel('Context window cap (tokens)').fill('100')
  await dialog.getByLabel('Context window cap (tokens)').press('Tab')
  await see(dialog.getByRole('alert')).toContainText('context length 100 must be between 2048')
  await dialog.getByLabel('Context window cap (tokens)').fill('16384')
  await dialog.getByLabel('Context window cap (tokens)').press('Tab')
  await expect.poll(() => saved().numCtxCap).toBe(16384)
  expect(saved().defaultModel).toBe('qwen3:4b')

  await dialog.getByRole('tab', { name: 'Permissions' }).click()
  await dialog.getByRole('radio', { name: /Full access/ }).click()
  await dialog.getByRole('switch', { name: 'Auto-approve sensitive edits' }).click()
  await see(dialog.getByRole('switch', { name: 'Auto-approve sensitive edits' })).toHaveAttribute('aria-checked', 'true')
  await expect.poll(() => saved()).toMatchObject({ permissionMode: 'full', autoApproveSensitiveEdits: true })
  await dialog.getByLabel('Steps per run').fill('500')
  await dialog.getByLabel('Steps per run').press('Tab')
  await see(dialog.getByRole('alert')).toContainText('step limit 500 must be between 1 and 200')
  await dialog.getByLabel('Steps per run').fill('40')
  await dialog.getByLabel('Steps per run').press('Tab')
  await expect.poll(() => saved().maxIterations).toBe(40)
  await shot(page, 'settings-permissions')

  await dialog.getByRole('tab', { name: 'Tools' }).click()
  await dialog.getByLabel('Command timeout (seconds)').fill('900')
  await dialog.getByLabel('Command timeout (seconds)').press('Tab')
  await see(dialog.getByRole('alert')).toContainText('must be between 1 and 600 seconds')
  await dialog.getByLabel('Command timeout (seconds)').fill('120')
  await dialog.getByLabel('Command timeout (seconds)').press('Tab')
  await dialog.getByRole('switch', { name: 'A git branch per session' }).click()
  await expect.poll(() => saved()).toMatchObject({ terminalTimeout: 120, gitBranch: true })

  await dialog.getByRole('tab', { name: 'General' }).click()
  await dialog.getByRole('radio', { name: 'Dark' }).click()
  await expect.poll(() => page!.evaluate(() => document.documentElement.dataset.theme)).toBe('dark')
  const bg = () => page!.evaluate(() => getComputedStyle(document.body).backgroundColor)
  expect(await bg()).toBe('rgb(24, 24, 27)')
  await dialog.getByRole('radio', { name: 'Light' }).click()
  await expect.poll(bg).toBe('rgb(255, 255, 255)')
  // A radio group is one tab stop; the arrows move the choice (and save it), as native radios do.
  const tabStops = () => dialog.getByRole('radiogroup', { name: 'Appearance' }).getByRole('radio').evaluateAll((els) => els.map((e) => e.getAttribute('tabindex')))
  expect(await tabStops()).toEqual(['-1', '0', '-1'])
  await page.keyboard.press('ArrowRight')
  await expect.poll(() => saved().theme).toBe('dark')
  expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Dark')
  await page.keyboard.press('ArrowRight') // wraps
  await see(dialog.getByRole('radio', { name: 'System' })).toHaveAttribute('aria-checked', 'true')
  expect(await tabStops()).toEqual(['0', '-1', '-1'])
  await expect.poll(() => saved().theme).toBe('system')

  await page.context().close()
  await gantry.stop()
  gantry = await startGantry({ ...dirs, ollamaHost: await unusedHost() })
  ;({ page } = await openPage(gantry.url, 'dark'))
  await see(page.getByTestId('ollama-status')).toContainText('Ollama 0.17.4')
  const again = await openSettings(page)
  await see(again.getByLabel('Ollama host')).toHaveValue(fake.host)
  await see(again.getByLabel('Model requests at once')).toHaveValue('2')
  await again.getByRole('tab', { name: 'Models' }).click()
  await see(again.getByLabel('Default model')).toHaveValue('qwen3:4b')
  await see(again.getByLabel('Context window cap (tokens)')).toHaveValue('16384')
  await again.getByRole('tab', { name: 'Permissions' }).click()
  await see(again.getByRole('radio', { name: /Full access/ })).toHaveAttribute('aria-checked', 'true')
  await see(again.getByLabel('Steps per run')).toHaveValue('40')
})

test('Test checks the typed host without saving it', async () => {
  fake = await startFakeOllama()
  dirs = tempDirs()
  const dead = await unusedHost()
  gantry = await startGantry({ ...dirs, ollamaHost: dead })
  ;({ page } = await openPage(gantry.url))
  const dialog = await openSettings(page)
  const host = dialog.getByLabel('Ollama host')

  await host.fill(dead)
  await dialog.getByRole('button', { name: 'Test' }).click()
  await see(dialog.getByTestId('host-test')).toContainText('connection refused')
  await see(dialog.getByTestId('host-test')).toContainText('ollama serve')

  await host.fill(fake.host)
  await dialog.getByRole('button', { name: 'Test' }).click()
  await see(dialog.getByTestId('host-test')).toContainText('Connected to Ollama 0.17.4')
  await see(dialog.getByTestId('host-test')).toContainText('2 models')
  await shot(page, 'settings-host-test')
  expect(existsSync(join(dirs.configDir, 'settings.json'))).toBe(false)
  await see(page.getByTestId('ollama-status')).toContainText('unreachable')
})

test('file rules: add, reorder, remove and restore the defaults, kept in settings.json', async () => {
  dirs = tempDirs()
  gantry = await startGantry(dirs)
  ;({ page } = await openPage(gantry.url))
  const dialog = await openSettings(page, 'Sensitive files')
  await see(dialog).toContainText('the last one that matches wins')
  await see(dialog).toContainText('Built-in rules')
  const defaults = await dialog.getByRole('list', { name: 'File rules' }).getByRole('listitem').count()
  expect(defaults).toBeGreaterThan(10)

  await dialog.getByLabel('New pattern').fill('src/[oops')
  await dialog.getByRole('button', { name: 'Add rule' }).click()
  await see(dialog.getByRole('alert')).toContainText('is not a valid glob')

  await dialog.getByLabel('New pattern').fill('.env.example')
  await dialog.getByLabel("New rule's action").selectOption('allow')
  await dialog.getByRole('button', { name: 'Add rule' }).click()
  await see(dialog).toContainText('Your rules')
  await expect.poll(() => saved().fileRules?.at(-1)).toEqual({ pattern: '.env.example', action: 'allow' })
  expect(saved().fileRules).toHaveLength(defaults + 1)

  await dialog.getByRole('button', { name: `Move rule ${defaults + 1} up` }).click()
  await expect.poll(() => saved().fileRules[defaults - 1]).toEqual({ pattern: '.env.example', action: 'allow' })
  await dialog.getByLabel('Pattern 1', { exact: true }).fill('.env.local')
  await dialog.getByLabel('Pattern 1', { exact: true }).press('Tab')
  await expect.poll(() => saved().fileRules[0].pattern).toBe('.env.local')
  await dialog.getByRole('button', { name: 'Remove rule 2', exact: true }).click()
  await expect.poll(() => saved().fileRules).toHaveLength(defaults)
  await shot(page, 'settings-file-rules')

  await dialog.getByRole('button', { name: 'Restore defaults' }).click()
  await see(dialog).toContainText('Built-in rules')
  await expect.poll(() => saved().fileRules).toBeNull()
})

test('an "always allow" rule is listed in plain words and can be deleted', async () => {
  dirs = tempDirs()
  const project = makeProject('webshop')
  const rules = [
    { kind: 'command', commandPrefix: 'npm test', severity: 'medium', scope: 'project', workspace: project },
    { kind: 'edit', pathGlob: 'docs/**', scope: 'user' },
  ]
  writeFileSync(join(dirs.configDir, 'approval-rules.json'), JSON.stringify({ rules }))
  gantry = await startGantry(dirs)
  ;({ page } = await openPage(gantry.url))
  const dialog = await openSettings(page, 'Always allow')
  const list = dialog.getByRole('list', { name: 'Always allow rules' })
  await see(list.getByRole('listitem')).toHaveCount(2)
  await see(list).toContainText('Run commands starting with npm test')
  await see(list).toContainText('only in webshop')
  await see(list).toContainText('Change docs/**')
  await see(list).toContainText('in all projects')
  await shot(page, 'settings-always-allow')

  await dialog.getByRole('button', { name: 'Delete rule 1' }).click()
  await see(list.getByRole('listitem')).toHaveCount(1)
  const left = JSON.parse(readFileSync(join(dirs.configDir, 'approval-rules.json'), 'utf8'))
  expect(left.rules).toEqual([rules[1]])
})

test('a tool turned off is not offered to the model in the next run', async () => {
  fake = await startFakeOllama()
  dirs = tempDirs()
  gantry = await startGantry({ ...dirs, ollamaHost: fake.host })
  ;({ page } = await openPage(gantry.url))
  await openProject(page, makeProject())

  const dialog = await openSettings(page, 'Tools')
  const toggle = dialog.getByRole('switch', { name: 'write_file' })
  await see(toggle).toHaveAttribute('aria-checked', 'true')
  await toggle.click()
  await see(toggle).toHaveAttribute('aria-checked', 'false')
  await expect.poll(() => saved().disabledTools).toEqual(['write_file'])
  await shot(page, 'settings-tools')
  await dialog.getByRole('button', { name: 'Done' }).click()

  await queueTurns(fake, [{ chunks: [{ content: 'Nothing to do. [TASK_COMPLETE]' }] }])
  await sendTask(page, 'say hello')
  await expect
    .poll(async () => {
      const requests = (await (await fetch(`${fake!.url}/_fake/requests`)).json()) as { tools?: { function: { name: string } }[] }[]
      return requests.at(-1)?.tools?.map((t) => t.function.name) ?? []
    })
    .toContain('edit_file')
  const requests = (await (await fetch(`${fake.url}/_fake/requests`)).json()) as { tools?: { function: { name: string } }[] }[]
  expect(requests.at(-1)?.tools?.map((t) => t.function.name)).not.toContain('write_file')
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
  const dialog = await openSettings(page, 'Models')
  await dialog.getByLabel('Default model').fill('llama3.2')
  await dialog.getByLabel('Default model').press('Enter')
  await expect.poll(() => saved().defaultModel).toBe('llama3.2')
})

test('the sandbox switch confines the next command, and its card and row say so', async (ctx) => {
  fake = await startFakeOllama()
  dirs = tempDirs()
  // The project's sandbox cache goes under the user cache dir: keep it in the test's folder.
  const cacheHome = process.env.XDG_CACHE_HOME
  process.env.XDG_CACHE_HOME = join(dirs.root, 'cache')
  try {
    gantry = await startGantry({ ...dirs, ollamaHost: fake.host })
  } finally {
    if (cacheHome === undefined) delete process.env.XDG_CACHE_HOME
    else process.env.XDG_CACHE_HOME = cacheHome
  }
  ;({ page } = await openPage(gantry.url))
  const project = makeProject()
  await openProject(page, project)
  await page.getByLabel('Model').selectOption('qwen3:4b')

  const dialog = await openSettings(page, 'Tools')
  const sandbox = dialog.getByRole('switch', { name: 'Run commands in a sandbox' })
  const network = dialog.getByRole('switch', { name: 'Allow network in the sandbox' })
  await see(sandbox).toHaveAttribute('aria-checked', 'false')
  expect(await network.isDisabled()).toBe(true)
  if (await sandbox.isDisabled()) {
    // No usable bwrap here: the screen says why and how to fix it; nothing more to run.
    await see(dialog.getByTestId('sandbox-unavailable')).toContainText('bubblewrap')
    ctx.skip()
  }
  await sandbox.click()
  await see(sandbox).toHaveAttribute('aria-checked', 'true')
  await expect.poll(() => network.isEnabled()).toBe(true)
  await expect.poll(() => saved()).toMatchObject({ sandbox: true, sandboxNetwork: false })
  await dialog.getByText('Allow network in the sandbox').scrollIntoViewIfNeeded()
  await shot(page, 'settings-sandbox-light')
  await page.emulateMedia({ colorScheme: 'dark' })
  await shot(page, 'settings-sandbox-dark')
  await page.emulateMedia({ colorScheme: 'light' })
  await dialog.getByRole('button', { name: 'Done' }).click()

  await queueTurns(fake, [
    { chunks: [{ toolCalls: [{ name: 'run_terminal_command', arguments: { command: 'echo in > in.txt; touch /usr/gantry-e2e-probe' } }] }] },
    { chunks: [{ content: 'The sandbox refused it. [TASK_COMPLETE]' }] },
  ])
  await sendTask(page, 'write a file inside and one outside')
  const card = page.getByTestId('approval-card')
  await see(card.getByTestId('sandboxed')).toContainText('sandboxed')
  await shot(page, 'approval-sandboxed-light')
  await card.getByRole('button', { name: 'Allow', exact: true }).click()
  await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')

  const row = page.getByTestId('action').filter({ hasText: 'touch /usr/gantry-e2e-probe' })
  await see(row.getByTestId('sandboxed')).toBeVisible()
  expect(readFileSync(join(project, 'in.txt'), 'utf8')).toBe('in\n')
  expect(existsSync('/usr/gantry-e2e-probe')).toBe(false)
  const results = await toolResults(fake)
  expect(results.at(-1)).toContain('Read-only file system')
  expect(results.at(-1)).toContain("[this command ran in Gantry's sandbox (read-only outside the project, no network)")
  await page.emulateMedia({ colorScheme: 'dark' })
  await shot(page, 'action-sandboxed-dark')
})

test('without light-dark() (older WebKitGTK and Safari) the theme still applies, light and dark', async () => {
  dirs = tempDirs()
  gantry = await startGantry({ ...dirs, ollamaHost: await unusedHost() })
  for (const scheme of ['light', 'dark'] as const) {
    const opened = await openPage(gantry.url, scheme)
    const p = opened.page
    // What such a browser sees: light-dark() is unknown, so every value using it is invalid
    // and the @supports not (…) block applies.
    await p.route('**/*.css', async (route) => {
      const res = await route.fetch()
      await route.fulfill({ response: res, body: (await res.text()).replaceAll('light-dark(', 'no-light-dark(') })
    })
    await p.reload()
    await see(p.getByTestId('ollama-status')).toContainText('unreachable')
    const bg = () => p.evaluate(() => getComputedStyle(document.body).backgroundColor)
    const text = () => p.evaluate(() => getComputedStyle(document.body).color)
    expect(await bg()).toBe(scheme === 'light' ? 'rgb(255, 255, 255)' : 'rgb(24, 24, 27)')
    expect(await text()).toBe(scheme === 'light' ? 'rgb(29, 29, 34)' : 'rgb(230, 230, 234)')
    await shot(p, `no-light-dark-${scheme}`)
    // Appearance pins the other scheme either way.
    const other = scheme === 'light' ? 'dark' : 'light'
    await p.evaluate((t) => (document.documentElement.dataset.theme = t), other)
    expect(await bg()).toBe(other === 'light' ? 'rgb(255, 255, 255)' : 'rgb(24, 24, 27)')
    await p.context().close()
  }
})
