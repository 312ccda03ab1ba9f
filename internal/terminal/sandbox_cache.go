package terminal

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Each project's sandbox cache (Go's build and module caches, npm's, pip's) can grow to
// gigabytes, and a project the person stopped opening would keep its cache forever. A cache
// is marked used by every sandboxed command (its folder's time), and PruneSandboxCaches
// removes those not used for a while.

// SandboxCacheKept is how long a project's sandbox cache stays after its last use.
const SandboxCacheKept = 30 * 24 * time.Hour

// markUsed dates the cache folder now, so pruning leaves it alone.
func markUsed(dir string) {
	now := time.Now()
	_ = os.Chtimes(dir, now, now)
}

// PruneSandboxCaches removes the projects' sandbox caches in the user cache folder that were
// last used before cutoff, and reports how many it removed. Caches in the temp folder are the
// system's to clean.
func PruneSandboxCaches(cutoff time.Time) (int, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return 0, nil // no user cache folder: caches went to the temp folder
	}
	parent := filepath.Join(base, "gantry", "sandbox")
	entries, err := os.ReadDir(parent)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	removed := 0
	var errs []error
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".pruning-") {
			_ = removeAll(filepath.Join(parent, e.Name())) // left by a prune that was cut short
			continue
		}
		info, err := e.Info()
		if err != nil || !e.IsDir() || !info.ModTime().Before(cutoff) {
			continue
		}
		gone, err := prune(parent, e.Name(), cutoff)
		if err != nil {
			errs = append(errs, err)
		}
		if gone {
			removed++
		}
	}
	return removed, errors.Join(errs...)
}

// prune removes parent/name unless a session marked it used meanwhile. The folder is first
// renamed aside, which no session can take any more (one that starts now makes a fresh
// folder), and its time checked again there: a session that marked it between the listing
// and the rename gets it back.
func prune(parent, name string, cutoff time.Time) (bool, error) {
	dir := filepath.Join(parent, name)
	aside := filepath.Join(parent, ".pruning-"+name)
	if err := os.Rename(dir, aside); err != nil {
		return false, err
	}
	if fi, err := os.Stat(aside); err == nil && !fi.ModTime().Before(cutoff) {
		return false, os.Rename(aside, dir)
	}
	return true, removeAll(aside)
}

// removeAll is os.RemoveAll for trees with read-only folders in them, as Go's module cache
// makes its own.
func removeAll(dir string) error {
	if os.RemoveAll(dir) == nil {
		return nil
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}
