// Workspace trust: a project's own program asks before it runs, on a card that says so in plain
// words, whatever the permission mode; "Trust this folder" is remembered and shown in Settings,
// where it can be taken back.
import { afterAll, afterEach, beforeEach, expect, test } from 'vitest'
import { chmodSync, existsSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { see } from './see'
import { closeAll, openPage, openProject, queueTurns, sendTask, shot, startFakeOllama, startGantry, stopAll, tempDirs, toolResults, type FakeOllama, type Gantry } from './harness'
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

const build = [
  { chunks: [{ toolCalls: [{ name: 'run_terminal_command', arguments: { command: './build.sh' } }] }] },
  { chunks: [{ content: 'Built. [TASK_COMPLETE]' }] },
]

/** A project with its own build script, opened in full mode: every command would run unasked. */
async function start(colorScheme: 'light' | 'dark' = 'light') {
  writeFileSync(join(dirs.configDir, 'settings.json'), JSON.stringify({ permissionMode: 'full' }))
  gantry = await startGantry({ ...dirs, ollamaHost: fake.host })
  ;({ page, errors } = await openPage(gantry.url, colorScheme))
  project = makeProject()
  writeFileSync(join(project, 'build.sh'), '#!/bin/sh\necho built > built.txt\n')
  chmodSync(join(project, 'build.sh'), 0o755)
  await openProject(page, project)
  await page.getByLabel('Model').selectOption('qwen3:4b')
}

test("a project's own program asks even in full mode, and Trust this folder is remembered and revocable", async () => {
  await queueTurns(fake, [...build, ...build])
  await start()
  await sendTask(page, 'Build it')
  const card = page.getByTestId('approval-card')
  await see(card).toHaveAttribute('aria-label', 'Program from this folder waiting for approval')
  await see(card).toContainText('Run a program from this folder?')
  await see(card.getByTestId('folder-code')).toContainText('This folder is not trusted.')
  await see(card.getByTestId('folder-code')).toContainText('This command runs a program from this folder: ./build.sh.')
  await see(card.getByRole('button', { name: 'Always allow (project)' })).toHaveCount(0)
  expect(existsSync(join(project, 'built.txt'))).toBe(false)
  await shot(page, 'trust-card-light')

  await card.getByRole('button', { name: 'Trust this folder' }).click()
  await see(card).toHaveCount(0)
  await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
  await see(page.getByTestId('approval-outcome')).toContainText('Folder trusted')
  expect(existsSync(join(project, 'built.txt'))).toBe(true)

  // Trusted now: the next run's program runs without a card (full mode).
  rmSync(join(project, 'built.txt'))
  await sendTask(page, 'Build it again')
  // The second run's status first: until it shows, last() is the first run's, already done.
  await see(page.getByTestId('run-status')).toHaveCount(2)
  await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
  expect(existsSync(join(project, 'built.txt'))).toBe(true)
  await see(page.getByTestId('approval-card')).toHaveCount(0)

  // Settings lists it; Remove takes the trust back.
  await page.getByRole('button', { name: 'Settings' }).click()
  await page.getByRole('tab', { name: 'Trusted folders' }).click()
  const list = page.getByRole('list', { name: 'Trusted folders' })
  await see(list).toContainText(project)
  await see(page.getByTestId('current-trust')).toContainText('is trusted')
  await shot(page, 'trust-settings-light')
  await list.getByRole('button', { name: `Stop trusting ${project}` }).click()
  await see(page.getByTestId('current-trust')).toContainText('is not trusted')
  await see(page.getByRole('button', { name: 'Trust this project' })).toBeVisible()
  expect(errors).toEqual([])
})

test("Don't run keeps the program from running and tells the model", async () => {
  await queueTurns(fake, build)
  await start('dark')
  await sendTask(page, 'Build it')
  const card = page.getByTestId('approval-card')
  await see(card.getByTestId('folder-code')).toBeVisible()
  await shot(page, 'trust-card-dark')
  await card.getByRole('button', { name: "Don't run" }).click()
  await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
  await see(page.getByTestId('approval-outcome')).toContainText('Denied')
  expect(existsSync(join(project, 'built.txt'))).toBe(false)
  expect((await toolResults(fake)).join('\n')).toContain('denied')
  expect(errors).toEqual([])
})
