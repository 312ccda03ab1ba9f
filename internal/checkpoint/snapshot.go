package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"gantry/internal/store"
)

// SnapshotBeforeEdit stores path as it is, before the run changes it: content and mode, or that
// it does not exist and which of its folders do not either. Only the first call for a file in a
// run stores anything, so undo goes back to before the run, not before its last edit.
func (c *Checkpoint) SnapshotBeforeEdit(ctx context.Context, path string) error {
	path = filepath.Clean(path)
	root, err := c.rootOf(path)
	if err != nil {
		return err
	}
	defer lockFile(path)()
	// Looking first spares reading and hashing a file the run edits again and again.
	s, err := c.db.Snapshot(ctx, c.id, path)
	switch {
	case err == nil && s.Status == store.SnapshotPending:
		return nil
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return err
	}
	st, err := readState(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if st.exists && !st.regular {
		return fmt.Errorf("%s is not a regular file, so its change could not be undone", path)
	}
	prior := store.Prior{Exists: st.exists, Data: st.data, Mode: st.mode}
	if !st.exists {
		prior.CreatedDirs = missingDirs(root, path)
	}
	if _, err = c.db.AddSnapshot(ctx, c.id, path, prior); err != nil {
		return err
	}
	if st.exists {
		c.stash(path)
	}
	return nil
}

// missingDirs lists the folders between root and path that do not exist, deepest first: the
// ones writing path will create, and undoing it should remove again.
func missingDirs(root, path string) []string {
	var dirs []string
	for dir := filepath.Dir(path); dir != root && len(dir) > len(root); dir = filepath.Dir(dir) {
		if _, err := os.Lstat(dir); err == nil || !errors.Is(err, os.ErrNotExist) {
			break
		}
		dirs = append(dirs, dir)
	}
	return dirs
}

// RecordResult stores what the agent left at path after writing it: the hash of its content, or
// that it deleted the file.
func (c *Checkpoint) RecordResult(ctx context.Context, path string) error {
	path = filepath.Clean(path)
	if _, err := c.rootOf(path); err != nil {
		return err
	}
	defer lockFile(path)()
	st, err := readState(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if st.exists && !st.regular {
		return fmt.Errorf("%s is no longer a regular file", path)
	}
	err = c.db.RecordResult(ctx, c.id, path, st.hash())
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%s has no snapshot from before the change: %w", path, ErrNotTracked)
	}
	return err
}
