// Code intelligence in the window: the agent asks the real gopls (installed by make test) for a
// function's uses, the row lists the places and each opens the file there; an edit that breaks
// the build shows the errors it brought in; Settings shows the server running.
import { afterAll, afterEach, beforeEach, expect, test } from 'vitest'
import type { Page } from 'playwright-core'
import { see } from './see'
import { closeAll, openPage, openProject, queueTurns, sendTask, shot, startFakeOllama, startGantry, stopAll, tempDirs, toolResults, type FakeOllama, type Gantry } from './harness'
import { makeGoProject } from './fixtures'

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

const call = (name: string, args: Record<string, unknown>) => ({ chunks: [{ toolCalls: [{ name, arguments: args }] }] })
const answer = (text: string) => ({ chunks: [{ content: text }] })

for (const scheme of ['light', 'dark'] as const) {
  test(`find_references lists the places, each opens the file there; a breaking edit shows its errors (${scheme})`, async () => {
    await queueTurns(fake, [
      call('find_references', { path: 'shapes/shapes.go', symbolName: 'Total' }),
      answer('Total is used in main.go. [TASK_COMPLETE]'),
      call('edit_file', { path: 'main.go', old: 'shapes.Total(', new: 'shapes.Totl(' }),
      answer('Renamed the call. [TASK_COMPLETE]'),
    ])
    gantry = await startGantry({ ...dirs, ollamaHost: fake.host })
    ;({ page, errors } = await openPage(gantry.url, scheme))
    await openProject(page, makeGoProject())
    await page.getByLabel('Model').selectOption('qwen3:4b')

    await sendTask(page, 'Who uses Total?')
    await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
    const group = page.getByTestId('progress-group').first()
    await see(group).toContainText('Analyzed code')
    const row = group.getByTestId('action')
    await see(row).toContainText('Found uses of Total')
    await row.getByRole('button').first().click()
    const places = row.getByTestId('places')
    await see(places).toContainText('main.go:14')
    await see(places).toContainText('shapes/shapes.go:24')
    expect((await toolResults(fake)).join('\n')).toContain('── main.go ──')
    await shot(page, `code-places-${scheme}`)

    await places.getByRole('button', { name: /main\.go:14/ }).click()
    const viewer = page.getByTestId('file-viewer')
    await see(viewer.locator('h2')).toContainText('main.go')
    await see(viewer.locator('.cm-content')).toContainText('shapes.Total(')

    await sendTask(page, 'Rename the call')
    await see(page.getByTestId('run-status')).toHaveCount(2)
    await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
    const problems = page.getByTestId('problems')
    await see(problems).toContainText('14')
    await see(problems).toContainText('Totl')
    expect((await toolResults(fake)).join('\n')).toContain('gopls found 1 error in main.go that this change brought in')
    // The viewer left open on main.go follows the edit.
    await see(viewer.locator('.cm-content')).toContainText('shapes.Totl(')
    await shot(page, `code-problems-${scheme}`)

    await page.getByRole('button', { name: 'Settings' }).click()
    await page.getByRole('tab', { name: 'Code intelligence' }).click()
    const goServer = page.getByTestId('language-server').and(page.locator('[data-id="go"]'))
    await see(goServer).toHaveAttribute('data-state', 'running')
    await see(goServer).toContainText('in this project')
    await shot(page, `code-settings-${scheme}`)
    expect(errors).toEqual([])
  })
}
