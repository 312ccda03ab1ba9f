// Sessions: the Chats list in the sidebar, against a real `gantry serve` and fake Ollama. Two
// tasks in two chats, reopening one (a replay of its stored events), renaming and deleting.
import { afterAll, afterEach, beforeEach, expect, test } from 'vitest'
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

const answer = (text: string) => ({ chunks: [{ content: `${text} [TASK_COMPLETE]` }] })

const transcript = () => page.getByTestId('message-list')
/** The transcript's text as shown. A turn is rendered only once a frame has found it in view
 * (MessageList's content-visibility: auto); until then innerText leaves it out. */
const shownText = async () => {
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))))
  return transcript().innerText()
}
const rows = () => page.getByTestId('session')
const row = (title: string) => rows().filter({ hasText: title })

test('chats are listed, reopened as shown live, renamed and deleted', async () => {
  await queueTurns(fake, [
    { chunks: [{ thinking: 'Short question.' }, { toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] }] },
    answer('The README is a **one-line** title.'),
    answer('There are no tests yet.'),
  ])
  ;({ page, errors } = await openPage(gantry.url, 'light'))
  await openProject(page, makeProject())
  await page.getByLabel('Model').selectOption('qwen3:4b')
  await page.getByRole('tab', { name: 'Chats' }).click()
  await see(page.getByText('No chats yet')).toBeVisible()

  await sendTask(page, 'What does the README say?')
  await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
  await see(transcript()).toContainText('one-line')
  const firstLive = await shownText()
  await see(rows()).toHaveCount(1)
  await see(row('What does the README say?').locator('[aria-current="true"]')).toHaveCount(1)

  await page.getByRole('button', { name: 'New chat' }).click()
  await see(transcript()).toHaveCount(0)
  await sendTask(page, 'Are there tests?')
  await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
  await see(transcript()).toContainText('no tests yet')
  const secondLive = await shownText()

  // Newest first, the shown one highlighted.
  await see(rows()).toHaveCount(2)
  await see(rows().nth(0)).toContainText('Are there tests?')
  await see(rows().nth(1)).toContainText('What does the README say?')
  await see(rows().nth(0).locator('[aria-current="true"]')).toHaveCount(1)
  await see(rows().nth(0)).toContainText('Agent')
  await rows().nth(1).hover()
  await shot(page, `sessions-light`)

  // Reopening replays the stored events: after a reload nothing is cached, so the first chat is
  // rebuilt from its event log alone and must read exactly as it did live.
  await page.reload()
  await see(transcript()).toContainText('no tests yet')
  expect(await shownText()).toBe(secondLive)
  await row('What does the README say?').getByRole('button', { name: /What does the README say/ }).click()
  await see(transcript()).toContainText('one-line')
  await see(transcript().locator('strong', { hasText: 'one-line' })).toBeVisible()
  expect(await shownText()).toBe(firstLive)
  await see(row('What does the README say?').locator('[aria-current="true"]')).toHaveCount(1)
  // And back again, from the cache this time.
  await row('Are there tests?').getByRole('button', { name: /Are there tests/ }).click()
  await see(transcript()).toContainText('no tests yet')
  expect(await shownText()).toBe(secondLive)

  // Rename inline: Escape cancels, Enter saves; the title survives a reload.
  const first = row('What does the README say?')
  await first.getByRole('button', { name: /What does the README say/ }).dblclick()
  const input = page.getByLabel('Chat title')
  await see(input).toHaveValue('What does the README say?')
  await input.fill('Ignored')
  await input.press('Escape')
  await see(input).toHaveCount(0)
  await see(rows().filter({ hasText: 'Ignored' })).toHaveCount(0)
  await first.hover()
  await first.getByRole('button', { name: 'Rename What does the README say?' }).click()
  await page.getByLabel('Chat title').fill('README summary')
  await page.getByLabel('Chat title').press('Enter')
  await see(row('README summary')).toHaveCount(1)
  await page.reload()
  await see(row('README summary')).toHaveCount(1)
  await see(row('What does the README say?')).toHaveCount(0)

  // Delete asks first (an in-app dialog); Cancel keeps the chat.
  let nativeDialogs = 0
  page.on('dialog', (d) => {
    nativeDialogs++
    void d.dismiss()
  })
  await row('Are there tests?').hover()
  await row('Are there tests?').getByRole('button', { name: 'Delete Are there tests?' }).click()
  const confirm = page.getByRole('dialog', { name: 'Delete chat' })
  await see(confirm).toContainText('Are there tests?')
  await confirm.getByRole('button', { name: 'Cancel' }).click()
  await see(confirm).toHaveCount(0)
  await see(rows()).toHaveCount(2)

  // The double-click that renamed it also opened it; deleting the shown chat empties the panel.
  await see(row('README summary').locator('[aria-current="true"]')).toHaveCount(1)
  await row('README summary').hover()
  await row('README summary').getByRole('button', { name: 'Delete README summary' }).click()
  await confirm.getByRole('button', { name: 'Delete', exact: true }).click()
  await see(rows()).toHaveCount(1)
  await see(transcript()).toHaveCount(0)
  await expect.poll(() => page.getByRole('button', { name: 'New chat' }).isDisabled()).toBe(true)
  await page.reload()
  await see(row('Are there tests?')).toHaveCount(1)
  await see(rows()).toHaveCount(1)
  await see(transcript()).toHaveCount(0)
  expect(nativeDialogs).toBe(0)
  expect(errors).toEqual([])
})
