// Approvals: a real `gantry serve` asks before a command (default mode) or any edit ("ask" mode);
// the card in the chat answers it, and the run goes on.
import { afterAll, afterEach, beforeEach, expect, test } from 'vitest'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { see } from './see'
import { openProject, queueTurns, stopAll, closeAll, openPage, startFakeOllama, startGantry, tempDirs, type FakeOllama, type Gantry } from './harness'
import { makeProject } from './fixtures'

const uiShots = process.env.UI_SHOTS_DIR ?? '/tmp/ui-shots'

let dirs: ReturnType<typeof tempDirs>
let gantry: Gantry | undefined
let fake: FakeOllama
let page: Page
let errors: string[]
let project: string

beforeEach(async () => {
  fake = await startFakeOllama()
  dirs = tempDirs()
  gantry = undefined
})
afterEach(async () => {
  await stopAll({ page, gantry, fake, dirs })
})
afterAll(closeAll)

async function start(permissionMode = '') {
  if (permissionMode) writeFileSync(join(dirs.configDir, 'settings.json'), JSON.stringify({ permissionMode }))
  gantry = await startGantry({ ...dirs, ollamaHost: fake.host })
  ;({ page, errors } = await openPage(gantry.url, 'light'))
  project = makeProject()
  await openProject(page, project)
  await page.getByLabel('Model').selectOption('qwen3:4b')
}

async function send(text: string) {
  const box = page.getByLabel('Task', { exact: true })
  await box.fill(text)
  await box.press('Enter')
}

async function uiShot(name: string) {
  mkdirSync(uiShots, { recursive: true })
  await page.screenshot({ path: `${uiShots}/${name}.png` })
}

const callThenAnswer = (name: string, args: Record<string, unknown>) => [
  { chunks: [{ toolCalls: [{ name, arguments: args }] }] },
  { chunks: [{ content: 'All done. [TASK_COMPLETE]' }] },
]

const echo = callThenAnswer('run_terminal_command', { command: 'echo approved > out.txt' })

test('Allow runs the waiting command and the run finishes', async () => {
  await queueTurns(fake, echo)
  await start()
  await send('Write out.txt')
  const card = page.getByTestId('approval-card')
  await see(card).toBeVisible()
  await see(card).toHaveAttribute('data-kind', 'command')
  await see(card.locator('pre')).toContainText('echo approved > out.txt')
  await see(card.getByRole('button', { name: 'Always allow (project)' })).toBeVisible()
  // The card does not take focus from the chat input.
  expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Task')
  await uiShot('approval-command-light')

  await card.getByRole('button', { name: 'Allow', exact: true }).click()
  await see(card).toHaveCount(0)
  await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
  await see(page.getByTestId('approval-outcome')).toContainText('Allowed')
  expect(readFileSync(join(project, 'out.txt'), 'utf8').trim()).toBe('approved')
  expect(errors).toEqual([])
})

test('Deny with a note skips the command and the run still finishes', async () => {
  await queueTurns(fake, echo)
  await start()
  await send('Write out.txt')
  const card = page.getByTestId('approval-card')
  await see(card).toBeVisible()
  await card.getByRole('button', { name: 'Deny with a note…' }).click()
  await card.getByLabel('Note to the model').fill('not today')
  await card.getByRole('button', { name: 'Deny', exact: true }).click()
  await see(card).toHaveCount(0)
  await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
  await see(page.getByTestId('approval-outcome')).toContainText('Denied')
  expect(existsSync(join(project, 'out.txt'))).toBe(false)
  expect(errors).toEqual([])
})

test('in "ask" mode an edit shows its diff and Accept writes it', async () => {
  await queueTurns(fake, callThenAnswer('write_file', { path: 'README.md', content: '# Sample\n\nA small demo project.\n' }))
  await start('ask')
  await send('Describe the project in the README')
  const card = page.getByTestId('approval-card')
  await see(card).toBeVisible()
  await see(card).toHaveAttribute('data-kind', 'edit')
  await see(card).toContainText('README.md')
  await see(card).toContainText('modified')
  const diff = card.getByTestId('diff')
  await see(diff.locator('.line.add')).toHaveCount(2)
  await see(diff).toContainText('A small demo project.')
  await uiShot('approval-edit-light')

  await card.getByRole('button', { name: 'Accept' }).click()
  await see(card).toHaveCount(0)
  await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
  expect(readFileSync(join(project, 'README.md'), 'utf8')).toBe('# Sample\n\nA small demo project.\n')
  expect(errors).toEqual([])
})
