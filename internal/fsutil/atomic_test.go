package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteFileAtomicKeepsModeAndLeavesNoTemp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "run.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\necho old\n"), 0o755))
	require.NoError(t, os.Chmod(script, 0o755)) // whatever the umask

	require.NoError(t, WriteFile(script, []byte("#!/bin/sh\necho new\n")))

	data, err := os.ReadFile(script)
	require.NoError(t, err)
	require.Equal(t, "#!/bin/sh\necho new\n", string(data))
	fi, err := os.Stat(script)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o755), fi.Mode().Perm())
	require.Equal(t, []string{"run.sh"}, dirNames(t, dir))

	private := filepath.Join(dir, "secret")
	require.NoError(t, os.WriteFile(private, []byte("a"), 0o600))
	require.NoError(t, os.Chmod(private, 0o640))
	require.NoError(t, WriteFile(private, []byte("b")))
	fi, err = os.Stat(private)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o640), fi.Mode().Perm())
}

func TestWriteFileAtomicCreatesParents(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "a", "b", "new.txt")
	require.NoError(t, WriteFile(path, []byte("hello\n")))

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "hello\n", string(data))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	// 0644 less the umask: never more than that, and always readable and writable by the owner.
	require.Zero(t, fi.Mode().Perm()&^0o644, fi.Mode())
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm()&0o600)
	parent, err := os.Stat(filepath.Join(dir, "a", "b"))
	require.NoError(t, err)
	require.True(t, parent.IsDir())
	require.Equal(t, []string{"new.txt"}, dirNames(t, filepath.Join(dir, "a", "b")))
}

func TestReplaceFileFailureLeavesTheOriginal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "main.go")
	require.NoError(t, os.WriteFile(path, []byte("package main\n"), 0o644))

	diskFull := errors.New("no space left on device")
	err := Replace(path, nil, func(f *os.File) error {
		_, _ = f.WriteString("package ma")
		return diskFull
	})
	require.ErrorIs(t, err, diskFull)

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "package main\n", string(data))
	require.Equal(t, []string{"main.go"}, dirNames(t, dir))
}

func TestWriteFileAtomicUnderAFileFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(file, []byte("keep\n"), 0o644))

	require.Error(t, WriteFile(filepath.Join(file, "x.txt"), []byte("x")))
	require.Error(t, WriteFile(filepath.Join(file, "sub", "x.txt"), []byte("x")))

	data, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Equal(t, "keep\n", string(data))
	require.Equal(t, []string{"notes.txt"}, dirNames(t, dir))
}

func TestWriteFileAtomicRefusesFolders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	require.ErrorContains(t, WriteFile(filepath.Join(dir, "sub"), []byte("x")), "not a regular file")
	require.Equal(t, []string{"sub"}, dirNames(t, dir))
}

func TestWriteFileAtomicLongName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	name := strings.Repeat("ü", 120) + ".txt" // 244 bytes: a temporary name with a suffix must be cut
	require.NoError(t, WriteFile(filepath.Join(dir, name), []byte("x")))
	require.Equal(t, []string{name}, dirNames(t, dir))
}
