package terminal

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestPruneSandboxCachesRemovesOnlyOnesLongUnused(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	removed, err := PruneSandboxCaches(time.Now())
	require.NoError(t, err, "no caches yet is not an error")
	require.Zero(t, removed)

	usedRoot, oldRoot, freshRoot := filepath.Join(t.TempDir(), "used"), filepath.Join(t.TempDir(), "old"), filepath.Join(t.TempDir(), "fresh")
	used, old, fresh := sandboxCacheDir(usedRoot), sandboxCacheDir(oldRoot), sandboxCacheDir(freshRoot)
	require.Equal(t, filepath.Join(cache, "gantry", "sandbox"), filepath.Dir(old))
	// What `go mod download` leaves: read-only folders, which a plain RemoveAll cannot empty
	// (unless it runs as root).
	mod := filepath.Join(old, "gomod", "example.com", "m@v1.0.0")
	require.NoError(t, os.MkdirAll(mod, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module m\n"), 0o444))
	require.NoError(t, os.Chmod(mod, 0o555))
	require.NoError(t, os.Chmod(filepath.Dir(mod), 0o555))

	longAgo := time.Now().Add(-2 * SandboxCacheKept)
	for _, dir := range []string{used, old} {
		require.NoError(t, os.Chtimes(dir, longAgo, longAgo))
	}
	// Sandboxing the first project again marks its cache used.
	require.Equal(t, used, sandboxCacheDir(usedRoot))

	removed, err = PruneSandboxCaches(time.Now().Add(-SandboxCacheKept))
	require.NoError(t, err)
	require.Equal(t, 1, removed)
	require.NoDirExists(t, old)
	require.DirExists(t, used)
	require.DirExists(t, fresh)
}

func TestSandboxCacheIsMarkedByEveryCommandAndMadeAgainWhenGone(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	s := NewSession(t.TempDir())
	dir := s.cacheDir()
	require.DirExists(t, dir)

	longAgo := time.Now().Add(-2 * SandboxCacheKept)
	require.NoError(t, os.Chtimes(dir, longAgo, longAgo))
	require.Equal(t, dir, s.cacheDir())
	fi, err := os.Stat(dir)
	require.NoError(t, err)
	require.WithinDuration(t, time.Now(), fi.ModTime(), time.Minute, "a command marks the cache used")

	require.NoError(t, os.RemoveAll(dir)) // pruned, or the person cleared ~/.cache
	require.Equal(t, dir, s.cacheDir())
	require.DirExists(t, dir)
}

func TestPruneSandboxCachesFinishesAPruneCutShort(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	left := filepath.Join(cache, "gantry", "sandbox", ".pruning-proj-0123")
	require.NoError(t, os.MkdirAll(filepath.Join(left, "gocache"), 0o700))
	_, err := PruneSandboxCaches(time.Now().Add(-SandboxCacheKept))
	require.NoError(t, err)
	require.NoDirExists(t, left)
}
