// Subagents in the window: a foreground subagent shows inside the call that started it, asks
// through a card that names it, and its answer reaches the model; background tasks show as chips
// above the input (running, then how they ended, Cancel), their notices as lines, and a result
// after the run ended starts a turn of its own. A reload shows it all again.
import { afterAll, afterEach, beforeEach, expect, test } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { see } from './see'
import {
  closeAll, openPage, openProject, queueTurns, releaseTurns, sendTask, shot, startFakeOllama, startGantry, stopAll, tempDirs, toolResults,
  type FakeOllama, type Gantry,
} from './harness'
import { makeProject } from './fixtures'

let dirs: ReturnType<typeof tempDirs>
let gantry: Gantry | undefined
let fake: FakeOllama
let page: Page
let errors: string[]

beforeEach(async () => {
  fake = await startFakeOllama()
  dirs = tempDirs()
  gantry = undefined
})
afterEach(async () => {
  await stopAll({ page, gantry, fake, dirs })
})
afterAll(closeAll)

const turn = (when: string, chunks: unknown[], hold = '') => ({ when, hold, chunks })
const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] })
const say = (text: string) => ({ content: text })

const task = 'Look into the greeting'

for (const scheme of ['light', 'dark'] as const) {
  test(`a foreground subagent works inside its call and asks through a card naming it (${scheme})`, async () => {
    const brief = 'Read README.md and write a NOTES.md summary'
    await queueTurns(fake, [
      turn(task, [call('spawn_agent', { task: brief, mode: 'agent' })]),
      turn(brief, [call('read_file', { path: 'README.md' })]),
      turn(brief, [call('write_file', { path: '.env', content: 'NOTE=1\n' })]),
      turn(brief, [say('Wrote .env with the note. [TASK_COMPLETE]')]),
      turn(task, [say('The subagent wrote the note. [TASK_COMPLETE]')]),
    ])
    gantry = await startGantry({ ...dirs, ollamaHost: fake.host })
    ;({ page, errors } = await openPage(gantry.url, scheme))
    await openProject(page, makeProject())
    await page.getByLabel('Model').selectOption('qwen3:4b')
    await sendTask(page, task)

    // The subagent is shown inside the call while it works, and asks through a card naming it.
    const spawn = page.locator('[data-subagent-run]')
    await see(spawn.getByTestId('subagent')).toBeAttached()
    await see(page.getByTestId('approval-asker')).toContainText(brief)
    await see(spawn.getByTestId('subagent')).toContainText('Read README.md')
    await shot(page, `subagent-asks-${scheme}`)
    await page.getByTestId('approval-card').getByRole('button', { name: /^Accept/ }).click()

    await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
    await see(spawn.getByTestId('subagent-status')).toContainText('Finished')
    expect((await toolResults(fake)).join('\n')).toContain('The subagent finished (2 tool uses).')
    // Its change is its own to keep or undo.
    await see(spawn.getByTestId('subagent').getByRole('button', { name: /\.env created/ })).toBeAttached()
    await shot(page, `subagent-done-${scheme}`)
    expect(errors).toEqual([])
  })

  test(`background tasks show as chips, can be cancelled, and a late result starts a turn (${scheme})`, async () => {
    await queueTurns(fake, [
      turn(task, [call('spawn_agent', { task: 'Count the Go files', run_in_background: true }), call('spawn_agent', { task: 'Watch the logs', run_in_background: true })]),
      turn(task, [say('Both are running; I will report. [TASK_COMPLETE]')]),
      turn('Count the Go files', [say('There are 2 Go files. [TASK_COMPLETE]')], 'count'),
      turn('Watch the logs', [say('Nothing yet.')], 'never'),
      turn(task, [say('The count is in: 2 Go files. [TASK_COMPLETE]')]),
    ])
    // An Ollama that answers three at once: the task that never answers must not keep the
    // model from the others (with one at a time they would wait in line behind it).
    writeFileSync(join(dirs.configDir, 'settings.json'), JSON.stringify({ modelRequests: 3 }))
    gantry = await startGantry({ ...dirs, ollamaHost: fake.host })
    ;({ page, errors } = await openPage(gantry.url, scheme))
    await openProject(page, makeProject())
    await page.getByLabel('Model').selectOption('qwen3:4b')
    await sendTask(page, task)
    await see(page.getByTestId('run-status').first()).toHaveAttribute('data-status', 'done')

    const chips = page.getByTestId('background-task')
    await see(chips).toHaveCount(2)
    await see(chips.nth(0)).toHaveAttribute('data-status', 'running')
    await shot(page, `background-running-${scheme}`)

    // Cancel one (that starts no turn: the person knows); the other's result comes after the
    // run ended and starts a turn of its own, which hands the model both notices.
    await chips.nth(1).getByRole('button', { name: /Cancel/ }).click()
    await see(chips.nth(1)).toHaveAttribute('data-status', 'cancelled')
    await releaseTurns(fake, 'count')
    await see(chips.nth(0)).toHaveAttribute('data-status', 'done')
    await see(page.getByTestId('turn')).toHaveCount(2)
    const notices = page.getByTestId('turn').nth(1).getByTestId('notice')
    await see(notices.filter({ hasText: 'Count the Go files' })).toHaveCount(1)
    await see(notices.filter({ hasText: 'Watch the logs' })).toHaveCount(1)
    await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
    await see(page.getByTestId('turn').nth(1)).toContainText('The count is in: 2 Go files.')
    await shot(page, `background-done-${scheme}`)

    // A chip opens its task's run where it was started.
    await chips.nth(0).getByRole('button', { name: /Count the Go files/ }).click()
    await see(page.locator('[data-subagent-run]').first().getByTestId('subagent')).toContainText('There are 2 Go files.')

    // A reload shows the same: the chips, the notice, the turn it started.
    await page.reload()
    await see(page.getByTestId('background-task')).toHaveCount(2)
    await see(page.getByTestId('background-task').nth(1)).toHaveAttribute('data-status', 'cancelled')
    await see(page.getByTestId('turn')).toHaveCount(2)
    expect(errors).toEqual([])
  })
}
