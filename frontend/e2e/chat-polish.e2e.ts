// The chat's finer points in a real browser against `gantry serve` and fake Ollama: two progress
// groups with thinking, coloured command output, the file viewer, attachments, plan → run, the
// running-chat marker and the keyboard shortcuts.
import { afterAll, afterEach, beforeEach, expect, test } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { see } from './see'
import { shot, sendTask, closeAll, openPage, openProject, queueTurns, startFakeOllama, startGantry, stopAll, tempDirs, type FakeOllama, type Gantry } from './harness'
import { makeProject } from './fixtures'

let dirs: ReturnType<typeof tempDirs>
let gantry: Gantry
let fake: FakeOllama
let page: Page
let errors: string[]
let project: string

beforeEach(async () => {
  fake = await startFakeOllama()
  dirs = tempDirs()
  // Full permissions: nothing here is about approvals, so no card waits for a click.
  writeFileSync(join(dirs.configDir, 'settings.json'), JSON.stringify({ permissionMode: 'full' }))
  gantry = await startGantry({ ...dirs, ollamaHost: fake.host })
})
afterEach(async () => {
  await stopAll({ page, gantry, fake, dirs })
})
afterAll(closeAll)

async function open(scheme: 'light' | 'dark' = 'light') {
  ;({ page, errors } = await openPage(gantry.url, scheme))
  project = makeProject()
  writeFileSync(join(project, 'src', 'long.go'), Array.from({ length: 200 }, (_, i) => `// line ${i + 1}`).join('\n') + '\n')
  await openProject(page, project)
  await page.getByLabel('Model').selectOption('qwen3:4b')
}

/** The user messages the fake received, oldest first. */
async function userMessages(): Promise<string[]> {
  const res = await fetch(`${fake.url}/_fake/requests`)
  const requests = (await res.json()) as { messages?: { role: string; content: string }[] }[]
  return (requests.at(-1)?.messages ?? []).filter((m) => m.role === 'user').map((m) => m.content)
}

const command = "printf '\\033[31mred\\033[0m and \\033[1;32mbold green\\033[0m\\n'"

const twoGroups = (delayMs = 60) => [
  {
    // Slow enough that the thinking lasts a measurable while.
    chunkDelayMs: 400,
    chunks: [
      { thinking: 'First the README, and a look at the build. ' },
      { thinking: 'Then one fix.' },
      {
        toolCalls: [
          { name: 'read_file', arguments: { path: 'README.md' } },
          { name: 'run_terminal_command', arguments: { command } },
        ],
      },
    ],
  },
  {
    chunkDelayMs: delayMs,
    chunks: [{ toolCalls: [{ name: 'edit_file', arguments: { path: 'README.md', old: '# Sample', new: '# Sample project\n\nA sample.' } }] }],
  },
  { chunkDelayMs: delayMs, chunks: [{ content: 'Updated the README:\n\n```go\nfunc main() { fmt.Println("hi") }\n```\n[TASK_COMPLETE]' }] },
]

test('a run shows thinking, two progress groups, coloured output and opens files in the viewer', async () => {
  await queueTurns(fake, twoGroups())
  await open()
  await sendTask(page, 'Tidy the README')

  const groups = page.getByTestId('progress-group')
  await see(groups).toHaveCount(2)
  await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
  const [first, second] = [groups.nth(0), groups.nth(1)]
  // read_file is one row, not the call plus its chunk.
  await see(first.getByTestId('action')).toHaveCount(2)
  await see(first.locator('[data-testid="action"][data-status="success"]')).toHaveCount(2)
  await see(first).toContainText('README.md')
  await see(first.locator('.took').first()).toBeVisible()
  await see(second.getByTestId('action')).toHaveCount(1)
  await see(second.locator('.add')).toContainText('+3')
  await see(second.locator('.del')).toContainText('−1')
  expect(await first.locator('.title').first().textContent()).toBeTruthy()

  const thinking = page.getByTestId('thinking').first()
  await see(thinking).toContainText('Thought for')
  await thinking.getByRole('button').click()
  await see(thinking).toContainText('Then one fix.')

  // The command's output in colour: spans with the theme's colours, no escape codes.
  await first.getByRole('button', { name: /printf/ }).click()
  const out = first.getByTestId('command-output')
  await see(out).toContainText('red and bold green')
  expect(await out.textContent()).not.toContain('\x1b')
  expect(await out.textContent()).not.toContain('[31m')
  await see(out.locator('span', { hasText: 'red' }).first()).toHaveAttribute('style', 'color: var(--ansi-1);')
  const green = await out.locator('span', { hasText: 'bold green' }).evaluate((el) => getComputedStyle(el).color)
  expect(green).not.toBe(await out.evaluate((el) => getComputedStyle(el).color))

  // Code in the answer is highlighted and has Copy.
  const answer = page.getByTestId('assistant-message').last()
  await see(answer.locator('pre code span.tok-keyword').first()).toBeVisible()
  await see(answer.getByRole('button', { name: 'Copy code' })).toBeAttached()
  await shot(page, 'chat-groups-light')

  // A file action opens the file in the read-only viewer.
  await first.locator('[data-testid="action"][data-status="success"]', { hasText: 'README.md' }).getByRole('button').click()
  const viewer = page.getByTestId('file-viewer')
  await see(viewer).toBeVisible()
  await see(viewer.locator('h2')).toContainText('README.md')
  await see(viewer.locator('.cm-content')).toContainText('# Sample project')
  await shot(page, 'chat-viewer-light')
  // Read only: typing changes nothing.
  const before = await viewer.locator('.cm-content').textContent()
  await viewer.locator('.cm-line').first().click()
  await page.keyboard.type('zzz')
  expect(await viewer.locator('.cm-content').textContent()).toBe(before)
  await page.keyboard.press('Escape')
  await see(viewer).toBeHidden()
  expect(errors).toEqual([])

  // The same chat reopened in a dark window: replayed, colours and all.
  const light = page
  ;({ page, errors } = await openPage(gantry.url, 'dark'))
  await openProject(page, project)
  await page.getByRole('tab', { name: 'Chats' }).click()
  await page.getByTestId('session').first().getByRole('button').first().click()
  const replayed = page.getByTestId('progress-group').first()
  await replayed.getByRole('button', { name: /printf/ }).click()
  await see(replayed.locator('[data-testid="command-output"] span', { hasText: 'bold green' })).toBeVisible()
  await shot(page, 'chat-groups-dark')
  await replayed.locator('[data-testid="action"]', { hasText: 'README.md' }).getByRole('button').click()
  await see(page.getByTestId('file-viewer').locator('.cm-content')).toContainText('# Sample project')
  await shot(page, 'chat-viewer-dark')
  expect(errors).toEqual([])
  await light.context().close()
})

test('the file tree menu opens from the keyboard at the item and gives the focus back', async () => {
  await open()
  const tree = page.getByRole('tree', { name: 'Files' })
  const readme = tree.getByRole('treeitem', { name: 'README.md' })
  await readme.locator('.row').click()
  await page.keyboard.press('ArrowUp')
  await page.keyboard.press('ArrowDown') // a keyboard focus: the row shows its "+"
  const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent)
  expect(await focused()).toBe('README.md')
  const add = tree.getByRole('button', { name: 'Add README.md to chat' })
  expect(await add.evaluate((el) => getComputedStyle(el).opacity)).toBe('1')

  await page.keyboard.press('Shift+F10')
  const menu = page.getByRole('menu')
  await see(menu).toBeVisible()
  const [row, box] = await Promise.all([readme.locator('.row').boundingBox(), menu.boundingBox()])
  expect(Math.abs(box!.y - (row!.y + row!.height))).toBeLessThan(4)
  expect(await focused()).toBe('Open in viewer')
  await page.keyboard.press('Escape')
  await see(menu).toHaveCount(0)
  expect(await focused()).toBe('README.md')

  await page.keyboard.press('ContextMenu')
  await see(menu).toBeVisible()
  await see(menu.getByRole('menuitem')).toHaveCount(2)
  await page.keyboard.press('Tab')
  await page.keyboard.press('Tab') // out of the menu: it closes
  await see(menu).toHaveCount(0)
  expect(errors).toEqual([])
})

test('files and lines attached from the tree and the viewer go with the message', async () => {
  await queueTurns(fake, [{ chunks: [{ content: 'Seen them. [TASK_COMPLETE]' }] }])
  await open()
  const tree = page.getByRole('tree', { name: 'Files' })
  await tree.getByRole('treeitem', { name: 'README.md' }).hover()
  await tree.getByRole('button', { name: 'Add README.md to chat' }).click()
  // The context menu's "Add to chat" on a folder's file works the same; here: open src/long.go.
  await tree.getByRole('treeitem', { name: 'src' }).locator('.row').first().click()
  await tree.getByRole('treeitem', { name: 'long.go' }).click({ button: 'right' })
  await page.getByRole('menuitem', { name: 'Open in viewer' }).click()
  const viewer = page.getByTestId('file-viewer')
  await see(viewer.locator('.cm-content')).toContainText('// line 1')
  // Select lines 3–5 with the keyboard, as a person would.
  await viewer.locator('.cm-line', { hasText: /^\/\/ line 3$/ }).click()
  await page.keyboard.press('Home')
  await page.keyboard.press('Shift+ArrowDown')
  await page.keyboard.press('Shift+ArrowDown')
  await page.keyboard.press('Shift+End')
  await see(page.getByTestId('add-lines')).toContainText('Add lines 3–5 to chat')
  await page.getByTestId('add-lines').click()

  const chips = page.locator('form [data-testid="attachment-chip"]')
  await see(chips).toHaveCount(2)
  await see(chips.nth(1)).toHaveAttribute('title', 'src/long.go:3–5')
  await shot(page, 'chat-attachments-light')
  await sendTask(page, 'What are these?')
  await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
  await see(chips).toHaveCount(0)
  const sent = page.getByTestId('user-message').last().getByTestId('attachment-chip')
  await see(sent).toHaveCount(2)

  const user = (await userMessages()).at(-1) ?? ''
  expect(user).toContain('# Sample')
  expect(user).toContain('// line 3')
  expect(user).toContain('// line 5')
  expect(user).not.toContain('// line 6')
  expect(user).toContain('What are these?')

  // A chip on the sent message opens its lines in the viewer, marked.
  await viewer.getByRole('button', { name: 'Close viewer' }).click()
  await sent.nth(1).getByRole('button').first().click()
  await see(viewer.locator('.cm-range-line')).toHaveCount(3)
  expect(errors).toEqual([])
})

test('the task box has the focus, grows with the text up to a limit, and is back to its size once empty', async () => {
  await open()
  const box = page.getByLabel('Task', { exact: true })
  expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Task')
  const height = () => box.evaluate((el) => el.getBoundingClientRect().height)
  const empty = await height()
  await box.fill('one\ntwo\nthree\nfour')
  const four = await height()
  expect(four).toBeGreaterThan(empty)
  await box.fill(Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n'))
  expect(await height()).toBe(240)
  await box.fill('')
  expect(await height()).toBe(empty)
  expect(errors).toEqual([])
})

test('a finished plan offers Run this plan, which sends it to an Agent run', async () => {
  await queueTurns(fake, [
    { chunks: [{ content: '1. Add a usage section to README.md\n2. Mention the license [TASK_COMPLETE]' }] },
    { chunks: [{ content: 'Following the plan. [TASK_COMPLETE]' }] },
  ])
  await open('dark')
  await page.getByRole('radio', { name: 'Plan' }).click()
  await sendTask(page, 'Plan the README work')
  const offer = page.getByTestId('run-plan')
  await see(offer).toBeVisible()
  await shot(page, 'chat-plan-dark')
  await offer.click()
  await see(page.getByTestId('turn')).toHaveCount(2)
  await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
  await see(page.getByTestId('user-message').last()).toContainText('Carrying out the approved plan')
  await see(offer).toHaveCount(0)
  await see(page.getByRole('radio', { name: 'Agent' })).toHaveAttribute('aria-checked', 'true')
  const all = (await userMessages()).join('\n')
  expect(all).toContain('Add a usage section to README.md')
  expect(errors).toEqual([])
})

test('the Chats list marks a running chat; shortcuts start a new chat, stop a run and list themselves', async () => {
  // The model stalls after its first word: the run is still going when Ctrl+. is pressed,
  // however slow the machine.
  await queueTurns(fake, [{ chunkDelayMs: 600_000, chunks: [{ thinking: 'Slowly ' }, { thinking: 'thinking ' }, { thinking: 'it over.' }, { content: 'ok' }] }])
  await open()
  await sendTask(page, 'Take your time')
  await page.getByRole('tab', { name: 'Chats' }).click()
  const marker = page.getByTestId('session').first().getByTestId('session-running')
  await see(marker).toBeVisible()
  await shot(page, 'chat-running-marker-light')

  // Escape closes things and never stops the run (a press meant for the viewer must not); Ctrl+. does.
  const box = page.getByLabel('Task', { exact: true })
  await box.focus()
  await page.keyboard.press('Escape')
  await page.keyboard.press('Escape')
  // Both presses have been handled by now, and Stop is disabled at once while a stop is asked.
  expect(await page.getByRole('button', { name: 'Stop', exact: true }).isEnabled()).toBe(true)
  await see(marker).toBeVisible()
  await page.keyboard.press('Control+.')
  await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'cancelled')
  await see(marker).toHaveCount(0)

  await page.keyboard.press('Control+/')
  await see(page.getByTestId('shortcuts-help')).toContainText('Always allow')
  await page.keyboard.press('Escape')
  await see(page.getByTestId('shortcuts-help')).toHaveCount(0)
  // Over an open dialog Ctrl+/ stacks no second one.
  await page.getByRole('button', { name: 'Settings' }).first().click()
  await see(page.getByRole('dialog', { name: 'Settings' })).toBeVisible()
  await page.keyboard.press('Control+/')
  // Handled by now; the help would be on the page at once (it is no lazy part).
  expect(await page.getByTestId('shortcuts-help').count()).toBe(0)
  await page.keyboard.press('Escape')
  await see(page.getByRole('dialog', { name: 'Settings' })).toHaveCount(0)

  await page.getByTestId('message-list').click()
  await page.keyboard.press('Control+l')
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('chat-input')
  await page.keyboard.press('Control+n')
  await see(page.getByTestId('turn')).toHaveCount(0)
  await see(page.getByText('Describe the task in plain words.')).toBeVisible()
  expect(errors).toEqual([])
})
