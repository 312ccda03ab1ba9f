package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"unicode/utf8"

	"gantry/internal/diff"
	"gantry/internal/store"
)

// Status is where a file's change stands.
type Status string

const (
	Pending Status = store.SnapshotPending // waiting for keep or undo
	Kept    Status = store.SnapshotKept
	Undone  Status = store.SnapshotUndone
)

// ChangeKind is what the run did to a file.
type ChangeKind string

const (
	Created  ChangeKind = "created"
	Modified ChangeKind = "modified"
	Deleted  ChangeKind = "deleted"
)

// FileChange is one file of a checkpoint, for the review panel.
type FileChange struct {
	Path   string     `json:"path"`
	Status Status     `json:"status"`
	Change ChangeKind `json:"change"`
	// Added and Removed count the lines between the file before the run and the file on disk
	// now, so they follow the person's own edits too; zero when Binary.
	Added   int  `json:"added"`
	Removed int  `json:"removed"`
	Binary  bool `json:"binary,omitempty"`
	// Conflict: the file is no longer what the agent left, so Undo would refuse. Missing and
	// Unrecorded say why, so the panel can word it before any Undo: the file is gone from disk
	// now, or the agent's write to it was never recorded (the app stopped first).
	Conflict   bool `json:"conflict,omitempty"`
	Missing    bool `json:"missing,omitempty"`
	Unrecorded bool `json:"unrecorded,omitempty"`
	// LaterRun: a later run of the session changed the file from what this one left.
	LaterRun bool `json:"laterRun,omitempty"`
}

// Files lists the files the run changed, in the order it first changed them. A file the run
// meant to change but never did (the write failed, or the app stopped before it) is left out.
func (c *Checkpoint) Files(ctx context.Context) ([]FileChange, error) {
	snaps, err := c.db.Snapshots(ctx, c.id)
	if err != nil {
		return nil, err
	}
	out := []FileChange{}
	for _, s := range snaps {
		st, err := readState(s.Path)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", s.Path, err)
		}
		if !s.Recorded && st.is(s.PriorHash) {
			continue
		}
		fc := FileChange{Path: s.Path, Status: Status(s.Status), Change: changeKind(s, st)}
		fc.Conflict = fc.Status == Pending && (!s.Recorded || !st.is(s.ResultHash))
		if fc.Conflict {
			fc.Missing, fc.Unrecorded = !st.exists, !s.Recorded
			if s.Recorded {
				if fc.LaterRun, err = c.db.ChangedLater(ctx, c.session, c.id, s.Path, s.ResultHash); err != nil {
					return nil, err
				}
			}
		}
		var before []byte
		if s.PriorHash != "" {
			if before, err = c.db.GetBlob(ctx, s.PriorHash); err != nil {
				return nil, err
			}
		}
		if isText(before) && isText(st.data) {
			stats := diff.Compute(string(before), string(st.data))
			fc.Added, fc.Removed = stats.Added, stats.Removed
		} else {
			fc.Binary = true
		}
		out = append(out, fc)
	}
	return out, nil
}

func changeKind(s store.FileSnapshot, now *fileState) ChangeKind {
	switch {
	case s.PriorHash == "":
		return Created
	case s.Recorded && s.ResultHash == "", !s.Recorded && !now.exists:
		return Deleted
	default:
		return Modified
	}
}

// isText reports whether data can be shown as lines: valid UTF-8 without NUL bytes.
func isText(data []byte) bool {
	return bytes.IndexByte(data, 0) < 0 && utf8.Valid(data)
}

// Before returns path as it was before the run changed it, and whether it existed.
func (c *Checkpoint) Before(ctx context.Context, path string) ([]byte, bool, error) {
	s, err := c.snapshot(ctx, filepath.Clean(path))
	if err != nil || s.PriorHash == "" {
		return nil, false, err
	}
	data, err := c.db.GetBlob(ctx, s.PriorHash)
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}

// Keep accepts the run's change to path: it can no longer be undone. Keeping twice is fine.
func (c *Checkpoint) Keep(ctx context.Context, path string) error {
	path = filepath.Clean(path)
	defer lockFile(path)()
	s, err := c.snapshot(ctx, path)
	if err != nil {
		return err
	}
	switch Status(s.Status) {
	case Kept:
		return nil
	case Undone:
		return fmt.Errorf("keeping %s: %w", path, ErrAlreadyUndone)
	}
	if err := c.setStatus(ctx, path, Pending, Kept); err != nil {
		return err
	}
	c.unstash(path)
	return nil
}

// KeepAll keeps every change of the run still waiting.
func (c *Checkpoint) KeepAll(ctx context.Context) error {
	snaps, err := c.db.Snapshots(ctx, c.id)
	if err != nil {
		return err
	}
	for _, s := range snaps {
		if Status(s.Status) != Pending {
			continue
		}
		// One at a time, under each file's lock, so that none is kept halfway through its undo.
		if err := c.Keep(ctx, s.Path); err != nil && !errors.Is(err, ErrAlreadyUndone) {
			return err
		}
	}
	return nil
}

// setStatus moves path's change on; under the file's lock only another process could have moved
// it first.
func (c *Checkpoint) setStatus(ctx context.Context, path string, from, to Status) error {
	ok, err := c.db.SetSnapshotStatus(ctx, c.id, path, string(from), string(to))
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("marking %s %s: it is no longer %s (another Gantry on the same data?)", path, to, from)
	}
	return nil
}

// RelativePath turns one of the checkpoint's absolute paths into a workspace-relative slash path,
// as the UI names files; ok is false when it lies in neither the workspace nor its real path.
func RelativePath(workspace, path string) (string, bool) {
	roots := []string{filepath.Clean(workspace)}
	if real, err := filepath.EvalSymlinks(workspace); err == nil {
		roots = append(roots, real)
	}
	for _, root := range roots {
		if rel, ok := within(root, path); ok {
			return filepath.ToSlash(rel), true
		}
	}
	return path, false
}

// Relative is RelativePath over a list, in place.
func Relative(workspace string, files []FileChange) []FileChange {
	for i, f := range files {
		files[i].Path, _ = RelativePath(workspace, f.Path)
	}
	return files
}
