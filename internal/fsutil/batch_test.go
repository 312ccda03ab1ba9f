package fsutil

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// batchFiles lays out files for a batch: every third one missing (two of those in folders that
// are missing too), the others there with content and a mode of their own.
func batchFiles(t *testing.T, dir string, n int) (paths []string, modes []fs.FileMode) {
	t.Helper()
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("d%d", i%4), fmt.Sprintf("f%02d.txt", i))
		mode := fs.FileMode(0o600 | (i%3)<<3)
		switch {
		case i == 1 || i == 4:
			p = filepath.Join(dir, fmt.Sprintf("new%d", i), "deeper", "f.txt")
		case i%3 != 1:
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte("before\n"), 0o644))
			require.NoError(t, os.Chmod(p, 0o644))
		}
		paths, modes = append(paths, p), append(modes, mode)
	}
	return paths, modes
}

func content(i int) []byte { return []byte(fmt.Sprintf("restored %d\n", i)) }

// requireCommitted commits b and checks that it replaced every path, each with content(i) and
// exactly modes[i].
func requireCommitted(t *testing.T, b *Batch, paths []string, modes []fs.FileMode) {
	t.Helper()
	replaced, err := b.Commit()
	require.NoError(t, err)
	require.ElementsMatch(t, paths, replaced)
	for i, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		require.Equal(t, content(i), data)
		fi, err := os.Stat(p)
		require.NoError(t, err)
		require.Equal(t, modes[i], fi.Mode().Perm(), p)
	}
}

// Large batches (one flush per file system) and small ones (one sync per file) end the same way:
// every file with its new bytes and exactly its mode, missing folders created, nothing else
// left behind; before Commit, nothing has changed.
func TestBatchRestoresEveryFile(t *testing.T) {
	t.Parallel()
	for _, n := range []int{3, flushWholeFSFrom * 3} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			paths, modes := batchFiles(t, dir, n)
			b := NewBatch(n)
			var wg sync.WaitGroup
			for i, p := range paths {
				wg.Go(func() { require.NoError(t, b.Restore(p, content(i), modes[i])) })
			}
			wg.Wait()
			t.Logf("%d files, %d file systems flushed as a whole", n, len(b.flushers))
			for i, p := range paths {
				data, err := os.ReadFile(p)
				if i%3 == 1 {
					require.ErrorIs(t, err, fs.ErrNotExist, "not restored before Commit")
				} else {
					require.Equal(t, "before\n", string(data), "not restored before Commit")
				}
			}

			requireCommitted(t, b, paths, modes)
			requireNoTemps(t, dir)
		})
	}
}

func TestBatchAbortChangesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	paths, modes := batchFiles(t, dir, flushWholeFSFrom)
	b := NewBatch(len(paths))
	for i, p := range paths {
		require.NoError(t, b.Restore(p, content(i), modes[i]))
	}
	b.Abort()
	for i, p := range paths {
		data, err := os.ReadFile(p)
		if i%3 == 1 {
			require.ErrorIs(t, err, fs.ErrNotExist)
		} else {
			require.Equal(t, "before\n", string(data))
		}
	}
	requireNoTemps(t, dir)
}

// A rename that fails (a folder took the file's place since it was staged) leaves that path as
// it was, and the error is returned with the paths the other renames replaced.
func TestBatchCommitReportsAFailedRename(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var paths []string
	for i := range 3 {
		p := filepath.Join(dir, fmt.Sprintf("f%d.txt", i))
		require.NoError(t, os.WriteFile(p, []byte("before\n"), 0o644))
		paths = append(paths, p)
	}
	b := NewBatch(len(paths))
	for i, p := range paths {
		require.NoError(t, b.Restore(p, content(i), 0o644))
	}
	require.NoError(t, os.Remove(paths[1]))
	require.NoError(t, os.MkdirAll(filepath.Join(paths[1], "child"), 0o755))

	replaced, err := b.Commit()
	require.Error(t, err)
	require.ElementsMatch(t, []string{paths[0], paths[2]}, replaced)
	for _, i := range []int{0, 2} {
		data, err := os.ReadFile(paths[i])
		require.NoError(t, err)
		require.Equal(t, content(i), data)
	}
	require.DirExists(t, filepath.Join(paths[1], "child"))
	requireNoTemps(t, dir)
}

// Moved files take their paths whole, mode and all, in large and small batches alike, beside
// restored ones; before Commit nothing has changed, and Abort leaves a moved file where it was.
func TestBatchMovesFilesOverTheirPaths(t *testing.T) {
	t.Parallel()
	for _, n := range []int{3, flushWholeFSFrom * 3} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			paths, modes := batchFiles(t, filepath.Join(dir, "work"), n)
			stash := filepath.Join(dir, "stash")
			require.NoError(t, os.Mkdir(stash, 0o700))
			from := func(i int) string { return filepath.Join(stash, fmt.Sprint(i)) }
			for i := range paths {
				if i%2 == 0 {
					require.NoError(t, os.WriteFile(from(i), content(i), 0o600))
					require.NoError(t, os.Chmod(from(i), modes[i]))
				}
			}

			abort := NewBatch(n)
			for i, p := range paths {
				if i%2 == 0 {
					require.NoError(t, abort.Move(from(i), p))
				}
			}
			abort.Abort()
			for i := range paths {
				if i%2 == 0 {
					require.FileExists(t, from(i), "Abort leaves a file given to Move alone")
				}
			}

			b := NewBatch(n)
			for i, p := range paths {
				if i%2 == 0 {
					require.NoError(t, b.Move(from(i), p))
				} else {
					require.NoError(t, b.Restore(p, content(i), modes[i]))
				}
			}
			for i, p := range paths {
				if data, err := os.ReadFile(p); err == nil {
					require.Equal(t, "before\n", string(data), "not moved before Commit")
				} else {
					require.Equal(t, 1, i%3, "only the missing files are missing before Commit")
				}
			}
			requireCommitted(t, b, paths, modes)
			left, err := os.ReadDir(stash)
			require.NoError(t, err)
			require.Empty(t, left, "every moved file left the stash")
			requireNoTemps(t, dir)
		})
	}
}

func TestBatchRefusesFolders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	b := NewBatch(1)
	require.ErrorContains(t, b.Restore(filepath.Join(dir, "sub"), []byte("x"), 0o644), "not a regular file")
	replaced, err := b.Commit()
	require.NoError(t, err)
	require.Empty(t, replaced)
	require.Equal(t, []string{"sub"}, dirNames(t, dir))
}

// requireNoTemps checks that no temporary file is left anywhere below dir.
func requireNoTemps(t *testing.T, dir string) {
	t.Helper()
	var temps []string
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			temps = append(temps, path)
		}
		return err
	}))
	require.Empty(t, temps)
}

// A batch killed before its renames leaves its temporary files; the batch that restores the same
// files again removes them, and nothing that is not one of them.
func TestBatchClearsWhatAKilledBatchLeft(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	require.NoError(t, os.WriteFile(path, []byte("before\n"), 0o644))
	// Left by a killed batch: the first two. The person's own, or another file's: the others.
	for _, name := range []string{".f.txt.tmp-00000000abc12", ".f.txt.tmp-3w5e11264sgsf", ".f.txt.tmp-old", ".f.txt.tmp-NOTNOTNOTNOTN", ".g.txt.tmp-00000000abc12", ".f.txt.tmp-"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("restored\n"), 0o600))
	}
	b := NewBatch(1)
	require.NoError(t, b.Restore(path, []byte("restored\n"), 0o644))
	_, err := b.Commit()
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"f.txt", ".f.txt.tmp-old", ".f.txt.tmp-NOTNOTNOTNOTN", ".g.txt.tmp-00000000abc12", ".f.txt.tmp-"}, dirNames(t, dir))
}
