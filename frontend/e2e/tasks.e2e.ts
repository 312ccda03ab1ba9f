// The task list in the window: the model plans three steps and works through them; the
// checklist above the input follows every change, folds once all are done, and a reload shows
// it again from the stored events.
import { afterAll, afterEach, beforeEach, expect, test } from 'vitest'
import type { Page } from 'playwright-core'
import { see } from './see'
import { closeAll, openPage, openProject, queueTurns, sendTask, shot, startFakeOllama, startGantry, stopAll, tempDirs, type FakeOllama, type Gantry } from './harness'
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

const calls = (...cs: [string, Record<string, unknown>][]) => ({ chunks: [{ toolCalls: cs.map(([name, args]) => ({ name, arguments: args })) }] })
const answer = (text: string) => ({ chunks: [{ content: text }] })

for (const scheme of ['light', 'dark'] as const) {
  test(`the checklist follows the model's task list, folds when all are done, and replays (${scheme})`, async () => {
    await queueTurns(fake, [
      calls(
        ['task_create', { title: 'Read how the greeting is built' }],
        ['task_create', { title: 'Fix the spelling of hello', notes: 'in src/main.ts' }],
        ['task_create', { title: 'Check the other messages' }],
      ),
      calls(['task_update', { id: 1, status: 'done' }], ['task_update', { id: 2, status: 'in_progress' }]),
      answer('Stopping here for now. [TASK_COMPLETE]'),
      calls(['task_update', { id: 2, status: 'done' }], ['task_update', { id: 3, status: 'done' }]),
      answer('All done. [TASK_COMPLETE]'),
    ])
    gantry = await startGantry({ ...dirs, ollamaHost: fake.host })
    ;({ page, errors } = await openPage(gantry.url, scheme))
    await openProject(page, makeProject())
    await page.getByLabel('Model').selectOption('qwen3:4b')

    await sendTask(page, 'Plan the greeting fixes')
    await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
    const list = page.getByTestId('task-checklist')
    await see(list.getByTestId('task')).toHaveCount(3)
    await see(list.getByTestId('task-count')).toContainText('1 of 3 done')
    await see(list.getByTestId('task').nth(0)).toHaveAttribute('data-status', 'done')
    await see(list.getByTestId('task').nth(1)).toHaveAttribute('data-status', 'in_progress')
    await see(list.getByTestId('task').nth(2)).toHaveAttribute('data-status', 'pending')
    await see(page.getByTestId('progress-group').first()).toContainText('Updated the task list')
    await shot(page, `tasks-under-way-${scheme}`)

    // A reload shows the list as it was, from the stored events.
    await page.reload()
    await see(page.getByTestId('task-checklist').getByTestId('task-count')).toContainText('1 of 3 done')
    // …and the conversation goes on with the model it used.
    await see(page.getByLabel('Model')).toHaveValue('qwen3:4b')

    await sendTask(page, 'Finish them')
    await see(page.getByTestId('run-status')).toHaveCount(2)
    await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
    await see(list.getByTestId('task-count')).toContainText('3 of 3 done')
    // All done: the list folds to its header, which opens it again.
    await see(list.getByTestId('task')).toHaveCount(0)
    await list.getByRole('button', { name: /Tasks/ }).click()
    await see(list.getByTestId('task')).toHaveCount(3)
    await shot(page, `tasks-done-${scheme}`)
    expect(errors).toEqual([])
  })
}
