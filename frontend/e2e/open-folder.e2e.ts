import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest'
import { see } from './see'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { openProject, stopAll, closeAll, dropPaths, openPage, shot, startGantry, tempDirs, type Gantry } from './harness'
import { makeProject } from './fixtures'

let dirs: ReturnType<typeof tempDirs>
let gantry: Gantry
let page: Page
let errors: string[]

beforeEach(async () => {
  dirs = tempDirs()
  gantry = await startGantry(dirs)
  ;({ page, errors } = await openPage(gantry.url))
})
afterEach(async () => {
  await stopAll({ page, gantry, dirs })
})
afterAll(closeAll)

const tree = () => page.getByRole('tree', { name: 'Files' })

describe('opening a project folder', () => {
  test('the welcome screen offers a drop zone, Open Folder… and recent projects', async () => {
    await see(page.getByText('Drop a project folder here')).toBeVisible()
    await see(page.getByRole('button', { name: 'Open Folder…' })).toBeVisible()
    await shot(page, 'welcome-empty')
    expect(errors).toEqual([])
  })

  test('dropping a folder opens the workspace view with a lazy, gitignore-aware file tree', async () => {
    const proj = makeProject()
    await openProject(page, proj)
    await see(page.getByText(proj, { exact: false }).first()).toBeAttached()
    await see(tree().getByRole('treeitem', { name: 'src' })).toBeVisible()
    await see(tree().getByRole('treeitem', { name: 'README.md' })).toBeVisible()
    await see(tree().getByRole('treeitem', { name: '.gitignore' })).toBeVisible()
    // Ignored by .gitignore, and .git itself, never appear.
    await see(tree().getByRole('treeitem', { name: 'debug.log' })).toHaveCount(0)
    await see(tree().getByRole('treeitem', { name: 'node_modules' })).toHaveCount(0)
    await see(tree().getByRole('treeitem', { name: '.git', exact: true })).toHaveCount(0)
    // Children load only when a folder is expanded.
    await see(tree().getByRole('treeitem', { name: 'main.go' })).toHaveCount(0)
    await tree().getByRole('treeitem', { name: 'src' }).click()
    await see(tree().getByRole('treeitem', { name: 'main.go' })).toBeVisible()
    await see(tree().getByRole('treeitem', { name: 'util' })).toBeVisible()
    await see(page.getByRole('textbox', { name: 'Task' })).toBeVisible()
    await shot(page, 'workspace')
    expect(errors).toEqual([])
  })

  test('dropping a file says to drop its folder instead', async () => {
    const proj = makeProject()
    await dropPaths(page, [join(proj, 'README.md')])
    const alert = page.getByRole('alert')
    await see(alert).toContainText('is a file, not a folder')
    await see(page.getByText('Drop a project folder here')).toBeVisible()
    await shot(page, 'drop-file-error')
  })

  test('dropping several folders asks for one', async () => {
    await dropPaths(page, [makeProject('a'), makeProject('b')])
    await see(page.getByRole('alert')).toContainText('You dropped 2 items')
    await see(page.getByRole('button', { name: 'Close project' })).toHaveCount(0)
  })

  test('Open Folder… in browser mode takes a typed path, and a reload keeps the project open', async () => {
    const proj = makeProject('typed-path')
    await page.getByRole('button', { name: 'Open Folder…' }).click()
    const form = page.getByRole('dialog', { name: 'Open a folder by path' })
    await form.getByLabel('Folder path').fill(join(proj, 'missing'))
    await form.getByRole('button', { name: 'Open' }).click()
    await see(page.getByRole('alert')).toContainText('does not exist')

    // The form stays open with the error, so the path can be corrected in place.
    await form.getByLabel('Folder path').fill(proj)
    await form.getByRole('button', { name: 'Open' }).click()
    await see(tree().getByRole('treeitem', { name: 'src' })).toBeVisible()

    await page.reload()
    await see(tree().getByRole('treeitem', { name: 'src' })).toBeVisible()

    await page.getByRole('button', { name: 'Close project' }).click()
    await see(page.getByText('Drop a project folder here')).toBeVisible()
  })
})
