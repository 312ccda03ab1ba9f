// The model's side of a run, in the browser against the fake Ollama: the waits named (in line
// behind another chat, the model loading, the prompt being read), the context meter from
// Ollama's counts, a prompt Ollama cut, and the picker's tool check.
import { afterAll, afterEach, beforeEach, expect, test } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { see } from './see'
import {
  closeAll, openPage, openProject, queueTurns, release, sendTask, setScript, shot, startFakeOllama, startGantry,
  stopAll, tempDirs, toolCheckRule, type FakeOllama, type Gantry,
} from './harness'
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

const readThenAnswer = [
  { hold: 'prefill', chunks: [{ toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] }] },
  { chunks: [{ content: 'The README is a one-line title. [TASK_COMPLETE]' }] },
]

/** A screenshot in the light scheme and one in the dark. */
async function shots(name: string) {
  await shot(page, `${name}-light`)
  await page.emulateMedia({ colorScheme: 'dark' })
  await shot(page, `${name}-dark`)
  await page.emulateMedia({ colorScheme: 'light' })
}

async function loads(): Promise<{ model: string; numCtx: number }[]> {
  return (await (await fetch(`${fake.url}/_fake/loads`)).json()) as { model: string; numCtx: number }[]
}

for (const scheme of ['light', 'dark'] as const) {
  test(`the waits are named and the meter shows Ollama's counts (${scheme})`, async () => {
    await setScript(fake, { holdLoads: 'load', turns: readThenAnswer })
    ;({ page, errors } = await openPage(gantry.url, scheme))
    await openProject(page, makeProject())
    const check = page.getByTestId('tool-check')
    // The project opened with a model chosen: it is warmed, and its tool check waits on the load.
    await see(check).toContainText('Checking tools…')
    await sendTask(page, 'What does the README say?')

    const status = page.getByTestId('run-status')
    await see(status).toHaveAttribute('data-waiting', 'loading')
    await see(status).toContainText('Loading llama3.2:3b…')
    await shot(page, `model-loading-${scheme}`)
    await release(fake, 'load')

    await see(status).toHaveAttribute('data-waiting', 'prefill')
    await see(status).toContainText('Reading the prompt (')
    expect(await status.textContent()).toMatch(/Reading the prompt \([\d,]+ tokens\)…/)
    await see(check).toContainText('Native tools')
    await shot(page, `model-prefill-${scheme}`)
    await release(fake, 'prefill')

    await see(page.getByTestId('run-status')).toHaveAttribute('data-status', 'done')
    const meter = page.getByTestId('context-meter')
    await see(meter).toContainText('/ 32k')
    expect(await meter.getAttribute('title')).toMatch(/^Context window: [\d,]+ of 32,768 tokens \(\d+%\) after the last answer, as Ollama counted them/)
    await shot(page, `model-meter-${scheme}`)
    // The warm-up, the tool check and both answers shared one load, with one num_ctx.
    expect(await loads()).toEqual([{ model: 'llama3.2:3b', numCtx: 32768 }])

    await page.reload()
    await see(page.getByTestId('context-meter')).toContainText('/ 32k')
    expect(errors).toEqual([])
  })
}

test('a chat waits in line while another uses the model, and says so', async () => {
  await setScript(fake, {
    turns: [
      { when: 'Summarise the README', hold: 'first', chunks: [{ content: 'A one-line title. [TASK_COMPLETE]' }] },
      { when: 'List the files', chunks: [{ content: 'Only the README. [TASK_COMPLETE]' }] },
    ],
  })
  ;({ page, errors } = await openPage(gantry.url))
  await openProject(page, makeProject())
  await sendTask(page, 'Summarise the README')
  // Its request is with the model (held there: the model reading the prompt).
  await see(page.getByTestId('run-status')).toHaveAttribute('data-waiting', 'prefill')

  await page.getByRole('tab', { name: 'Chats' }).click()
  await page.getByRole('button', { name: 'New chat' }).click()
  await see(page.getByTestId('run-status')).toHaveCount(0)
  await sendTask(page, 'List the files')
  const status = page.getByTestId('run-status')
  await see(status).toHaveAttribute('data-waiting', 'queued')
  await see(status).toContainText('Waiting for the model: another task is using it…')
  await shots('model-queued')

  await release(fake, 'first')
  await see(page.getByTestId('run-status')).toHaveAttribute('data-status', 'done')
  await see(page.getByText('Only the README.')).toBeVisible()
  expect(errors).toEqual([])
})

test('the picker shows a model that writes its calls as text, and its runs read them from the text', async () => {
  const mistral = {
    model: 'qwen3:4b',
    contains: 'get_weather',
    turn: { chunks: [{ content: '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]' }] },
  }
  await setScript(fake, { rules: [mistral, toolCheckRule] })
  ;({ page, errors } = await openPage(gantry.url))
  await openProject(page, makeProject())
  const check = page.getByTestId('tool-check')
  await see(check).toContainText('Native tools')
  await see(check).toHaveAttribute('data-tone', 'ok')

  await page.getByLabel('Model').selectOption('qwen3:4b')
  await see(check).toContainText('Tools as text')
  await see(check).toHaveAttribute('data-tone', 'warn')
  expect(await check.getAttribute('title')).toContain('Mistral [TOOL_CALLS]')
  await check.hover()
  await shots('model-tools-as-text')

  await queueTurns(fake, [
    { chunks: [{ content: 'Reading it.\n<tool_call>{"name": "read_file", "arguments": {"path": "README.md"}}</tool_call>' }] },
    { chunks: [{ content: 'A title. [TASK_COMPLETE]' }] },
  ])
  await sendTask(page, 'What does the README say?')
  await see(page.getByTestId('run-status')).toHaveAttribute('data-status', 'done')
  const requests = (await (await fetch(`${fake.url}/_fake/requests`)).json()) as { tools?: unknown[]; messages: { content: string }[] }[]
  const run = requests.filter((r) => !r.messages.at(-1)!.content.includes('get_weather'))
  expect(run).toHaveLength(2)
  expect(run.every((r) => !r.tools?.length)).toBe(true)
  expect(run[1].messages.at(-1)!.content).toContain('<tool_result name="read_file">')
  const said = page.getByTestId('assistant-message')
  await see(said.first()).toContainText('Reading it.')
  expect((await said.allTextContents()).join('\n')).not.toContain('tool_call')
  expect(errors).toEqual([])
})

test('a native answer whose call Ollama missed runs it, marked as read from the text', async () => {
  await queueTurns(fake, [
    { chunks: [{ content: 'Let me look.\n[TOOL_CALLS]read_file[ARGS]{"path": "README.md"}' }] },
    { chunks: [{ content: 'A title. [TASK_COMPLETE]' }] },
  ])
  ;({ page, errors } = await openPage(gantry.url))
  await openProject(page, makeProject())
  await see(page.getByTestId('tool-check')).toContainText('Native tools')
  await sendTask(page, 'What does the README say?')
  await see(page.getByTestId('run-status')).toHaveAttribute('data-status', 'done')
  const tag = page.getByTestId('rescued-calls')
  await see(tag).toContainText('read from text · Mistral [TOOL_CALLS]')
  const said = page.getByTestId('assistant-message')
  await see(said.first()).toContainText('Let me look.')
  expect((await said.allTextContents()).join('\n')).not.toContain('TOOL_CALLS')
  await shots('model-rescued-call')
  expect(errors).toEqual([])
})

test('a prompt Ollama cut is named, compacted and asked again', async () => {
  const project = makeProject()
  writeFileSync(join(project, 'big.txt'), 'a fairly long line of text in a big file\n'.repeat(800))
  await queueTurns(fake, [
    { chunks: [{ toolCalls: [{ name: 'read_file', arguments: { path: 'big.txt' } }] }] },
    { chunks: [{ toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] }] },
    { chunks: [{ content: 'Lost my instructions, so here is some nonsense.' }], promptEvalCount: 32768 },
    { chunks: [{ content: 'Summary: read big.txt and README.md.' }] },
    { chunks: [{ content: 'Both files read. [TASK_COMPLETE]' }] },
  ])
  ;({ page, errors } = await openPage(gantry.url))
  await openProject(page, project)
  await sendTask(page, 'Read big.txt and the README')
  await see(page.getByTestId('run-status')).toHaveAttribute('data-status', 'done')
  const cut = page.getByTestId('prompt-cut')
  await see(cut).toContainText("did not fit the model's context window of 32,768 tokens")
  await see(cut).toContainText('asked again with the older messages summarised')
  await see(page.getByTestId('turn').getByText('Both files read.')).toBeVisible()
  await cut.scrollIntoViewIfNeeded()
  await shots('model-prompt-cut')
  expect(errors).toEqual([])
})
