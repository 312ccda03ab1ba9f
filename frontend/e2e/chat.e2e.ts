// The chat: a real `gantry serve`, a real agent run against fake Ollama, scripted turn by turn
// through its control endpoint, rendered in Chromium.
import { afterAll, afterEach, beforeEach, expect, test } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { see } from './see'
import { shot, sendTask, openProject, queueTurns, stopAll, closeAll, openPage, startFakeOllama, startGantry, tempDirs, type FakeOllama, type Gantry } from './harness'
import { makeProject } from './fixtures'

let dirs: ReturnType<typeof tempDirs>
let gantry: Gantry
let fake: FakeOllama
let page: Page
let errors: string[]

beforeEach(async () => {
  fake = await startFakeOllama()
  dirs = tempDirs()
  gantry = await startGantry({ ...dirs, ollamaHost: fake.host })
})
afterEach(async () => {
  await stopAll({ page, gantry, fake, dirs })
})
afterAll(closeAll)

async function open(scheme: 'light' | 'dark' = 'light', model = 'qwen3:4b') {
  ;({ page, errors } = await openPage(gantry.url, scheme))
  const project = makeProject()
  await openProject(page, project)
  if (!model) return project
  // Without a default model in the settings the first installed one is preselected.
  await see(page.getByLabel('Model')).toHaveValue('llama3.2:3b')
  await page.getByLabel('Model').selectOption(model)
  return project
}

const readThenAnswer = (delayMs = 0) => [
  {
    chunkDelayMs: delayMs,
    chunks: [
      { thinking: 'The README should say what this project is. ' },
      { thinking: 'Let me read it first.' },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] },
    ],
  },
  {
    chunkDelayMs: delayMs,
    chunks: [
      { content: 'Done **here**. The README is a one-line title:\n\n' },
      { content: '```md\n# Sample\n```\n\nNothing else to change. [TASK_COMPLETE]' },
    ],
  },
]

test('a file the person edits between two messages: the model is told, and the chat says so', async () => {
  await queueTurns(fake, [...readThenAnswer(), { chunks: [{ content: 'Noted. [TASK_COMPLETE]' }] }])
  const project = await open()
  await sendTask(page, 'What does the README say?')
  await see(page.getByTestId('run-status').first()).toHaveAttribute('data-status', 'done')
  // The history keeps milliseconds: the edit must fall in a later one than the read.
  await new Promise((r) => setTimeout(r, 20))
  writeFileSync(join(project, 'README.md'), '# Sample, edited by the person\n')

  await sendTask(page, 'And now?')
  await see(page.getByTestId('run-status').nth(1)).toHaveAttribute('data-status', 'done')
  const note = page.getByTestId('turn').nth(1).getByTestId('files-changed-note')
  await see(note).toContainText('The model was told that README.md changed on disk since it last saw it.')
  await see(page.getByTestId('turn').first().getByTestId('files-changed-note')).toHaveCount(0)
  const requests = (await (await fetch(`${fake.url}/_fake/requests`)).json()) as { messages: { role: string; content: string }[] }[]
  expect(requests.at(-1)!.messages.at(-1)!.content).toContain('- README.md')
  await shot(page, 'files-changed-note')

  await page.reload()
  await see(page.getByTestId('turn').nth(1).getByTestId('files-changed-note')).toContainText('README.md changed on disk')
  expect(errors).toEqual([])
})

test('a task streams thinking, a progress group and a rendered answer', async () => {
  await queueTurns(fake, readThenAnswer(150))
  await open()
  await sendTask(page, 'What does the README say?')

  await see(page.getByText('What does the README say?')).toBeVisible()
  const thinking = page.getByTestId('thinking').first()
  await see(thinking).toContainText('Thought for')
  const group = page.getByTestId('progress-group').first()
  await see(group.locator('[data-testid="action"][data-status="success"]').first()).toBeVisible()
  await see(group.locator('[data-testid="action"]:not([data-status="success"])')).toHaveCount(0)
  // Once done, the group and its rows say what was done.
  await see(group).toContainText('Read files')
  await see(group.getByTestId('action').first()).toContainText('Read README.md')
  await see(group).toContainText('README.md')
  await see(page.getByTestId('assistant-message')).toHaveCount(1)
  // Icons are painted through a mask made at run time (Icon.svelte): the page's CSP must let
  // the rule in, or every icon would be an empty box.
  const done = group.getByTestId('action').first().locator('.status .icon')
  expect(await done.evaluate((el) => [getComputedStyle(el).maskImage.slice(0, 24), el.getBoundingClientRect().width])).toEqual([
    'url("data:image/svg+xml,',
    14,
  ])
  // A forced-colours mode (Windows High Contrast) drops backgrounds: not the icons'.
  await page.emulateMedia({ forcedColors: 'active' })
  const paint = () => done.evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color])
  const [background, colour] = await paint()
  expect(background).toBe(colour)
  await page.emulateMedia({ forcedColors: 'none' })
  await shot(page, 'chat-running-light')

  const answer = page.getByTestId('assistant-message').last()
  await see(answer.locator('strong', { hasText: 'here' })).toBeVisible()
  await see(answer.locator('pre code')).toContainText('# Sample')
  await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
  expect(await page.locator('.chat').textContent()).not.toContain('TASK_COMPLETE')

  // The thinking block expands to the model's reasoning.
  await thinking.getByRole('button').click()
  await see(thinking).toContainText('Let me read it first.')
  await see(page.getByRole('button', { name: /Send/ })).toBeVisible()
  await shot(page, 'chat-finished-light')
  await page.emulateMedia({ colorScheme: 'dark' })
  await shot(page, 'chat-finished-dark')

  // A reload shows the same conversation again, from the stored events.
  await page.reload()
  await see(page.getByTestId('assistant-message').last().locator('strong', { hasText: 'here' })).toBeVisible()
  await see(page.getByTestId('progress-group')).toHaveCount(1)
  expect(errors).toEqual([])
})

test('hostile Markdown in an answer runs no script', async () => {
  await queueTurns(fake, [
    {
      chunks: [
        {
          content:
            'Look: <script>window.__xss = 1</script> <img src=x onerror="window.__xss = 2"> ' +
            '<svg onload="window.__xss = 3"></svg> <iframe src="javascript:parent.__xss = 4"></iframe>\n\n' +
            '[click me](javascript:window.__xss=5) and [docs](https://example.com) [TASK_COMPLETE]',
        },
      ],
    },
  ])
  await open()
  let dialogs = 0
  page.on('dialog', (d) => {
    dialogs++
    void d.dismiss()
  })
  await sendTask(page, 'Say something nasty')
  const answer = page.getByTestId('assistant-message').last()
  await see(answer).toContainText('click me')
  await see(answer).toContainText('<script>')
  // No target, so the click can go nowhere; a handler would have run during it.
  expect(await answer.getByText('click me').getAttribute('href')).toBeNull()
  await answer.getByText('click me').click()
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined()
  expect(dialogs).toBe(0)
  await see(answer.locator('script, img, svg, iframe')).toHaveCount(0)
  await see(answer.locator('a[href="https://example.com"][rel="noopener noreferrer"]')).toHaveCount(1)
})

test('Stop ends a slow run and shows it as stopped', async () => {
  // The model stalls after its first words: only Stop can end this run, however slow the machine
  // (a run that merely took a while could finish on its own before the click).
  await queueTurns(fake, [{ chunkDelayMs: 600_000, chunks: [{ thinking: 'The README should say what this project is. ' }, { thinking: 'Never sent.' }] }])
  await open('dark')
  await sendTask(page, 'What does the README say?')
  const stop = page.getByRole('button', { name: 'Stop' })
  await see(stop).toBeVisible()
  await see(page.getByTestId('thinking').first()).toContainText('Thinking')
  await shot(page, 'chat-running-dark')
  await stop.click()
  await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'cancelled')
  await see(page.getByRole('button', { name: /Send/ })).toBeVisible()
  await shot(page, 'chat-stopped-dark')
  expect(errors).toEqual([])
})

test('Send after Ollama went away: the reason is shown, the status follows, nothing typed is lost', async () => {
  await fake.stop()
  await open('light', '')
  await sendTask(page, 'Anything')
  // The app may not have noticed yet that Ollama is gone (it re-checks every 30 s while it is up):
  // then the run starts and fails with the reason, and the message stays in the chat. If it has
  // noticed, there is no model to pick and Send is refused before a run starts.
  const failed = page.locator('[data-testid="run-status"][data-status="failed"]')
  await see(failed.or(page.getByTestId('chat-error'))).toBeVisible()
  if (await failed.count()) {
    await see(failed).toContainText('not reachable')
    await see(page.getByTestId('message-list')).toContainText('Anything')
  }
  // Either way the status bar knows now, and the next Send is refused with the text kept.
  await see(page.getByTestId('ollama-status')).toContainText('unreachable')
  await sendTask(page, 'Once more')
  await see(page.getByTestId('chat-error')).toBeVisible()
  await see(page.getByLabel('Task', { exact: true })).toHaveValue('Once more')
})
