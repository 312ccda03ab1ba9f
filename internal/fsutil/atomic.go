// Package fsutil writes files the crash-safe way: a reader, or a crash, finds the old content or
// the new, never a mix. The tools, undo and settings all write through it.
package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"unicode/utf8"
)

// WriteFile replaces the file at path with data: the data goes to a temporary file in the same
// folder (a rename is only atomic within one file system), which is synced and renamed over path.
//
// The file keeps its permission bits; a new one gets 0644 less the umask, and missing parent
// folders are created. On failure path is as it was and the temporary file is gone. path must
// not be a symbolic link, which would be replaced by a regular file: resolve it first.
func WriteFile(path string, data []byte) error {
	return Replace(path, nil, writeAll(data))
}

func writeAll(data []byte) func(*os.File) error {
	return func(f *os.File) error {
		_, err := f.Write(data)
		return err
	}
}

// Replace is WriteFile with the writing step passed in (tests make it fail halfway) and a mode
// to give the file exactly, umask or not; mode nil keeps the existing file's mode.
func Replace(path string, mode *fs.FileMode, write func(*os.File) error) error {
	tmp, folders, err := writeTemp(path, mode, write, true)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	for _, dir := range folders {
		if err := SyncDir(dir); err != nil {
			return fmt.Errorf("%s was written, but syncing its folder failed: %w", path, err)
		}
	}
	return nil
}

// writeTemp writes what is to replace path to a new temporary file beside it (a rename is only
// atomic within one file system), with the file's final mode, and synced when sync is set. It
// returns the temporary file's name and the folders a rename of it over path changes: path's
// own, and the parent of each folder it had to create for it. On failure it leaves no temporary
// file.
func writeTemp(path string, mode *fs.FileMode, write func(*os.File) error, sync bool) (tmp string, folders []string, err error) {
	dir := filepath.Dir(path)
	folders = []string{dir}
	perm, existed := fs.FileMode(0o644), false
	fi, err := os.Stat(path)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return "", nil, fmt.Errorf("%s is not a regular file", path)
	case err == nil:
		perm, existed = fi.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky), true
	case errors.Is(err, fs.ErrNotExist):
		created, err := mkdirAll(dir)
		if err != nil {
			return "", nil, err
		}
		for _, d := range created {
			folders = append(folders, filepath.Dir(d))
		}
	default:
		return "", nil, err
	}

	// A replacement starts private and gets its mode once complete (chmod, unlike creating with
	// a mode, is not narrowed by the umask); a new file is created with its final mode, so the
	// umask applies.
	createPerm := perm
	if mode != nil {
		perm = *mode
	}
	chmod := existed || mode != nil
	if chmod {
		createPerm = 0o600
	}
	f, err := createTemp(dir, filepath.Base(path), createPerm)
	if err != nil {
		return "", nil, err
	}
	defer func() {
		if err != nil {
			_ = f.Close() // may already be closed; the file is going anyway
			_ = os.Remove(f.Name())
		}
	}()
	if err = write(f); err != nil {
		return "", nil, err
	}
	if chmod {
		if err = f.Chmod(perm); err != nil {
			return "", nil, err
		}
	}
	// Sync before the rename, or a crash could leave the new name pointing at empty data. A
	// batch flushes later, all files at once; the disk can start on this one meanwhile.
	if sync {
		if err = f.Sync(); err != nil {
			return "", nil, err
		}
	} else {
		startWriteback(f)
	}
	if err = f.Close(); err != nil {
		return "", nil, err
	}
	return f.Name(), folders, nil
}

// mkdirAll is os.MkdirAll that returns the folders it created.
func mkdirAll(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || !errors.Is(err, fs.ErrNotExist) || filepath.Dir(d) == d {
			break
		}
		missing = append(missing, d)
	}
	return missing, os.MkdirAll(dir, 0o755)
}

// maxTempBase keeps a temporary name within the 255-byte limit on file names when the target's
// own name is already long.
const maxTempBase = 200

// createTemp makes a new hidden file beside the target. Unlike os.CreateTemp it creates it with
// perm rather than 0600, so a new file ends up with the mode the umask allows.
func createTemp(dir, base string, perm fs.FileMode) (*os.File, error) {
	prefix := tempPrefix(base)
	for range 10 {
		name := filepath.Join(dir, prefix+tempSuffix(rand.Uint64()))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("could not create a temporary file in %s", dir)
}

// tempPrefix is how the names of the temporary files for a file named base begin; a random
// number ends them (tempSuffix).
func tempPrefix(base string) string {
	if len(base) > maxTempBase {
		cut := maxTempBase
		for cut > 0 && !utf8.RuneStart(base[cut]) {
			cut--
		}
		base = base[:cut]
	}
	return "." + base + ".tmp-"
}

// tempSuffixLen is how long tempSuffix is: a uint64 has up to 13 digits in base 36.
const tempSuffixLen = 13

// tempSuffix is n in base 36, always tempSuffixLen digits long: a name of the person's own, like
// ".notes.txt.tmp-old", is then never taken for a temporary file left behind, and removed.
func tempSuffix(n uint64) string {
	digits := strconv.FormatUint(n, 36)
	return strings.Repeat("0", tempSuffixLen-len(digits)) + digits
}

// isTempOf reports whether name is one of createTemp's names with prefix.
func isTempOf(name, prefix string) bool {
	suffix, ok := strings.CutPrefix(name, prefix)
	if !ok || len(suffix) != tempSuffixLen {
		return false
	}
	for _, c := range suffix {
		if (c < '0' || c > '9') && (c < 'a' || c > 'z') {
			return false
		}
	}
	return true
}

// Chmod sets path's permission bits and makes the change durable, so that nothing recorded
// after it (an undo marked done) can reach the disk before it does.
func Chmod(path string, mode fs.FileMode) error {
	if err := os.Chmod(path, mode); err != nil {
		return err
	}
	if runtime.GOOS == "windows" {
		return nil // a read-only handle cannot be flushed there; NTFS journals the change itself
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// SyncDir makes a rename or removal in dir durable: names are entries of the folder, which has
// its own buffers.
func SyncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil // folders cannot be opened for syncing there; NTFS journals renames itself
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
