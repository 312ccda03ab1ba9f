// Reopening a long session, for `make bench` (scripts/bench-ui.sh): 60 runs through a real
// `gantry serve` and fake Ollama (each thinks, reads two files, edits one, answers in markdown
// with a code block), then the page is reloaded and the session replayed from its event log.
// Prints "name<TAB>value<TAB>unit" lines: the median and the slowest of 5 reloads of the time
// from navigation to every turn on screen and the visible review panel read; then the median of
// 5 times from a click on the session in the Chats list, in a window started on an empty chat,
// to the same.
// Usage: GANTRY_BIN=… FAKE_OLLAMA_BIN=… node bench/reopen.mjs
import { writeFileSync } from 'node:fs'
import { line, setUp } from './setup.mjs'

const runs = 60
const reloads = 5

function turns() {
  const answer = 'Some explanation with `code` and **bold** text. '.repeat(12) +
    '\n\n```go\nfunc main() {\n\tprintln("hi")\n}\n```\n\nDone. [TASK_COMPLETE]'
  const out = []
  for (let i = 0; i < runs; i++) {
    out.push({ chunks: [{ thinking: 'Let me look at the files first. '.repeat(8) },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }, { name: 'read_file', arguments: { path: 'main.go' } }] }] })
    out.push({ chunks: [{ toolCalls: [{ name: 'edit_file', arguments: { path: 'README.md', old: `# Bench ${i}`, new: `# Bench ${i + 1}` } }] }] })
    // Words one by one, as a model streams them, so the log holds what a real session's does.
    out.push({ chunks: answer.split(/(?<= )/).map((w) => ({ content: w })) })
  }
  return out
}

const { page, project, queue, send, stop } = await setUp()
try {
  writeFileSync(`${project}/README.md`, '# Bench 0\n')
  writeFileSync(`${project}/main.go`, 'package main\n')
  await queue(turns())
  for (let i = 0; i < runs; i++) {
    await send(`Task ${i}`)
    await page.locator('[data-testid="run-status"][data-status="done"]').nth(i).waitFor({ timeout: 30_000 })
  }

  const times = []
  for (let k = 0; k < reloads; k++) {
    await page.reload()
    times.push(await page.evaluate((n) => new Promise((done, fail) => {
      const check = () => {
        const shown = document.querySelectorAll('[data-testid=turn]').length === n &&
          document.querySelector('[data-testid=review-panel][aria-busy=false]')
        if (shown) done(performance.now())
        else if (performance.now() > 60_000) fail(new Error('the session was not on screen after 60 s'))
        else requestAnimationFrame(check)
      }
      check()
    }), runs))
  }
  times.sort((a, b) => a - b)
  line(`reopen a ${runs}-run session: all turns on screen (median of ${reloads})`, times[Math.floor(reloads / 2)].toFixed(0), 'ms')
  line('slowest reopen', times[reloads - 1].toFixed(0), 'ms')

  // The way a person reopens it in the app: the window starts with an empty chat (a restart
  // remembers no chat), and they pick the session in the Chats list. Timed from the click.
  const picks = []
  for (let k = 0; k < reloads; k++) {
    await page.getByRole('tab', { name: 'Chats' }).click()
    await page.getByRole('button', { name: 'New chat' }).click()
    await page.getByTestId('turn').first().waitFor({ state: 'detached' })
    await page.reload()
    await page.getByRole('tab', { name: 'Chats' }).click()
    const pick = page.getByTestId('session').getByRole('button', { name: /^Task 0\b/ })
    await pick.waitFor()
    picks.push(await pick.evaluate((button, n) => new Promise((done, fail) => {
      const start = performance.now()
      const check = () => {
        const shown = document.querySelectorAll('[data-testid=turn]').length === n &&
          document.querySelector('[data-testid=review-panel][aria-busy=false]')
        if (shown) done(performance.now() - start)
        else if (performance.now() - start > 60_000) fail(new Error('the session was not on screen 60 s after the click'))
        else requestAnimationFrame(check)
      }
      button.click()
      check()
    }), runs))
  }
  picks.sort((a, b) => a - b)
  line(`open a ${runs}-run session from the Chats list: all turns on screen (median of ${reloads})`, picks[Math.floor(reloads / 2)].toFixed(0), 'ms')
} finally {
  await stop()
}
