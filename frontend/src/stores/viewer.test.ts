import { beforeEach, describe, expect, it, vi } from 'vitest'
import { workspaces } from '../lib/api'
import { BackendError } from '../lib/bridge'
import { ViewerStore } from './viewer.svelte'

vi.mock('../lib/api', () => ({ workspaces: { readFile: vi.fn() } }))

const file = (path: string) => ({ path, text: 'x\n', size: 2, binary: false })

beforeEach(() => vi.clearAllMocks())

describe('ViewerStore', () => {
  it('opens a file at its lines and reads it once for another range', async () => {
    vi.mocked(workspaces.readFile).mockResolvedValue(file('a.go'))
    const v = new ViewerStore()
    await v.open('a.go', 12, 3)
    expect(v.file?.path).toBe('a.go')
    expect([v.startLine, v.endLine]).toEqual([12, 12])
    const gen = v.generation
    await v.open('a.go', 40, 44)
    expect(workspaces.readFile).toHaveBeenCalledTimes(1)
    expect([v.startLine, v.endLine, v.generation]).toEqual([40, 44, gen + 1])
  })

  it('keeps the last file asked for when an earlier read answers later', async () => {
    let slow!: (f: ReturnType<typeof file>) => void
    vi.mocked(workspaces.readFile).mockReturnValueOnce(new Promise((r) => (slow = r)))
    vi.mocked(workspaces.readFile).mockResolvedValueOnce(file('b.go'))
    const v = new ViewerStore()
    const first = v.open('a.go')
    await v.open('b.go')
    slow(file('a.go'))
    await first
    expect(v.file?.path).toBe('b.go')
    expect(v.loading).toBe(false)
  })

  it('says why a file cannot be shown, and closes', async () => {
    vi.mocked(workspaces.readFile).mockRejectedValue(new BackendError('big.bin is 9.0 MB; the viewer shows files up to 2 MB'))
    const v = new ViewerStore()
    await v.open('big.bin')
    expect(v.error).toContain('up to 2 MB')
    v.close()
    expect([v.path, v.error, v.file]).toEqual(['', '', null])
  })

  it('reads the shown file again when it changes on disk, keeping its lines; a deleted one says so', async () => {
    vi.mocked(workspaces.readFile).mockResolvedValueOnce(file('a.go'))
    const v = new ViewerStore()
    await v.open('a.go', 14)
    const gen = v.generation

    await v.changedOnDisk({ paths: ['b.go'], more: false, overflow: false })
    expect(workspaces.readFile).toHaveBeenCalledTimes(1)

    vi.mocked(workspaces.readFile).mockResolvedValueOnce({ ...file('a.go'), text: 'y\n' })
    await v.changedOnDisk({ paths: ['a.go'], more: false, overflow: false })
    expect(v.file?.text).toBe('y\n')
    expect([v.startLine, v.generation]).toEqual([14, gen])

    vi.mocked(workspaces.readFile).mockRejectedValueOnce(new BackendError('a.go does not exist'))
    await v.changedOnDisk({ paths: [], more: false, overflow: true })
    expect(v.file).toBeNull()
    expect(v.error).toContain('does not exist')
  })

  it('drops a re-read overtaken by opening another file', async () => {
    vi.mocked(workspaces.readFile).mockResolvedValueOnce(file('a.go'))
    const v = new ViewerStore()
    await v.open('a.go')
    let slow!: (f: ReturnType<typeof file>) => void
    vi.mocked(workspaces.readFile).mockReturnValueOnce(new Promise((r) => (slow = r)))
    const reread = v.changedOnDisk({ paths: ['a.go'], more: false, overflow: false })
    vi.mocked(workspaces.readFile).mockResolvedValueOnce(file('b.go'))
    await v.open('b.go')
    slow(file('a.go'))
    await reread
    expect(v.file?.path).toBe('b.go')
  })
})
