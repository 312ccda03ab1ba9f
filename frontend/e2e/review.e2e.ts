// The review panel: after a run that edited files, a real `gantry serve` lists them under the run;
// Keep and Undo act on the disk, and a file the person changed since asks before it is undone.
import { afterAll, afterEach, beforeEach, expect, test } from 'vitest'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { see } from './see'
import { shot, openProject, watcherCaughtUp, queueTurns, sendTask, stopAll, closeAll, openPage, startFakeOllama, startGantry, tempDirs, toolResults, type FakeOllama, type Gantry } from './harness'
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

const edit = (path: string, old: string, replacement: string) => ({
  chunks: [{ toolCalls: [{ name: 'edit_file', arguments: { path, old, new: replacement } }] }],
})

/** A run in the default mode (plain edits need no approval) that edits two files, then ends. */
async function runTwoEdits(colorScheme: 'light' | 'dark' = 'light', second = edit('src/main.go', 'package main', 'package main // agent')) {
  const res = await fetch(`${fake.url}/_fake/turns`, {
    method: 'POST',
    body: JSON.stringify([
      edit('README.md', '# Sample', '# Sample, by the agent'),
      second,
      { chunks: [{ content: 'Both edited. [TASK_COMPLETE]' }] },
    ]),
  })
  expect(res.ok).toBe(true)
  gantry = await startGantry({ ...dirs, ollamaHost: fake.host })
  ;({ page, errors } = await openPage(gantry.url, colorScheme))
  project = makeProject()
  await openProject(page, project)
  await page.getByLabel('Model').selectOption('qwen3:4b')
  const box = page.getByLabel('Task', { exact: true })
  await box.fill('Edit the readme and main.go')
  await box.press('Enter')
  await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
  // The panel shows the run's list at once and reads it again from the disk, and again for each
  // watcher report of the run's own edits, which may come after the run is done. A test that
  // changes a file before the last of those reads is in would race it: the read would see the
  // change before the test acts on the panel.
  await watcherCaughtUp(page, project)
  await see(page.getByTestId('review-panel')).toHaveAttribute('aria-busy', 'false')
}

const row = (path: string) => page.getByTestId('review-file').and(page.locator(`[data-path="${path}"]`))
const read = (rel: string) => readFileSync(join(project, rel), 'utf8')

test('Keep one file and Undo the other', async () => {
  await runTwoEdits()
  const panel = page.getByTestId('review-panel')
  await see(panel).toContainText('2 files changed')
  await see(row('README.md')).toContainText('+1')
  await see(row('README.md')).toContainText('−1')
  await see(panel.getByRole('button', { name: 'Keep all' })).toBeVisible()

  await row('README.md').getByRole('button', { name: 'README.md' }).click()
  await see(row('README.md').getByTestId('diff')).toContainText('# Sample, by the agent')
  await shot(page, `review-light`)

  await row('README.md').getByRole('button', { name: 'Keep', exact: true }).click()
  await see(row('README.md')).toHaveAttribute('data-status', 'kept')
  await row('src/main.go').getByRole('button', { name: 'Undo', exact: true }).click()
  await see(row('src/main.go')).toHaveAttribute('data-status', 'undone')
  await see(panel.getByRole('button', { name: 'Keep all' })).toHaveCount(0)

  expect(read('README.md')).toBe('# Sample, by the agent\n')
  expect(read('src/main.go')).toBe('package main\n')
  expect(errors).toEqual([])
})

test('a file the person edits after the run shows as a conflict at once, and Undo anyway restores it', async () => {
  await runTwoEdits()
  const main = row('src/main.go')
  await see(main.getByRole('button', { name: 'Undo', exact: true })).toBeVisible()
  writeFileSync(join(project, 'src', 'main.go'), 'package main // mine\n')
  // The file watcher tells the panel; no click needed to find out.
  await see(main).toHaveAttribute('data-status', 'conflict')
  await see(main.getByRole('alert')).toContainText('You changed this file after the agent wrote it')
  await see(main.getByRole('button', { name: 'Undo', exact: true })).toHaveCount(0)
  expect(read('src/main.go')).toBe('package main // mine\n')

  await main.getByRole('button', { name: 'Undo anyway' }).click()
  await see(main).toHaveAttribute('data-status', 'undone')
  expect(read('src/main.go')).toBe('package main\n')
  await see(row('README.md')).toHaveAttribute('data-status', 'pending')
  expect(errors).toEqual([])
})

test('Undo of a file changed where the watcher does not look asks before it loses anything', async () => {
  // debug.log is ignored by the project's .gitignore, so the watcher never reports it: the panel
  // learns of the person's edit only when Undo finds it.
  await runTwoEdits('light', edit('debug.log', 'noise', 'noise, by the agent'))
  const log = row('debug.log')
  writeFileSync(join(project, 'debug.log'), 'noise, and mine\n')
  await see(log).toHaveAttribute('data-status', 'pending')
  await log.getByRole('button', { name: 'Undo', exact: true }).click()
  await see(log).toHaveAttribute('data-status', 'conflict')
  await see(log.getByRole('alert')).toContainText('You changed this file after the agent wrote it')
  expect(read('debug.log')).toBe('noise, and mine\n')

  await log.getByRole('button', { name: 'Undo anyway' }).click()
  await see(log).toHaveAttribute('data-status', 'undone')
  expect(read('debug.log')).toBe('noise\n')
  expect(errors).toEqual([])
})

test('a file a later run changed again is worded as that, not as the person\'s edit', async () => {
  await queueTurns(fake, [
    edit('README.md', '# Sample', '# Sample, by the agent'),
    { chunks: [{ content: 'Edited. [TASK_COMPLETE]' }] },
    edit('README.md', '# Sample, by the agent', '# Sample, twice'),
    { chunks: [{ content: 'Edited again. [TASK_COMPLETE]' }] },
  ])
  gantry = await startGantry({ ...dirs, ollamaHost: fake.host })
  ;({ page, errors } = await openPage(gantry.url, 'light'))
  project = makeProject()
  await openProject(page, project)
  await page.getByLabel('Model').selectOption('qwen3:4b')
  await sendTask(page, 'Edit the readme')
  await see(page.getByTestId('review-panel')).toHaveAttribute('aria-busy', 'false')
  await sendTask(page, 'Edit it again')
  await see(page.getByTestId('review-panel')).toHaveCount(2)

  const first = page.getByTestId('review-panel').first().getByTestId('review-file')
  await see(first).toHaveAttribute('data-status', 'conflict')
  await see(first).toContainText('Changed by a later run')
  await see(first.getByRole('alert')).toContainText('A later run changed this file again')
  await shot(page, 'review-later-run')
  await see(page.getByTestId('review-panel').last().getByTestId('review-file')).toHaveAttribute('data-status', 'pending')
  expect(read('README.md')).toBe('# Sample, twice\n')
  expect(errors).toEqual([])
})

test('Keep all keeps every file as the agent left it', async () => {
  await runTwoEdits()
  const panel = page.getByTestId('review-panel')
  await panel.getByRole('button', { name: 'Keep all' }).click()
  await see(row('README.md')).toHaveAttribute('data-status', 'kept')
  await see(row('src/main.go')).toHaveAttribute('data-status', 'kept')
  await see(panel.getByRole('button', { name: 'Undo all' })).toHaveCount(0)
  expect(read('README.md')).toBe('# Sample, by the agent\n')
  expect(read('src/main.go')).toBe('package main // agent\n')
  expect((await toolResults(fake)).join('\n')).toContain('src/main.go')
  expect(errors).toEqual([])
})

test('Undo all restores both files; one deleted since is left with its own wording', async () => {
  await runTwoEdits()
  rmSync(join(project, 'README.md'))
  const panel = page.getByTestId('review-panel')
  await panel.getByRole('button', { name: 'Undo all' }).click()
  await see(row('src/main.go')).toHaveAttribute('data-status', 'undone')
  await see(row('README.md')).toHaveAttribute('data-status', 'conflict')
  await see(row('README.md').getByRole('alert')).toContainText('You deleted this file after the agent wrote it')
  expect(read('src/main.go')).toBe('package main\n')
  expect(existsSync(join(project, 'README.md'))).toBe(false)

  await row('README.md').getByRole('button', { name: 'Undo anyway' }).click()
  await see(row('README.md')).toHaveAttribute('data-status', 'undone')
  expect(read('README.md')).toBe('# Sample\n')
  expect(errors).toEqual([])
})

test('the diff shows both sides side by side, or unified, and the choice is remembered', async () => {
  await runTwoEdits()
  const readme = row('README.md')
  await readme.getByRole('button', { name: 'README.md' }).click()
  const diff = readme.getByTestId('diff')
  await see(diff).toHaveAttribute('data-layout', 'split')
  await see(diff.getByLabel('Text before the change')).toContainText('# Sample')
  await see(diff.getByLabel('Proposed text')).toContainText('# Sample, by the agent')
  await see(diff.getByLabel('Proposed text')).toHaveAttribute('contenteditable', 'false')

  await diff.getByRole('button', { name: 'Unified' }).click()
  await see(diff).toHaveAttribute('data-layout', 'unified')
  await see(diff.locator('.cm-editor')).toHaveCount(1)
  await see(diff.locator('.cm-deletedChunk')).toContainText('# Sample')
  await see(diff.locator('.cm-changedLine')).toContainText('# Sample, by the agent')

  await page.reload()
  await see(page.getByTestId('review-panel')).toBeVisible()
  await row('src/main.go').getByRole('button', { name: 'src/main.go' }).click()
  await see(row('src/main.go').getByTestId('diff')).toHaveAttribute('data-layout', 'unified')
  await see(row('src/main.go').locator('.cm-changedLine')).toContainText('package main // agent')
  expect(errors).toEqual([])
})

test('screenshots of the review panel, light and dark', async () => {
  for (const scheme of ['light', 'dark'] as const) {
    await runTwoEdits(scheme)
    writeFileSync(join(project, 'src', 'main.go'), 'package main // mine\n')
    await see(row('src/main.go')).toHaveAttribute('data-status', 'conflict')
    await row('README.md').getByRole('button', { name: 'README.md' }).click()
    await see(row('README.md').locator('.cm-mergeView')).toBeVisible()
    await page.getByTestId('review-panel').scrollIntoViewIfNeeded()
    await shot(page, `review-panel-${scheme}`)
    expect(errors).toEqual([])
    await stopAll({ page, gantry, fake })
    fake = await startFakeOllama()
    dirs = tempDirs()
  }
})
