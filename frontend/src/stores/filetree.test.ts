import { beforeEach, describe, expect, it, vi } from 'vitest'
import { workspaces } from '../lib/api'
import { BackendError } from '../lib/bridge'
import type { WorkspaceChangedPayload } from '../lib/events'
import type { DirListing } from '../lib/types'
import { FileTree } from './filetree.svelte'

vi.mock('../lib/api', () => ({ workspaces: { listDir: vi.fn() } }))
const listDir = vi.mocked(workspaces.listDir)

const entry = (path: string, isDir = false) => ({ name: path.split('/').pop()!, path, isDir, size: 1, link: false })

// A block body: a function returned from beforeEach would run as its cleanup (calling listDir).
beforeEach(() => {
  listDir.mockReset()
})

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

  describe('applyChange', () => {
    const change = (dirs: string[], extra: Partial<WorkspaceChangedPayload> = {}): WorkspaceChangedPayload => ({
      root: '/proj',
      dirs,
      paths: [],
      more: false,
      overflow: false,
      ...extra,
    })

    async function treeWith(listings: Record<string, string[]>) {
      listDir.mockImplementation(async (path) => ({
        entries: (listings[path] ?? []).map((p) => entry(p, !p.includes('.'))),
        truncated: 0,
      }))
      const tree = new FileTree()
      await tree.expand('')
      await tree.expand('src')
      await tree.expand('src/lib')
      tree.collapse('src/lib')
      listDir.mockClear()
      return tree
    }

    it('lists the changed folders it already shows again, keeping expansion', async () => {
      const listings: Record<string, string[]> = { '': ['src', 'docs'], src: ['src/lib', 'src/a.ts'], 'src/lib': [] }
      const tree = await treeWith(listings)
      listings.src = ['src/lib', 'src/a.ts', 'src/b.ts']
      await tree.applyChange(change(['src', 'docs']))
      expect(listDir.mock.calls).toEqual([['src']]) // docs was never expanded: it is listed when it is
      expect(tree.folders.src.entries.map((e) => e.path)).toEqual(['src/lib', 'src/a.ts', 'src/b.ts'])
      expect(tree.isExpanded('')).toBe(true)
      expect(tree.isExpanded('src')).toBe(true)
      expect(tree.isExpanded('src/lib')).toBe(false)
    })

    it('keeps the old entries on screen while listing again', async () => {
      const tree = await treeWith({ '': ['a.txt'] })
      let resolve!: (l: DirListing) => void
      listDir.mockReturnValue(new Promise((r) => (resolve = r)))
      const done = tree.applyChange(change(['']))
      expect(tree.folders[''].status).toBe('loaded')
      expect(tree.folders[''].entries.map((e) => e.path)).toEqual(['a.txt'])
      resolve({ entries: [entry('b.txt')], truncated: 0 })
      await done
      expect(tree.folders[''].entries.map((e) => e.path)).toEqual(['b.txt'])
    })

    it('reloads every listed folder on overflow or a list cut short', async () => {
      for (const extra of [{ overflow: true }, { more: true }]) {
        const tree = await treeWith({ '': ['src'], src: ['src/lib'], 'src/lib': [] })
        await tree.applyChange(change([], extra))
        expect(listDir.mock.calls.map((c) => c[0]).sort()).toEqual(['', 'src', 'src/lib'])
      }
    })

    it('forgets folders that are gone, so one created again starts collapsed', async () => {
      const listings: Record<string, string[]> = { '': ['src'], src: ['src/lib'], 'src/lib': [] }
      const tree = await treeWith(listings)
      await tree.expand('src/lib')
      listings[''] = []
      await tree.applyChange(change(['']))
      expect(Object.keys(tree.folders)).toEqual([''])
      expect(tree.isExpanded('src')).toBe(false)
      expect(tree.isExpanded('src/lib')).toBe(false)
    })

    it('lets the newest listing win when answers arrive out of order', async () => {
      const tree = await treeWith({ '': [] })
      const answers: ((l: DirListing) => void)[] = []
      listDir.mockImplementation(() => new Promise((r) => answers.push(r)))
      const first = tree.applyChange(change(['']))
      const second = tree.applyChange(change(['']))
      answers[1]({ entries: [entry('new.txt')], truncated: 0 })
      answers[0]({ entries: [entry('old.txt')], truncated: 0 })
      await Promise.all([first, second])
      expect(tree.folders[''].entries.map((e) => e.path)).toEqual(['new.txt'])
    })
  })
})
