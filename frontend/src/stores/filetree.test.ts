import { beforeEach, describe, expect, it, vi } from 'vitest'
import { workspaces } from '../lib/api'
import { BackendError } from '../lib/bridge'
import type { DirListing } from '../lib/types'
import { FileTree } from './filetree.svelte'

vi.mock('../lib/api', () => ({ workspaces: { listDir: vi.fn() } }))
const listDir = vi.mocked(workspaces.listDir)

const entry = (path: string, isDir = false) => ({ name: path.split('/').pop()!, path, isDir, size: 1, link: false })

beforeEach(() => listDir.mockReset())

describe('FileTree', () => {
  it('lists a folder the first time it is expanded only', async () => {
    listDir.mockResolvedValue({ entries: [entry('src/a.ts')], truncated: 0 })
    const tree = new FileTree()
    await tree.expand('src')
    tree.collapse('src')
    await tree.expand('src')
    expect(listDir).toHaveBeenCalledTimes(1)
    expect(listDir).toHaveBeenCalledWith('src')
    expect(tree.isExpanded('src')).toBe(true)
    expect(tree.folders.src.entries.map((e) => e.path)).toEqual(['src/a.ts'])
  })

  it('does not ask twice while a listing is in flight', async () => {
    let resolve!: (l: DirListing) => void
    listDir.mockReturnValue(new Promise((r) => (resolve = r)))
    const tree = new FileTree()
    const first = tree.expand('')
    expect(tree.folders[''].status).toBe('loading')
    tree.toggle('')
    tree.toggle('')
    resolve({ entries: [], truncated: 0 })
    await first
    expect(listDir).toHaveBeenCalledTimes(1)
    expect(tree.folders[''].status).toBe('loaded')
  })

  it('sorts folders first, then names naturally', async () => {
    listDir.mockResolvedValue({
      entries: [entry('b.txt'), entry('file10.go'), entry('zeta', true), entry('file2.go'), entry('Alpha', true)],
      truncated: 0,
    })
    const tree = new FileTree()
    await tree.expand('')
    expect(tree.folders[''].entries.map((e) => e.name)).toEqual(['Alpha', 'zeta', 'b.txt', 'file2.go', 'file10.go'])
  })

  it('keeps how many entries were left out', async () => {
    listDir.mockResolvedValue({ entries: [entry('a')], truncated: 4000 })
    const tree = new FileTree()
    await tree.expand('')
    expect(tree.folders[''].truncated).toBe(4000)
  })

  it('records an error per folder and retries that folder only', async () => {
    listDir.mockImplementation(async (path) => {
      if (path === 'locked') throw new BackendError('permission denied')
      return { entries: [], truncated: 0 }
    })
    const tree = new FileTree()
    await tree.expand('')
    await tree.expand('locked')
    expect(tree.folders.locked).toMatchObject({ status: 'error', error: 'permission denied' })
    expect(tree.folders[''].status).toBe('loaded')

    listDir.mockResolvedValue({ entries: [entry('locked/x')], truncated: 0 })
    await tree.load('locked')
    await tree.load('')
    expect(tree.folders.locked).toMatchObject({ status: 'loaded', error: '' })
    expect(listDir).toHaveBeenCalledTimes(3)
  })
})
