import { beforeEach, describe, expect, it, vi } from 'vitest'
import { review } from '../lib/api'
import { BackendError } from '../lib/bridge'
import { EventType, type FileChange, type GantryEvent, type WorkspaceChangedPayload } from '../lib/events'
import { conflictText, ReviewStore, reviewStatus } from './review.svelte'
import { prefetchReview } from './reviewPrefetch'

vi.mock('../lib/api', () => ({
  review: {
    files: vi.fn(),
    diff: vi.fn(),
    keep: vi.fn(),
    keepAll: vi.fn(),
    undo: vi.fn(),
    forceUndo: vi.fn(),
    undoAll: vi.fn(),
  },
}))

// Events come from the test: the prefetch drops what it read on a change on disk.
let emit: (e: GantryEvent) => void = () => {}
vi.mock('../lib/bridge', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../lib/bridge')>()),
  onEvent: vi.fn((h: (e: GantryEvent) => void) => {
    emit = h
    return () => {}
  }),
}))

const file = (over: Partial<FileChange>): FileChange => ({
  path: 'a.txt',
  status: 'pending',
  change: 'modified',
  added: 1,
  removed: 1,
  ...over,
})

beforeEach(() => vi.clearAllMocks())

describe('reviewStatus', () => {
  it('shows a waiting file changed since the agent wrote it as a conflict', () => {
    expect(reviewStatus(file({}))).toBe('pending')
    expect(reviewStatus(file({ conflict: true }))).toBe('conflict')
    expect(reviewStatus(file({ status: 'kept', conflict: true }))).toBe('kept')
    expect(reviewStatus(file({ status: 'undone' }))).toBe('undone')
  })
})

describe('ReviewStore', () => {
  it('refreshes the list after each action, and the open diff with it', async () => {
    const s = new ReviewStore('s1', 'r1', [file({})])
    vi.mocked(review.diff).mockResolvedValue({ path: 'a.txt', binary: false, before: 'a\n', after: 'b\n', hunks: [] })
    await s.toggle('a.txt')
    expect(s.open).toBe('a.txt')
    expect(review.diff).toHaveBeenCalledWith('s1', 'r1', 'a.txt')

    vi.mocked(review.files).mockResolvedValue([file({ status: 'kept' })])
    await s.keep('a.txt')
    expect(review.keep).toHaveBeenCalledWith('s1', 'r1', 'a.txt')
    expect(s.files[0].status).toBe('kept')
    expect(s.pending).toBe(0)
    expect(review.diff).toHaveBeenCalledTimes(2)

    await s.toggle('a.txt')
    expect(s.open).toBe('')
    expect(s.diff).toBeNull()
  })

  it('shows a failed action and still refreshes', async () => {
    const s = new ReviewStore('s1', 'r1', [file({ status: 'kept' })])
    vi.mocked(review.undo).mockRejectedValue(new BackendError('undoing a.txt: already kept'))
    vi.mocked(review.files).mockResolvedValue([file({ status: 'kept' })])
    await s.undo('a.txt')
    expect(s.error).toContain('already kept')
    expect(review.files).toHaveBeenCalled()
    expect(s.busy).toBe(false)
  })
})

describe('conflicts', () => {
  it('words each kind of conflict for the person, from what the list says', () => {
    expect(conflictText(file({ conflict: true }))).toContain('You changed this file after the agent wrote it')
    expect(conflictText(file({ conflict: true, missing: true }))).toContain('You deleted this file')
    expect(conflictText(file({ conflict: true, change: 'deleted' }))).toContain('created again')
    expect(conflictText(file({ conflict: true, change: 'deleted', unrecorded: true }))).toContain('never')
    expect(conflictText(file({ conflict: true, laterRun: true }))).toContain('A later run changed this file')
  })

  it('shows what Undo left alone, and why, from the list read after it', async () => {
    const s = new ReviewStore('s1', 'r1', [file({}), file({ path: 'b.txt' })])
    vi.mocked(review.undoAll).mockResolvedValue([])
    vi.mocked(review.files).mockResolvedValue([file({ status: 'undone' }), file({ path: 'b.txt', conflict: true, missing: true })])
    await s.undoAll()
    expect(s.files.map(reviewStatus)).toEqual(['undone', 'conflict'])
    expect(conflictText(s.files[1])).toContain('You deleted this file')
    expect(s.error).toBe('')
  })
})

describe('changes on disk', () => {
  const deferred = <T,>() => {
    let resolve!: (v: T) => void
    const promise = new Promise<T>((r) => (resolve = r))
    return { promise, resolve }
  }
  const change = (paths: string[], over: Partial<WorkspaceChangedPayload> = {}): WorkspaceChangedPayload => ({
    root: '/p',
    dirs: [],
    paths,
    more: false,
    overflow: false,
    ...over,
  })

  it('reads the list when it first comes into view, and not before', async () => {
    const s = new ReviewStore('s1', 'r1', [file({})])
    vi.mocked(review.files).mockResolvedValue([file({ status: 'kept' })])
    expect(s.ready).toBe(false)
    s.changed(change(['a.txt']))
    expect(review.files).not.toHaveBeenCalled()
    s.shown()
    s.shown()
    await vi.waitFor(() => expect(s.ready).toBe(true))
    expect(review.files).toHaveBeenCalledTimes(1)
    expect(s.files[0].status).toBe('kept')
  })

  it('reads the list again only when one of its files, or a folder holding one, may have changed', async () => {
    const s = new ReviewStore('s1', 'r1', [file({ path: 'src/a.go' })])
    vi.mocked(review.files).mockResolvedValue([file({ path: 'src/a.go' })])
    s.shown()
    await vi.waitFor(() => expect(s.ready).toBe(true))
    vi.mocked(review.files).mockClear().mockResolvedValue([file({ path: 'src/a.go', conflict: true })])
    s.changed(change(['README.md', 'src/ab.go', 'sr']))
    expect(review.files).not.toHaveBeenCalled()

    s.changed(change(['src/a.go']))
    await vi.waitFor(() => expect(s.files[0].conflict).toBe(true))
    s.changed(change(['src']))
    s.changed(change([], { overflow: true }))
    s.changed(change(['x'], { more: true }))
    await vi.waitFor(() => expect(s.loading).toBe(false))
    expect(vi.mocked(review.files).mock.calls.length).toBeGreaterThanOrEqual(2)
  })

  it('a change while a read is on its way gets one more read after it, never a stale last word', async () => {
    const s = new ReviewStore('s1', 'r1', [file({})])
    const first = deferred<FileChange[]>()
    vi.mocked(review.files).mockReturnValueOnce(first.promise).mockResolvedValueOnce([file({ conflict: true })])
    s.shown()
    const shown = s.refresh()
    expect(s.loading).toBe(true)
    s.changed(change(['a.txt']))
    s.changed(change(['a.txt']))
    first.resolve([file({})])
    await shown
    expect(review.files).toHaveBeenCalledTimes(2)
    expect(s.files[0].conflict).toBe(true)
    expect(s.loading).toBe(false)
  })

  it('a first read that fails says why and is no longer busy', async () => {
    const s = new ReviewStore('s1', 'r1', [file({})])
    vi.mocked(review.files).mockRejectedValueOnce(new BackendError('the run is gone'))
    s.shown()
    await vi.waitFor(() => expect(s.ready).toBe(true))
    expect(s.error).toContain('the run is gone')
    expect(s.loading).toBe(false)
  })

  it('shows why a read after a change failed', async () => {
    const s = new ReviewStore('s1', 'r1', [file({})])
    vi.mocked(review.files).mockResolvedValueOnce([file({})]).mockRejectedValueOnce(new BackendError('reading a.txt: permission denied'))
    s.shown()
    await vi.waitFor(() => expect(s.ready).toBe(true))
    s.changed(change(['a.txt']))
    await vi.waitFor(() => expect(s.error).toContain('permission denied'))
    expect(s.loading).toBe(false)
  })
})

describe('diffs and actions racing', () => {
  const deferred = <T,>() => {
    let resolve!: (v: T) => void
    const promise = new Promise<T>((r) => (resolve = r))
    return { promise, resolve }
  }
  const diff = (path: string) => ({ path, binary: false, before: '', after: path, hunks: [] })

  it('opens another file while the first diff is loading, and only the latest shows', async () => {
    const s = new ReviewStore('s1', 'r1', [file({}), file({ path: 'b.txt' })])
    const slow = deferred<ReturnType<typeof diff>>()
    vi.mocked(review.diff).mockReturnValueOnce(slow.promise).mockResolvedValueOnce(diff('b.txt'))
    const first = s.toggle('a.txt')
    const second = s.toggle('b.txt')
    slow.resolve(diff('a.txt'))
    await Promise.all([first, second])
    expect(s.open).toBe('b.txt')
    expect(s.diff?.path).toBe('b.txt')
  })

  it('opens a file while Keep is running, and the refresh does not put the old diff under it', async () => {
    const s = new ReviewStore('s1', 'r1', [file({}), file({ path: 'b.txt' })])
    vi.mocked(review.diff).mockResolvedValueOnce(diff('a.txt'))
    await s.toggle('a.txt')

    vi.mocked(review.files).mockResolvedValue([file({ status: 'kept' }), file({ path: 'b.txt' })])
    const refreshed = deferred<ReturnType<typeof diff>>()
    vi.mocked(review.diff).mockReturnValueOnce(refreshed.promise).mockResolvedValueOnce(diff('b.txt'))
    const keep = s.keep('a.txt')
    await vi.waitFor(() => expect(review.diff).toHaveBeenCalledTimes(2)) // the refresh asks for a.txt
    expect(s.busy).toBe(true)
    const open = s.toggle('b.txt')
    refreshed.resolve(diff('a.txt'))
    await Promise.all([keep, open])
    expect(s.open).toBe('b.txt')
    expect(s.diff?.path).toBe('b.txt')
  })

  it('shows why a diff could not load', async () => {
    const s = new ReviewStore('s1', 'r1', [file({})])
    vi.mocked(review.diff).mockRejectedValueOnce(new BackendError('reading a.txt: gone'))
    await s.toggle('a.txt')
    expect(s.error).toContain('gone')
    expect(s.diff).toBeNull()
  })
})

describe('a list read ahead (prefetchReview)', () => {
  const changedOnDisk = () =>
    emit({
      id: 'e1', seq: 1, sessionId: '', runId: '', time: '',
      type: EventType.WorkspaceChanged,
      payload: { root: '/p', dirs: [], paths: ['a.txt'], more: false, overflow: false },
    })

  it('gives the panel its list from its first frame, with no read of its own', async () => {
    vi.mocked(review.files).mockResolvedValue([file({ status: 'kept' })])
    await prefetchReview('s1', 'ahead1')
    const s = new ReviewStore('s1', 'ahead1', [file({})])
    expect(s.ready).toBe(true)
    expect(s.files[0].status).toBe('kept')
    s.shown()
    expect(review.files).toHaveBeenCalledTimes(1)
    // Taken once: another panel of the run reads for itself.
    expect(new ReviewStore('s1', 'ahead1', [file({})]).ready).toBe(false)
    // Shown, it follows changes on disk as any panel does.
    s.changed({ root: '/p', dirs: [], paths: ['a.txt'], more: false, overflow: false })
    await vi.waitFor(() => expect(review.files).toHaveBeenCalledTimes(2))
  })

  it('is read again when a file changed on disk after the panel took it, before it was shown', async () => {
    vi.mocked(review.files).mockResolvedValue([file({ status: 'kept' })])
    await prefetchReview('s1', 'ahead5')
    const s = new ReviewStore('s1', 'ahead5', [file({})])
    expect(s.ready).toBe(true)
    s.changed({ root: '/p', dirs: [], paths: ['a.txt'], more: false, overflow: false })
    s.shown()
    await vi.waitFor(() => expect(review.files).toHaveBeenCalledTimes(2))
  })

  it('still on its way, is the first read', async () => {
    let answer!: (f: FileChange[]) => void
    vi.mocked(review.files).mockReturnValueOnce(new Promise((r) => (answer = r)))
    void prefetchReview('s1', 'ahead2')
    const s = new ReviewStore('s1', 'ahead2', [file({})])
    expect(s.ready).toBe(false)
    s.shown()
    answer([file({ status: 'undone' })])
    await vi.waitFor(() => expect(s.ready).toBe(true))
    expect(s.files[0].status).toBe('undone')
    expect(review.files).toHaveBeenCalledTimes(1)
  })

  it('still on its way when a file changes on disk, is not the first read: the panel reads anew once shown', async () => {
    let answer!: (f: FileChange[]) => void
    vi.mocked(review.files).mockReturnValueOnce(new Promise((r) => (answer = r)))
    void prefetchReview('s1', 'ahead6')
    const s = new ReviewStore('s1', 'ahead6', [file({})])
    s.changed({ root: '/p', dirs: [], paths: ['a.txt'], more: false, overflow: false })
    vi.mocked(review.files).mockResolvedValueOnce([file({ status: 'undone' })])
    s.shown()
    answer([file({ status: 'kept' })]) // read before the change
    await vi.waitFor(() => expect(s.ready).toBe(true))
    expect(s.files[0].status).toBe('undone')
    expect(review.files).toHaveBeenCalledTimes(2)
  })

  it('is read again when it failed, or when a file changed on disk since', async () => {
    vi.mocked(review.files).mockRejectedValueOnce(new BackendError('no such run'))
    await prefetchReview('s1', 'ahead3')
    const failed = new ReviewStore('s1', 'ahead3', [file({})])
    expect(failed.ready).toBe(false)

    vi.mocked(review.files).mockResolvedValue([file({ status: 'kept' })])
    await prefetchReview('s1', 'ahead4')
    changedOnDisk()
    const stale = new ReviewStore('s1', 'ahead4', [file({})])
    expect(stale.ready).toBe(false)
    stale.shown()
    await vi.waitFor(() => expect(stale.ready).toBe(true))
    expect(review.files).toHaveBeenCalledTimes(3)
  })
})
