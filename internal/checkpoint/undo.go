package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

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
	files, err := c.undoFiles(ctx, []string{filepath.Clean(path)}, force)
	if err != nil {
		return UndoResult{}, err
	}
	return files[0].res, files[0].refusal
}

// UndoAll undoes every change of the run still waiting. A file in conflict is left alone and
// reported in its result; the others are undone all the same, together (see undoFiles).
func (c *Checkpoint) UndoAll(ctx context.Context) ([]UndoResult, error) {
	snaps, err := c.db.Snapshots(ctx, c.id)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, s := range snaps {
		if Status(s.Status) == Pending {
			paths = append(paths, s.Path)
		}
	}
	out := []UndoResult{}
	if len(paths) == 0 {
		return out, nil
	}
	files, err := c.undoFiles(ctx, paths, false)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		// A file kept or undone since the list was read is settled, not refused.
		if f.refusal == nil || errors.Is(f.refusal, ErrConflict) {
			out = append(out, f.res)
		}
	}
	return out, nil
}

// fileUndo is one file's part in an undo.
type fileUndo struct {
	res     UndoResult
	refusal error // why the file is left as it is: a *Conflict, ErrAlreadyKept, …
	action  undoAction
	mode    fs.FileMode // for chmodBack
}

type undoAction int

const (
	leaveAlone  undoAction = iota // refused
	markOnly                      // already as before the run; only its status is left to set
	chmodBack                     // already as before but for its mode
	removeFile                    // the run created it
	restoreFile                   // staged in the batch
)

// undoFiles undoes paths together, each under its file's lock for the whole time: it decides
// what to do with each file and stages the contents to restore on every core, then removes the
// files the run created, makes everything durable at once (fsutil.Batch), and only then marks
// the files undone, in one transaction. A crash before the marks leaves files restored but
// still pending: the next undo finds them as they were before the run and only marks them.
//
// Refusals are per file; an error means the machine failed, and no file was marked undone.
func (c *Checkpoint) undoFiles(ctx context.Context, paths []string, force bool) ([]fileUndo, error) {
	defer lockFiles(paths)()
	// Read under the locks, so that no keep or undo in this process slips in between.
	snaps, err := c.db.Snapshots(ctx, c.id)
	if err != nil {
		return nil, err
	}
	byPath := make(map[string]store.FileSnapshot, len(snaps))
	for _, s := range snaps {
		byPath[s.Path] = s
	}
	batch := fsutil.NewBatch(len(paths))
	files := make([]fileUndo, len(paths))
	err = onEveryCore(len(paths), func(i int) error {
		s, ok := byPath[paths[i]]
		if !ok {
			files[i].refusal = fmt.Errorf("%s: %w", paths[i], ErrNotTracked)
			return nil
		}
		f, err := c.planUndo(ctx, s, force, batch)
		files[i] = f
		return err
	})
	if err != nil {
		batch.Abort()
		return nil, err
	}

	created := createdDirs(snaps)
	for i, f := range files {
		var err error
		switch f.action {
		case removeFile:
			var dir string
			if dir, err = removeCreated(paths[i], created); err == nil {
				batch.Changed(dir)
			}
		case chmodBack:
			err = fsutil.Chmod(paths[i], f.mode)
		}
		if err != nil {
			batch.Abort()
			return nil, fmt.Errorf("undoing %s: %w", paths[i], err)
		}
	}
	if _, err := batch.Commit(); err != nil {
		if len(paths) == 1 {
			return nil, fmt.Errorf("undoing %s: %w", paths[0], err)
		}
		return nil, fmt.Errorf("undoing %d files: %w", len(paths), err)
	}

	var undone []string
	for i, f := range files {
		if f.action != leaveAlone {
			undone = append(undone, paths[i])
		}
	}
	missed, err := c.db.SetSnapshotStatuses(ctx, c.id, undone, string(Pending), string(Undone))
	if err != nil {
		return nil, err
	}
	if len(missed) > 0 {
		return nil, fmt.Errorf("marking %s undone: it is no longer pending (another Gantry on the same data?)", missed[0])
	}
	c.unstash(undone...)
	return files, nil
}

// planUndo decides what undoing s's file takes, and stages the content to restore in batch.
func (c *Checkpoint) planUndo(ctx context.Context, s store.FileSnapshot, force bool, batch *fsutil.Batch) (fileUndo, error) {
	switch Status(s.Status) {
	case Kept:
		return fileUndo{refusal: fmt.Errorf("undoing %s: %w", s.Path, ErrAlreadyKept)}, nil
	case Undone:
		return fileUndo{refusal: fmt.Errorf("undoing %s: %w", s.Path, ErrAlreadyUndone)}, nil
	}
	now, err := readState(s.Path)
	if err != nil {
		return fileUndo{}, fmt.Errorf("reading %s: %w", s.Path, err)
	}
	f := fileUndo{res: UndoResult{Path: s.Path, Change: changeKind(s, now)}}
	switch {
	case now.is(s.PriorHash):
		// Already as before: the agent's write never happened, or an undo was cut off before it
		// could mark the file undone. Only the mode, or created folders, may be left to restore.
		f.res.Outcome, f.action = Unchanged, markOnly
		if s.PriorHash == "" {
			f.action = removeFile
		} else if now.mode != s.PriorMode {
			f.res.Outcome, f.action, f.mode = Restored, chmodBack, s.PriorMode
		}
	case !force && (!s.Recorded || !now.is(s.ResultHash)):
		conflict := &Conflict{
			Path: s.Path, AgentExists: s.Recorded && s.ResultHash != "", AgentHash: s.ResultHash, Unrecorded: !s.Recorded,
			DiskExists: now.exists, DiskHash: now.hash(),
		}
		f.res.Outcome, f.res.Conflict, f.refusal = Conflicted, conflict, conflict
	case s.PriorHash == "":
		f.res.Outcome, f.action = Removed, removeFile
	default:
		f.res.Outcome, f.action = Restored, restoreFile
		if stashed, ok := c.stashed(s); ok {
			// Back as a file written now, like one restored from the blob: with its old time,
			// make and its kind would take what was built from the agent's version as newer.
			now := time.Now()
			if err := os.Chtimes(stashed, now, now); err != nil {
				return fileUndo{}, fmt.Errorf("undoing %s: %w", s.Path, err)
			}
			if err := batch.Move(stashed, s.Path); err != nil {
				return fileUndo{}, fmt.Errorf("undoing %s: %w", s.Path, err)
			}
			return f, nil
		}
		data, err := c.db.GetBlob(ctx, s.PriorHash)
		if err != nil {
			return fileUndo{}, err
		}
		if err := batch.Restore(s.Path, data, s.PriorMode); err != nil {
			return fileUndo{}, fmt.Errorf("undoing %s: %w", s.Path, err)
		}
	}
	return f, nil
}

// onEveryCore runs fn(0) … fn(n-1) on as many goroutines as there are cores, and returns the
// first error; after one, the indexes not yet started are skipped.
func onEveryCore(n int, fn func(i int) error) error {
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				if err := fn(i); err != nil {
					once.Do(func() { firstErr = err })
					next.Store(int64(n))
					return
				}
			}
		})
	}
	wg.Wait()
	return firstErr
}
