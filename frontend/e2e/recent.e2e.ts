import { afterAll, afterEach, beforeEach, expect, test } from 'vitest'
import { see } from './see'
import { rmSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Page } from 'playwright-core'
import { stopAll, closeAll, dropPaths, openPage, shot, startGantry, tempDirs, type Gantry } from './harness'
import { makeProject } from './fixtures'

let dirs: ReturnType<typeof tempDirs>
let gantry: Gantry
let page: Page

beforeEach(async () => {
  dirs = tempDirs()
  gantry = await startGantry(dirs)
  ;({ page } = await openPage(gantry.url))
})
afterEach(async () => {
  await stopAll({ page, gantry, dirs })
})
afterAll(closeAll)

async function openAndClose(path: string) {
  await dropPaths(page, [path])
  await page.getByRole('button', { name: 'Close project' }).click()
}

const rows = () => page.getByRole('list', { name: 'Recent projects' }).getByRole('listitem')

test('recent projects: newest first, open on click, missing shown, removable, kept across restarts', async () => {
  const alpha = makeProject('alpha')
  const beta = makeProject('beta')
  const gone = makeProject('gone')
  await openAndClose(alpha)
  await openAndClose(gone)
  await openAndClose(beta)
  rmSync(dirname(gone), { recursive: true })
  await page.reload()

  await see(page.getByRole('heading', { name: 'Recent projects' })).toBeVisible()
  await see(rows()).toHaveCount(3)
  await see(rows().nth(0)).toContainText('beta')
  await see(rows().nth(1)).toContainText('gone')
  await see(rows().nth(2)).toContainText('alpha')
  await see(rows().nth(1)).toContainText('Missing')
  await see(rows().nth(1).getByTestId('recent-project')).toHaveAttribute('aria-disabled', 'true')
  await shot(page, 'recent-projects')

  // Clicking a recent project opens it and moves it to the top.
  await rows().nth(2).getByTestId('recent-project').click()
  await see(page.getByRole('tree', { name: 'Files' }).getByRole('treeitem', { name: 'src' })).toBeVisible()
  await page.getByRole('button', { name: 'Close project' }).click()
  await see(rows().nth(0)).toContainText('alpha')

  // Removing the missing one forgets it (the folder on disk is not touched).
  await rows().filter({ hasText: 'gone' }).getByRole('button', { name: 'Remove from recent projects' }).click()
  await see(rows()).toHaveCount(2)

  await page.context().close()
  await gantry.stop()
  gantry = await startGantry(dirs)
  ;({ page } = await openPage(gantry.url))
  await see(rows()).toHaveCount(2)
  await see(rows().nth(0)).toContainText('alpha')
  await see(rows().nth(1)).toContainText('beta')
})
