package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"gantry/internal/store"
)

// The stash keeps the file a run is about to change alive under a second name, a hard link in
// the data folder, as long as the change waits for keep or undo. The edit tools replace a file
// with a new one (fsutil.WriteFile), so the stashed file stays exactly what it was, and undoing
// the change renames it back: no content is decompressed or written, and no new file has to be
// created (on some file systems creating a thousand files costs a second). The blob in the
// database stays the truth: a stashed file is used only when its content still hashes to the
// snapshot's and its mode matches; one changed in place (a command appending to it, an editor
// writing into it), missing, or on another file system than the data folder (no link is
// possible) is restored from the blob as before.

// stashDir is where the stashed files of a checkpoint are linked.
func (c *Checkpoint) stashDir() string {
	return filepath.Join(stashRoot(c.db), strconv.FormatInt(c.id, 10))
}

func stashRoot(db *store.DB) string { return filepath.Join(filepath.Dir(db.Path()), "stash") }

// stashPath is the name path's prior file has in the stash: its path hashed, so that no
// name in the workspace shapes a name in the data folder.
func (c *Checkpoint) stashPath(path string) string {
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(c.stashDir(), hex.EncodeToString(sum[:16]))
}

// stash links path's current file into the stash, replacing an older link of the same path.
// Failing is fine (another file system, a read-only data folder): undo then uses the blob.
func (c *Checkpoint) stash(path string) {
	link := c.stashPath(path)
	_ = os.Remove(link)
	if err := os.Link(path, link); errors.Is(err, fs.ErrNotExist) {
		if os.MkdirAll(c.stashDir(), 0o700) == nil {
			_ = os.Link(path, link)
		}
	}
}

// stashed returns the stashed file of s when it is still exactly s's prior state.
func (c *Checkpoint) stashed(s store.FileSnapshot) (string, bool) {
	link := c.stashPath(s.Path)
	st, err := readState(link)
	if err != nil || !st.regular || st.mode != s.PriorMode || !st.is(s.PriorHash) {
		return "", false
	}
	return link, true
}

// unstash drops the stashed files of paths, whose changes are settled.
func (c *Checkpoint) unstash(paths ...string) {
	for _, p := range paths {
		_ = os.Remove(c.stashPath(p))
	}
	_ = os.Remove(c.stashDir()) // once empty
}

// SweepStash removes what the stash holds for changes no longer waiting: kept, undone, or of a
// deleted session. Those are left behind by a crash, or by an undo or keep whose clean-up
// failed, and would hold on to the disk space of old versions.
func SweepStash(ctx context.Context, db *store.DB) error {
	root := stashRoot(db)
	dirs, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, d := range dirs {
		id, err := strconv.ParseInt(d.Name(), 10, 64)
		if err != nil {
			continue // not the stash's
		}
		c := &Checkpoint{db: db, id: id}
		// Links first: a link is made after its snapshot is stored, so any link listed here
		// has its snapshot in what is read next, and one made meanwhile is not touched.
		links, err := os.ReadDir(c.stashDir())
		if err != nil {
			continue
		}
		snaps, err := db.Snapshots(ctx, id)
		if err != nil {
			return err
		}
		waiting := map[string]bool{}
		for _, s := range snaps {
			if Status(s.Status) == Pending {
				waiting[filepath.Base(c.stashPath(s.Path))] = true
			}
		}
		for _, l := range links {
			if !waiting[l.Name()] {
				_ = os.Remove(filepath.Join(c.stashDir(), l.Name()))
			}
		}
		_ = os.Remove(c.stashDir())
	}
	return nil
}
