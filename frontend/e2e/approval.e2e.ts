// Approvals: a real `gantry serve` asks before a command (default mode) or any edit ("ask" mode);
// the card in the chat answers it, and the run goes on.
import { afterAll, afterEach, beforeEach, expect, test } from 'vitest'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { see } from './see'
import { shot, sendTask, openProject, queueTurns, stopAll, closeAll, openPage, startFakeOllama, startGantry, tempDirs, toolResults, type FakeOllama, type Gantry } from './harness'
import { makeProject } from './fixtures'

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

async function start(permissionMode = '', colorScheme: 'light' | 'dark' = 'light') {
  if (permissionMode) writeFileSync(join(dirs.configDir, 'settings.json'), JSON.stringify({ permissionMode }))
  gantry = await startGantry({ ...dirs, ollamaHost: fake.host })
  ;({ page, errors } = await openPage(gantry.url, colorScheme))
  project = makeProject()
  writeFileSync(join(project, 'notes.txt'), notes)
  await openProject(page, project)
  await page.getByLabel('Model').selectOption('qwen3:4b')
}

const callThenAnswer = (name: string, args: Record<string, unknown>) => [
  { chunks: [{ toolCalls: [{ name, arguments: args }] }] },
  { chunks: [{ content: 'All done. [TASK_COMPLETE]' }] },
]

const echo = callThenAnswer('run_terminal_command', { command: 'echo approved > out.txt' })

test('Allow runs the waiting command and the run finishes', async () => {
  await queueTurns(fake, echo)
  await start()
  await sendTask(page, 'Write out.txt')
  const card = page.getByTestId('approval-card')
  await see(card).toBeVisible()
  await see(card).toHaveAttribute('data-kind', 'command')
  await see(card.locator('pre')).toContainText('echo approved > out.txt')
  await see(card.getByRole('button', { name: 'Always allow (project)' })).toBeVisible()
  // The card does not take focus from the chat input.
  expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Task')
  await shot(page, 'approval-command-light')

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
  await sendTask(page, 'Write out.txt')
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
  await sendTask(page, 'Describe the project in the README')
  const card = page.getByTestId('approval-card')
  await see(card).toBeVisible()
  await see(card).toHaveAttribute('data-kind', 'edit')
  await see(card).toContainText('README.md')
  await see(card).toContainText('modified')
  const diff = card.getByTestId('diff')
  await see(diff.locator('.cm-merge-b .cm-changedLine')).toHaveCount(2)
  await see(diff).toContainText('A small demo project.')
  await shot(page, 'approval-edit-light')

  await card.getByRole('button', { name: 'Accept' }).click()
  await see(card).toHaveCount(0)
  await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
  expect(readFileSync(join(project, 'README.md'), 'utf8')).toBe('# Sample\n\nA small demo project.\n')
  expect(errors).toEqual([])
})

// A file with two changes far enough apart to be two hunks.
const notes = 'alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta\niota\nkappa\nlambda\nmu\n'
const notesProposed = notes.replace('beta', 'BETA').replace('mu\n', 'MU\nnu\n')
const writeNotes = callThenAnswer('write_file', { path: 'notes.txt', content: notesProposed })
const read = (rel: string) => readFileSync(join(project, rel), 'utf8')
const editCard = () => page.getByTestId('approval-card').and(page.locator('[data-kind="edit"]'))

test('Reject a sensitive edit: the file stays, the card said why, the model is told', async () => {
  await queueTurns(fake, callThenAnswer('write_file', { path: '.env', content: 'TOKEN=leaked\n' }))
  await start()
  writeFileSync(join(project, '.env'), 'TOKEN=secret\n')
  await sendTask(page, 'Set the token')
  const card = editCard()
  await see(card.getByTestId('sensitive-reason')).toContainText('passwords, keys or other secrets')
  await see(card.getByTestId('sensitive-reason')).toContainText('“.env”')
  // A sensitive file is never allowed for good from a card: no button, and Alt+A does nothing.
  await see(card.getByRole('button', { name: 'Reject', exact: true })).toBeVisible()
  await see(card.getByRole('button', { name: /Always allow/ })).toHaveCount(0)
  await page.keyboard.press('Alt+KeyA')
  // The press has been handled by now, and an answer makes the card busy at once.
  expect(await card.getByRole('button', { name: 'Reject', exact: true }).isEnabled()).toBe(true)
  await shot(page, 'approval-sensitive-light')
  await card.getByRole('button', { name: 'Reject', exact: true }).click()
  await see(card).toHaveCount(0)
  await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
  expect(read('.env')).toBe('TOKEN=secret\n')
  expect((await toolResults(fake)).join('\n')).toContain('The user rejected writing .env')
  expect(errors).toEqual([])
})

test('Accept one hunk of two writes only that change', async () => {
  await queueTurns(fake, writeNotes)
  await start('ask')
  await sendTask(page, 'Tidy the notes')
  const card = editCard()
  await see(card.getByRole('checkbox')).toHaveCount(2)
  await card.getByRole('checkbox', { name: /Change 2/ }).uncheck()
  const accept = card.getByRole('button', { name: 'Accept 1 of 2 changes' })
  await see(accept).toBeVisible()
  // The preview follows the choice: the unticked change is gone from the proposed side.
  await expect.poll(() => card.getByTestId('diff').textContent()).not.toContain('MU')
  await accept.click()
  await see(card).toHaveCount(0)
  await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
  expect(read('notes.txt')).toBe(notes.replace('beta', 'BETA'))
  const told = (await toolResults(fake)).join('\n')
  expect(told).toContain('The user changed your proposal before accepting it')
  expect(told).toContain('-MU')
  expect(errors).toEqual([])
})

test('Edit the proposal, then Accept writes the person\'s text', async () => {
  await queueTurns(fake, writeNotes)
  await start('ask')
  await sendTask(page, 'Tidy the notes')
  const card = editCard()
  await see(card.getByTestId('diff')).toContainText('BETA')
  await card.getByRole('button', { name: 'Edit', exact: true }).click()
  const editor = card.getByLabel('Proposed text')
  await see(editor).toHaveAttribute('contenteditable', 'true')
  await editor.click()
  await page.keyboard.press('ControlOrMeta+Home')
  await page.keyboard.type('# mine\n')
  await see(card.getByRole('button', { name: 'Accept my version' })).toBeVisible()
  // Reset goes back to the proposal, read-only again.
  await card.getByRole('button', { name: 'Reset' }).click()
  await see(card.getByRole('button', { name: 'Accept', exact: true })).toBeVisible()
  await expect.poll(() => card.getByTestId('diff').textContent()).not.toContain('# mine')

  await card.getByRole('button', { name: 'Edit', exact: true }).click()
  await editor.click()
  await page.keyboard.press('ControlOrMeta+Home')
  await page.keyboard.type('# mine\n')
  await card.getByRole('button', { name: 'Accept my version' }).click()
  await see(card).toHaveCount(0)
  await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
  expect(read('notes.txt')).toBe('# mine\n' + notesProposed)
  const told = (await toolResults(fake)).join('\n')
  expect(told).toContain('The user changed your proposal before accepting it')
  expect(told).toContain('+# mine')
  expect(errors).toEqual([])
})

test('Always allow a command: the same command runs again without a card', async () => {
  const cmd = { name: 'run_terminal_command', arguments: { command: 'echo again >> out.txt' } }
  await queueTurns(fake, [
    { chunks: [{ toolCalls: [cmd] }] },
    { chunks: [{ toolCalls: [cmd] }] },
    { chunks: [{ content: 'Twice. [TASK_COMPLETE]' }] },
  ])
  await start()
  await sendTask(page, 'Append twice')
  const card = page.getByTestId('approval-card')
  await card.getByRole('button', { name: 'Always allow (project)' }).click()
  await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
  await see(card).toHaveCount(0)
  await see(page.getByTestId('approval-outcome')).toHaveCount(1)
  expect(read('out.txt')).toBe('again\nagain\n')
  expect(await toolResults(fake)).toHaveLength(2)
  expect(errors).toEqual([])
})

test('Always allow edits to a file: the next edit of it is written without a card', async () => {
  await queueTurns(fake, [
    { chunks: [{ toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'one\n' } }] }] },
    { chunks: [{ toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'two\n' } }] }] },
    { chunks: [{ content: 'Written twice. [TASK_COMPLETE]' }] },
  ])
  await start('ask')
  await sendTask(page, 'Rewrite the notes twice')
  const card = editCard()
  await card.getByRole('button', { name: 'Always allow edits to this file (project)' }).click()
  await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
  await see(page.getByTestId('approval-outcome')).toHaveCount(1)
  expect(read('notes.txt')).toBe('two\n')
  const told = await toolResults(fake)
  expect(told).toHaveLength(2)
  expect(told[1]).toContain('notes.txt')
  expect(errors).toEqual([])
})

test('Alt+Y accepts the waiting edit while the chat input keeps focus', async () => {
  await queueTurns(fake, writeNotes)
  await start('ask')
  await sendTask(page, 'Tidy the notes')
  const card = editCard()
  const accept = card.getByRole('button', { name: 'Accept', exact: true })
  await see(accept).toHaveAttribute('title', 'Accept (Alt+Y)')
  await see(accept.locator('kbd')).toContainText('Alt+Y')
  const box = page.getByLabel('Task', { exact: true })
  await box.fill('next idea')
  expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Task')
  // Model text mentioning the keys, or a synthetic key event, must not answer it.
  await page.evaluate(() => window.dispatchEvent(new KeyboardEvent('keydown', { key: 'y', code: 'KeyY', altKey: true })))
  // Dispatched and handled by now; an answer would have made the card busy at once.
  const reject = card.getByRole('button', { name: 'Reject', exact: true })
  expect(await reject.isEnabled()).toBe(true)

  // With Settings open the card is behind the dialog: Alt+N there answers nothing.
  await page.getByRole('button', { name: 'Settings' }).first().click()
  const settings = page.getByRole('dialog', { name: 'Settings' })
  await see(settings).toBeVisible()
  await page.keyboard.press('Alt+KeyN')
  await page.keyboard.press('Alt+KeyY')
  expect(await reject.isEnabled()).toBe(true)
  await page.keyboard.press('Escape')
  await see(settings).toHaveCount(0)
  await see(card).toHaveCount(1)
  await box.focus()

  await page.keyboard.press('Alt+KeyY')
  await see(card).toHaveCount(0)
  await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
  expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Task')
  await see(box).toHaveValue('next idea')
  expect(read('notes.txt')).toBe(notesProposed)
  expect((await toolResults(fake)).join('\n')).toContain('notes.txt')
  expect(errors).toEqual([])
})

test('screenshots of an edit card in both layouts, light and dark', async () => {
  for (const scheme of ['light', 'dark'] as const) {
    await queueTurns(fake, writeNotes)
    await start('ask', scheme)
    await sendTask(page, 'Tidy the notes')
    const card = editCard()
    await see(card.locator('.cm-mergeView')).toBeVisible()
    await see(card.locator('.cm-merge-a')).toContainText('beta')
    await see(card.locator('.cm-merge-b')).toContainText('BETA')
    await card.scrollIntoViewIfNeeded()
    await shot(page, `edit-card-split-${scheme}`)
    await card.getByRole('button', { name: 'Unified' }).click()
    await see(card.getByTestId('diff')).toHaveAttribute('data-layout', 'unified')
    await see(card.locator('.cm-deletedChunk').first()).toContainText('beta')
    await shot(page, `edit-card-unified-${scheme}`)
    await card.getByRole('button', { name: 'Side by side' }).click()
    await card.getByRole('button', { name: 'Reject', exact: true }).click()
    await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
    expect(errors).toEqual([])
    await stopAll({ page, gantry })
    dirs = tempDirs()
  }
})
