package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// flushWholeFSFrom is how many files a batch needs before it flushes each file system once
// instead of syncing file by file. One flush writes out everything waiting on the file system,
// other programs' data too, so for a few files their own syncs are cheaper and never wait on
// someone else's gigabytes; for hundreds, one sync per file is what costs seconds.
const flushWholeFSFrom = 16

// Batch replaces many files as WriteFile replaces one, each file whole or untouched whatever
// happens, but makes them durable together: where WriteFile syncs every file and its folder,
// a batch flushes each file system once for all the new contents and syncs each folder once
// for all the renames. Undoing a checkpoint of a thousand files goes through one.
//
// The order Commit relies on, and why a crash at any point leaves every file whole:
//
//  1. Restore writes each new content to a temporary file beside its target, with its final
//     mode, and starts its write-back. Nothing is visible at the target yet; a crash leaves
//     stray temporary files at worst, which the next batch restoring the same files removes.
//  2. Commit makes every temporary file durable before it renames any: with syncfs(2), which
//     returns once all of the file system's dirty data and metadata are written and the disk's
//     cache flushed, on file systems known to do so (see syncfsTrusted); elsewhere, and for
//     small batches, Restore has already synced each file itself (fsync(2)). So a rename that
//     survives a crash can only point at complete data.
//  3. Each rename replaces a target atomically: after a crash the name points at the old file
//     or at the new one, never at a mix.
//  4. Commit syncs every folder whose entries changed (the renames, the folders Restore had to
//     create, and those the caller reported with Changed) before it returns, so whatever the
//     caller records afterwards ("this file is undone") cannot reach the disk before the files
//     it describes. A crash before that may undo some renames: those targets still hold their
//     old, whole content, and the caller, having recorded nothing, does the work again.
type Batch struct {
	flushFS bool

	mu       sync.Mutex
	staged   []stagedFile
	folders  map[string]bool
	flushers map[uint64]*os.File // per device: a folder open since before the first write there
	devOf    map[string]uint64   // folder → device, for folders with a flusher
	strays   map[string][]string // folder → the temporary files in it before the batch wrote there
}

// stagedFile is a file to rename over path: a temporary file Restore wrote, or one Move was
// given (moved), which is not the batch's to remove.
type stagedFile struct {
	tmp, path string
	moved     bool
}

// NewBatch starts a batch of about files files. Every batch ends with Commit or Abort.
func NewBatch(files int) *Batch {
	return &Batch{
		flushFS:  files >= flushWholeFSFrom,
		folders:  map[string]bool{},
		flushers: map[uint64]*os.File{},
		devOf:    map[string]uint64{},
		strays:   map[string][]string{},
	}
}

// Restore stages path's new content, data with exactly mode, for Commit; nothing changes at path
// before then. It may be called from several goroutines at once. Like WriteFile, it creates
// missing folders and refuses a path that is not a regular file.
func (b *Batch) Restore(path string, data []byte, mode fs.FileMode) error {
	b.removeStrays(path)
	syncNow := !b.flushFS || !b.flusherFor(path)
	tmp, folders, err := writeTemp(path, &mode, writeAll(data), syncNow)
	if err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.staged = append(b.staged, stagedFile{tmp: tmp, path: path})
	for _, dir := range folders {
		b.folders[dir] = true
	}
	return nil
}

// Move stages an existing file, from, to be renamed over path by Commit: path gets from's very
// content and mode without a byte copied. from must be a regular file on path's file system;
// its content is made durable before the rename like a restored file's. Folders missing above
// path are created. It may be called from several goroutines at once.
func (b *Batch) Move(from, path string) error {
	b.removeStrays(path)
	syncNow := !b.flushFS || !b.flusherFor(path)
	created, err := mkdirAll(filepath.Dir(path))
	if err != nil {
		return err
	}
	if syncNow {
		if err := syncFile(from); err != nil {
			return err
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.staged = append(b.staged, stagedFile{tmp: from, path: path, moved: true})
	b.folders[filepath.Dir(path)] = true
	for _, d := range created {
		b.folders[filepath.Dir(d)] = true
	}
	return nil
}

// syncFile makes path's content durable.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// removeStrays deletes the temporary files that earlier writes of path, killed before their
// rename, left beside it. A batch has as many at once as it restores files, so an undo of a
// whole run cut short can leave hundreds; the undo that finishes the job clears them. Only files
// there before the batch first wrote to the folder are candidates, so none of its own ever is.
// A write of path in flight in another process loses its temporary file and fails.
func (b *Batch) removeStrays(path string) {
	dir, prefix := filepath.Dir(path), tempPrefix(filepath.Base(path))
	b.mu.Lock()
	names, listed := b.strays[dir]
	if !listed {
		entries, _ := os.ReadDir(dir) // a folder still to be created holds none
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), ".tmp-") {
				names = append(names, e.Name())
			}
		}
		b.strays[dir] = names
	}
	b.mu.Unlock()
	for _, name := range names {
		if isTempOf(name, prefix) {
			_ = os.Remove(filepath.Join(dir, name))
		}
	}
}

// flusherFor makes sure path's file system has a flusher, opened before anything is written
// there (syncfs reports the write errors that happened since its file was opened), and reports
// whether it has one.
func (b *Batch) flusherFor(path string) bool {
	dir := nearestFolder(path)
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.devOf[dir]; ok {
		return true
	}
	dev, f, ok := openFlusher(dir)
	if !ok {
		return false
	}
	if _, seen := b.flushers[dev]; seen {
		f.Close()
	} else {
		b.flushers[dev] = f
	}
	b.devOf[dir] = dev
	return true
}

// nearestFolder is the closest folder above path that exists: where Restore will write, or
// the folder its missing ones will be created in, on the same file system.
func nearestFolder(path string) string {
	dir := path
	for {
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return dir
		}
	}
}

// Changed adds a folder whose entries the caller changed (it removed a file) to those Commit
// syncs.
func (b *Batch) Changed(dir string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.folders[dir] = true
}

// renamers is how many renames a commit has in flight. A rename can wait on the disk (freeing
// the blocks of the file it replaces) or, on a busy machine, for a core to come back to it;
// those waits overlap.
const renamers = 8

// Commit makes the staged contents durable, renames each over its path, and syncs the folders.
// It returns the paths it replaced, durably. On an error before the renames, none is replaced
// and the temporary files are gone; a failed rename leaves its path as it was and its
// temporary file gone, and is returned with the paths the other renames replaced; when syncing
// a folder fails, no path is returned, since none is known to be durable.
func (b *Batch) Commit() ([]string, error) {
	defer b.closeFlushers()
	for _, f := range b.flushers {
		if err := flushFS(f); err != nil {
			b.Abort()
			return nil, fmt.Errorf("flushing %s's file system: %w", f.Name(), err)
		}
	}
	staged := b.staged
	b.staged = nil
	errs := make([]error, len(staged))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(renamers, len(staged)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(staged); i = int(next.Add(1)) - 1 {
				if errs[i] = os.Rename(staged[i].tmp, staged[i].path); errs[i] != nil && !staged[i].moved {
					_ = os.Remove(staged[i].tmp)
				}
			}
		})
	}
	wg.Wait()
	var replaced []string
	for i, s := range staged {
		if errs[i] == nil {
			replaced = append(replaced, s.path)
		}
	}
	for dir := range b.folders {
		// A folder the caller emptied and removed has no entries left to make durable.
		if err := SyncDir(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("syncing %s: %w", dir, err)
		}
	}
	return replaced, errors.Join(errs...)
}

// Abort removes the staged temporary files: no path changes, and the files given to Move stay
// where they are.
func (b *Batch) Abort() {
	b.mu.Lock()
	defer b.mu.Unlock()
	removeTemps(b.staged)
	b.staged = nil
	b.closeFlushersLocked()
}

func (b *Batch) closeFlushers() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closeFlushersLocked()
}

func (b *Batch) closeFlushersLocked() {
	for dev, f := range b.flushers {
		f.Close()
		delete(b.flushers, dev)
	}
	clear(b.devOf)
}

func removeTemps(staged []stagedFile) {
	for _, s := range staged {
		if !s.moved {
			_ = os.Remove(s.tmp)
		}
	}
}
