package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"gantry/internal/ignore"
)

// recorder collects Changes as the watcher reports them.
type recorder struct {
	mu      sync.Mutex
	changes []Change
	arrived chan struct{}
}

func newRecorder() *recorder { return &recorder{arrived: make(chan struct{}, 1000)} }

func (r *recorder) onChange(c Change) {
	r.mu.Lock()
	r.changes = append(r.changes, c)
	r.mu.Unlock()
	r.arrived <- struct{}{}
}

func (r *recorder) all() []Change {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Change(nil), r.changes...)
}

// paths and dirs merge everything reported so far.
func (r *recorder) merged() (paths, dirs map[string]bool) {
	paths, dirs = map[string]bool{}, map[string]bool{}
	for _, c := range r.all() {
		for _, p := range c.Paths {
			paths[p] = true
		}
		for _, d := range c.Dirs {
			dirs[d] = true
		}
	}
	return paths, dirs
}

// waitFor waits until the reported paths include every one of want.
func (r *recorder) waitFor(t *testing.T, want ...string) {
	t.Helper()
	require.Eventually(t, func() bool {
		paths, _ := r.merged()
		for _, p := range want {
			if !paths[p] {
				return false
			}
		}
		return true
	}, 20*time.Second, 10*time.Millisecond, "waiting for %v; got %+v", want, r.all())
}

// onlySentinel writes a file the watcher reports and waits for it: the watcher reports in
// order, so everything written before it has been reported by then, or never will be. It
// checks that the sentinel is all that was reported.
func (r *recorder) onlySentinel(t *testing.T, root string) {
	t.Helper()
	write(t, root, "sentinel.txt", "x")
	r.waitFor(t, "sentinel.txt")
	paths, _ := r.merged()
	require.Equal(t, map[string]bool{"sentinel.txt": true}, paths)
}

func start(t *testing.T, root string, wrapAdd func(func(string) error) func(string) error) (*Watcher, *recorder) {
	t.Helper()
	return startDebounced(t, root, 30*time.Millisecond, wrapAdd)
}

func startDebounced(t *testing.T, root string, debounce time.Duration, wrapAdd func(func(string) error) func(string) error) (*Watcher, *recorder) {
	t.Helper()
	rec := newRecorder()
	w, err := newWatcher(root, ignore.New(root), Options{Debounce: debounce, OnChange: rec.onChange}, wrapAdd)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, w.Close()) })
	return w, rec
}

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

func TestCreateModifyRenameDelete(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, "src/old.go", "package x")
	_, rec := start(t, root, nil)

	write(t, root, "src/new.go", "package x")
	rec.waitFor(t, "src/new.go")
	_, dirs := rec.merged()
	require.True(t, dirs["src"], "a created file changes its folder's listing")

	write(t, root, "src/old.go", "package y")
	rec.waitFor(t, "src/old.go")

	require.NoError(t, os.Rename(filepath.Join(root, "src/old.go"), filepath.Join(root, "renamed.go")))
	rec.waitFor(t, "renamed.go")
	_, dirs = rec.merged()
	require.True(t, dirs[""], "the root gained an entry")

	require.NoError(t, os.Remove(filepath.Join(root, "src/new.go")))
	require.Eventually(t, func() bool {
		last := rec.all()[len(rec.all())-1]
		return len(last.Paths) == 1 && last.Paths[0] == "src/new.go" && last.Dirs[0] == "src"
	}, 5*time.Second, 10*time.Millisecond)
}

func TestNestedFoldersCreatedAtOnceAreWatched(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	w, rec := start(t, root, nil)

	require.NoError(t, os.MkdirAll(filepath.Join(root, "a/b/c"), 0o755))
	write(t, root, "a/b/c/early.txt", "x") // may land before c's watch exists: the scan finds it
	rec.waitFor(t, "a", "a/b", "a/b/c", "a/b/c/early.txt")
	require.Eventually(t, func() bool { return w.Status().Watched == 4 }, 5*time.Second, 10*time.Millisecond)

	write(t, root, "a/b/c/late.txt", "x")
	rec.waitFor(t, "a/b/c/late.txt")
}

func TestRenamedFolderIsWatchedUnderItsNewName(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, "old/sub/f.txt", "x")
	_, rec := start(t, root, nil)

	require.NoError(t, os.Rename(filepath.Join(root, "old"), filepath.Join(root, "new")))
	rec.waitFor(t, "old", "new", "new/sub", "new/sub/f.txt")
	write(t, root, "new/sub/g.txt", "x")
	rec.waitFor(t, "new/sub/g.txt")
	paths, _ := rec.merged()
	require.False(t, paths["old/sub/g.txt"], "no stale names from the old watch")
}

func TestIgnoredPathsAreSilent(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, ".gitignore", "*.log\ngenerated/\n")
	write(t, root, "generated/keep", "x")
	write(t, root, "node_modules/pkg/index.js", "x")
	write(t, root, ".git/HEAD", "ref: refs/heads/main\n")
	w, rec := start(t, root, nil)
	require.Equal(t, 1, w.Status().Watched, "only the root is visible")

	write(t, root, "debug.log", "x")
	write(t, root, "generated/out.txt", "x")
	write(t, root, "node_modules/pkg/index.js", "y")
	write(t, root, "node_modules/pkg/new.js", "y")
	write(t, root, ".git/HEAD", "ref: refs/heads/other\n")
	write(t, root, ".git/refs/heads/other", "abc\n")
	rec.onlySentinel(t, root)
}

func TestBurstIsCoalesced(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	// A debounce far longer than the pause between two small writes, however busy the machine:
	// what is measured is the coalescing, not how fast the writes come.
	_, rec := startDebounced(t, root, time.Second, nil)

	for i := range 200 {
		write(t, root, fmt.Sprintf("f%03d.txt", i), "x")
	}
	// f199.txt was written last and Changes come in order: every file has been reported now.
	rec.waitFor(t, "f000.txt", "f199.txt")
	changes := rec.all()
	require.LessOrEqual(t, len(changes), 2, "200 writes in a burst")
	paths, _ := rec.merged()
	require.Len(t, paths, 200)
	for _, c := range changes {
		require.IsIncreasing(t, c.Paths, "sorted and deduplicated")
	}
}

func TestCloseStopsCallbacks(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	w, _ := start(t, root, nil)
	write(t, root, "before.txt", "x") // a burst still waiting for quiet when Close comes
	require.NoError(t, w.Close())
	require.NoError(t, w.Close(), "a second Close is harmless")
	// Only the watcher's goroutine calls OnChange, and Close waited for it to end.
	select {
	case <-w.done:
	default:
		t.Fatal("Close returned while the watcher's goroutine still runs")
	}
}

func TestWatchLimitDegradesGracefully(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for i := range 5 {
		require.NoError(t, os.MkdirAll(filepath.Join(root, fmt.Sprintf("d%d", i)), 0o755))
	}
	// The root and two folders fit under the "limit"; every later add fails as inotify would.
	var mu sync.Mutex
	adds := 0
	limit := func(add func(string) error) func(string) error {
		return func(p string) error {
			mu.Lock()
			defer mu.Unlock()
			if adds == 3 {
				return fmt.Errorf("inotify_add_watch: %w", syscall.ENOSPC)
			}
			adds++
			return add(p)
		}
	}
	w, rec := start(t, root, limit)
	st := w.Status()
	require.True(t, st.Limited)
	require.Equal(t, 3, st.Watched)
	require.Equal(t, 6, st.Total)
	require.Equal(t, "Watching 3 of 6 folders: the system's inotify limit is reached; the file tree may miss "+
		"changes in the rest. Raise fs.inotify.max_user_watches to watch everything.", st.Note)

	write(t, root, "top.txt", "x") // the root is still watched
	rec.waitFor(t, "top.txt")
	c := rec.all()[0]
	require.True(t, c.Limited)
	require.Equal(t, st.Note, c.Note)

	require.NoError(t, os.Mkdir(filepath.Join(root, "d9"), 0o755))
	rec.waitFor(t, "d9")
	require.Equal(t, 3, w.Status().Watched, "no more adds once the limit is hit")
	require.Equal(t, 7, w.Status().Total)
}

func TestThousands(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 8192: "8,192", 1234567: "1,234,567"} {
		require.Equal(t, want, thousands(n))
	}
}
