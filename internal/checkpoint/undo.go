package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"gantry/internal/fsutil"
	"gantry/internal/store"
)

// Outcome is what an undo did to a file.
type Outcome string

const (
	Restored   Outcome = "restored"   // the content and mode from before the run are back
	Removed    Outcome = "removed"    // the file the run created is gone, with the folders it created
	Unchanged  Outcome = "unchanged"  // the file was already as before the run
	Conflicted Outcome = "conflicted" // left alone: it changed after the agent wrote it
)

// UndoResult is one file's undo.
type UndoResult struct {
	Path     string     `json:"path"`
	Change   ChangeKind `json:"change"`
	Outcome  Outcome    `json:"outcome"`
	Conflict *Conflict  `json:"conflict,omitempty"` // set when Outcome is Conflicted
}

// Conflict is why a file was not undone: it is no longer what the agent left, so restoring it
// would throw away a change someone else made. It describes both sides.
type Conflict struct {
	Path string `json:"path"`
	// AgentExists is false when the agent deleted the file. AgentHash is the sha256 of what the
	// agent wrote, "" when it deleted the file or Unrecorded.
	AgentExists bool   `json:"agentExists"`
	AgentHash   string `json:"agentHash"`
	// Unrecorded: the app stopped between the agent's write and recording it, so the file differs
	// from before but nothing says whether the agent or someone else changed it.
	Unrecorded bool `json:"unrecorded,omitempty"`
	// DiskHash is the sha256 of the file now; "" when DiskExists is false, or when what is there
	// is not a regular file.
	DiskExists bool   `json:"diskExists"`
	DiskHash   string `json:"diskHash"`
}

func (c *Conflict) Error() string { return "not undone: " + c.Describe(c.Path) }

// Is makes errors.Is(err, ErrConflict) hold for a *Conflict.
func (c *Conflict) Is(target error) bool { return target == ErrConflict }

// Describe says what happened to the file, for the person, naming it name.
func (c *Conflict) Describe(name string) string {
	switch {
	case c.Unrecorded:
		return fmt.Sprintf("%s has changed, and the agent's change to it was never recorded, so the change may be yours", name)
	case !c.DiskExists:
		return fmt.Sprintf("you deleted %s after the agent wrote it", name)
	case !c.AgentExists:
		return fmt.Sprintf("you created %s again after the agent deleted it", name)
	default:
		return fmt.Sprintf("you changed %s after the agent wrote it", name)
	}
}

// Undo restores path as it was before the run: exact bytes and mode, written atomically, or the
// file deleted when the run created it, with the folders it created if they are now empty. It
// refuses with a *Conflict when the file is no longer what the agent left, with ErrAlreadyKept
// after Keep.
func (c *Checkpoint) Undo(ctx context.Context, path string) (UndoResult, error) {
	return c.undoFile(ctx, path, false)
}

// ForceUndo is Undo even when the file changed after the agent wrote it: that change is lost.
func (c *Checkpoint) ForceUndo(ctx context.Context, path string) (UndoResult, error) {
	return c.undoFile(ctx, path, true)
}

func (c *Checkpoint) undoFile(ctx context.Context, path string, force bool) (UndoResult, error) {
	snaps, err := c.db.Snapshots(ctx, c.id)
	if err != nil {
		return UndoResult{}, err
	}
	return c.undo(ctx, filepath.Clean(path), createdDirs(snaps), force)
}

// UndoAll undoes every change of the run still waiting. A file in conflict is left alone and
// reported in its result; the others are undone all the same.
func (c *Checkpoint) UndoAll(ctx context.Context) ([]UndoResult, error) {
	snaps, err := c.db.Snapshots(ctx, c.id)
	if err != nil {
		return nil, err
	}
	created := createdDirs(snaps)
	out := []UndoResult{}
	for _, s := range snaps {
		if Status(s.Status) != Pending {
			continue
		}
		res, err := c.undo(ctx, s.Path, created, false)
		switch {
		case errors.Is(err, ErrConflict):
		case errors.Is(err, ErrAlreadyKept), errors.Is(err, ErrAlreadyUndone):
			continue // settled since the list was read
		case err != nil:
			return out, err
		}
		out = append(out, res)
	}
	return out, nil
}

func (c *Checkpoint) undo(ctx context.Context, path string, created map[string]bool, force bool) (UndoResult, error) {
	defer lockFile(path)()
	s, err := c.snapshot(ctx, path)
	if err != nil {
		return UndoResult{}, err
	}
	switch Status(s.Status) {
	case Kept:
		return UndoResult{}, fmt.Errorf("undoing %s: %w", path, ErrAlreadyKept)
	case Undone:
		return UndoResult{}, fmt.Errorf("undoing %s: %w", path, ErrAlreadyUndone)
	}
	now, err := readState(path)
	if err != nil {
		return UndoResult{}, fmt.Errorf("reading %s: %w", path, err)
	}
	res := UndoResult{Path: path, Change: changeKind(s, now)}
	switch {
	case now.is(s.PriorHash):
		// Already as before: the agent's write never happened, or an undo was cut off before it
		// could mark the file undone. Only the mode, or created folders, may be left to restore.
		res.Outcome = Unchanged
		if s.PriorHash == "" {
			err = removeCreated(path, created)
		} else if now.mode != s.PriorMode {
			res.Outcome = Restored
			err = os.Chmod(path, s.PriorMode)
		}
	case !force && (!s.Recorded || !now.is(s.ResultHash)):
		conflict := &Conflict{
			Path: path, AgentExists: s.Recorded && s.ResultHash != "", AgentHash: s.ResultHash, Unrecorded: !s.Recorded,
			DiskExists: now.exists, DiskHash: now.hash(),
		}
		res.Outcome, res.Conflict = Conflicted, conflict
		return res, conflict
	case s.PriorHash == "":
		res.Outcome = Removed
		err = removeCreated(path, created)
	default:
		res.Outcome = Restored
		err = c.restore(ctx, s)
	}
	if err != nil {
		return UndoResult{}, fmt.Errorf("undoing %s: %w", path, err)
	}
	if err := c.setStatus(ctx, path, Pending, Undone); err != nil {
		return UndoResult{}, err
	}
	return res, nil
}

func (c *Checkpoint) restore(ctx context.Context, s store.FileSnapshot) error {
	data, err := c.db.GetBlob(ctx, s.PriorHash)
	if err != nil {
		return err
	}
	return fsutil.RestoreFile(s.Path, data, s.PriorMode)
}
