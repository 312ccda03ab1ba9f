// MCP servers in the window: a server is added in Settings → Tools by pasting its JSON, starts
// and lists its tools; a broken one says why with its stderr; a run uses the tools (a read-only
// one unasked, a writing one after the card that shows server, tool and arguments is always
// allowed, and asks no more); the row opens to the server's answer; the rule and a failed call
// are listed in Settings.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from 'vitest'
import type { Page } from 'playwright-core'
import { see } from './see'
import { closeAll, openPage, openProject, queueTurns, sendTask, shot, startFakeOllama, startGantry, stopAll, tempDirs, toolResults, type FakeOllama, type Gantry } from './harness'
import { makeProject } from './fixtures'

let dirs: ReturnType<typeof tempDirs>
let gantry: Gantry | undefined
let fake: FakeOllama
let page: Page
let errors: string[]
let serverBin: string

// The test MCP server of internal/mcp/mcptest (built with the official Go SDK): make test builds
// it; run alone, the test builds it.
beforeAll(() => {
  serverBin = process.env.MCP_TEST_SERVER_BIN ? resolve(process.env.MCP_TEST_SERVER_BIN) : ''
  if (!serverBin) {
    serverBin = join(mkdtempSync(join(tmpdir(), 'gantry-mcp-')), 'mcp-test-server')
    execFileSync('go', ['build', '-o', serverBin, './internal/mcp/mcptest/cmd/mcp-test-server'], { cwd: resolve('..') })
  }
}, 120_000)
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
  test(`a server added in Settings is used by a run (${scheme})`, async () => {
    const notes = mkdtempSync(join(tmpdir(), 'gantry-notes-'))
    await queueTurns(fake, [
      call('mcp__notes__echo', { message: 'hello <b>there</b>' }),
      call('mcp__notes__fail', {}),
      call('mcp__notes__write_note', { name: 'todo.txt', text: 'buy milk' }),
      answer('Wrote the note. [TASK_COMPLETE]'),
      call('mcp__notes__write_note', { name: 'todo.txt', text: 'buy milk and eggs' }),
      answer('Added eggs. [TASK_COMPLETE]'),
    ])
    gantry = await startGantry({ ...dirs, ollamaHost: fake.host })
    ;({ page, errors } = await openPage(gantry.url, scheme))
    await openProject(page, makeProject())
    await page.getByLabel('Model').selectOption('qwen3:4b')

    await page.getByRole('button', { name: 'Settings' }).first().click()
    const dialog = page.getByRole('dialog', { name: 'Settings' })
    await dialog.getByRole('tab', { name: 'Tools' }).click()
    await see(dialog.getByText('No MCP servers yet')).toBeVisible()
    await dialog.getByRole('button', { name: 'Add server' }).click()
    await dialog.getByLabel('Server JSON').fill(JSON.stringify({ mcpServers: { notes: { command: serverBin, args: ['--dir', notes] } } }, null, 2))
    await shot(page, `mcp-add-${scheme}`)
    await dialog.getByRole('button', { name: 'Add', exact: true }).click()

    const row = dialog.getByTestId('mcp-server-row').and(page.locator('[data-name="notes"]'))
    await see(row).toHaveAttribute('data-state', 'ready')
    await see(row.getByTestId('mcp-state')).toContainText('Ready · 12 tools')
    await row.getByTestId('mcp-tools-toggle').click()
    await see(row.getByRole('switch', { name: 'mcp__notes__write_note' })).toBeVisible()

    // A server that cannot start says why, with what it wrote to stderr.
    await dialog.getByRole('button', { name: 'Add server' }).click()
    await dialog.getByLabel('Server JSON').fill(`"broken": {"command": "/bin/sh", "args": ["-c", "echo 'cannot open the database' >&2; exit 1"]}`)
    await dialog.getByRole('button', { name: 'Add', exact: true }).click()
    const broken = dialog.getByTestId('mcp-server-row').and(page.locator('[data-name="broken"]'))
    await see(broken).toHaveAttribute('data-state', 'failed')
    await see(broken.getByTestId('mcp-detail')).toContainText('Exited during the handshake')
    await see(broken.getByTestId('mcp-stderr')).toContainText('cannot open the database')
    await shot(page, `mcp-settings-${scheme}`)
    await dialog.getByRole('button', { name: 'Done' }).click()

    await sendTask(page, 'Make a note to buy milk')
    const card = page.getByTestId('approval-card')
    await see(card).toHaveAttribute('data-kind', 'mcp')
    await see(card.getByTestId('mcp-tool')).toContainText('notes · write_note')
    await see(card.getByTestId('mcp-arguments')).toContainText('"text": "buy milk"')
    await see(card.getByRole('button', { name: 'Always allow this tool' })).toBeVisible()
    // The read-only echo ran without asking; its row names the server.
    const rows = page.getByTestId('action')
    await see(rows.first().getByTestId('mcp-server')).toContainText('notes')
    await shot(page, `mcp-approval-${scheme}`)
    await card.getByRole('button', { name: 'Always allow this tool' }).click()

    await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
    expect(readFileSync(join(notes, 'todo.txt'), 'utf8')).toBe('buy milk')
    expect((await toolResults(fake)).join('\n')).toContain('wrote todo.txt (8 bytes)')
    await rows.first().getByRole('button').first().click()
    // The server's answer is shown as text, never as markup.
    await see(rows.first()).toContainText('echo: hello <b>there</b>')
    expect(await rows.first().locator('b').count()).toBe(0)
    await see(rows.nth(1)).toHaveAttribute('data-status', 'error')
    await shot(page, `mcp-run-${scheme}`)

    // Always allowed: the next call of the tool runs without a card.
    await sendTask(page, 'Add eggs')
    await see(page.getByTestId('run-status')).toHaveCount(2)
    await see(page.getByTestId('run-status').last()).toHaveAttribute('data-status', 'done')
    await see(page.getByTestId('approval-card')).toHaveCount(0)
    expect(readFileSync(join(notes, 'todo.txt'), 'utf8')).toBe('buy milk and eggs')

    await page.getByRole('button', { name: 'Settings' }).first().click()
    await dialog.getByRole('tab', { name: 'Always allow' }).click()
    await see(dialog.getByRole('list', { name: 'Always allow rules' })).toContainText('Use write_note of the MCP server notes')
    await shot(page, `mcp-always-allow-${scheme}`)
    await dialog.getByRole('tab', { name: 'Tools' }).click()
    const failure = dialog.getByTestId('mcp-failure')
    await see(failure).toContainText('notes · fail')
    await see(failure).toContainText('the disk is full')
    await failure.scrollIntoViewIfNeeded()
    await shot(page, `mcp-failures-${scheme}`)
    expect(existsSync(join(notes, 'todo.txt'))).toBe(true)
    expect(errors).toEqual([])
  })
}
