package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"gantry/internal/checkpoint"
	"gantry/internal/diff"
	"gantry/internal/store"
	"gantry/internal/tools"
)

// FileDiff is one changed file as the review panel shows it (mirrored in frontend/src/lib/types.ts):
// the file before the run against the file on disk now. Before and After are the whole texts,
// which the diff editor lays out itself; Hunks are the same change as lines.
type FileDiff struct {
	Path string `json:"path"`
	// Binary and TooLarge files get no texts and no hunks: the panel says so in a sentence.
	Binary   bool        `json:"binary"`
	TooLarge bool        `json:"tooLarge,omitempty"`
	Before   string      `json:"before"`
	After    string      `json:"after"`
	Hunks    []diff.Hunk `json:"hunks"`
}

// maxReviewDiffBytes bounds the texts one diff sends to the window: past it an editor would be
// slow to lay out and nobody reads the change line by line anyway.
const maxReviewDiffBytes = 2 << 20

// ReviewService lets the person keep or undo what a finished run changed, file by file. Every
// path it takes and returns is workspace-relative; only files the run's checkpoint holds can be
// touched, so a path from the UI can never reach anything else.
type ReviewService struct {
	db  *store.DB
	ctx context.Context
}

func newReviewService(db *store.DB) *ReviewService {
	return &ReviewService{db: db, ctx: context.Background()}
}

func (s *ReviewService) start(ctx context.Context) { s.ctx = ctx }

// ReviewFiles lists the files the run changed, with line counts and where each stands.
func (s *ReviewService) ReviewFiles(sessionID, runID string) ([]checkpoint.FileChange, error) {
	cp, sess, err := s.open(sessionID, runID)
	if err != nil {
		return nil, err
	}
	files, err := cp.Files(s.ctx)
	if err != nil {
		return nil, err
	}
	return checkpoint.Relative(sess.WorkspacePath, files), nil
}

// ReviewDiff is one file's change: before the run against the disk now.
func (s *ReviewService) ReviewDiff(sessionID, runID, path string) (FileDiff, error) {
	cp, abs, err := s.resolve(sessionID, runID, path)
	if err != nil {
		return FileDiff{}, err
	}
	before, _, err := cp.Before(s.ctx, abs)
	if err != nil {
		return FileDiff{}, err
	}
	after, err := os.ReadFile(abs)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return FileDiff{}, err
	}
	out := FileDiff{Path: path, Hunks: []diff.Hunk{}}
	switch {
	case diff.IsBinary(before) || diff.IsBinary(after):
		out.Binary = true
	case len(before)+len(after) > maxReviewDiffBytes:
		out.TooLarge = true
	default:
		out.Before, out.After = string(before), string(after)
		out.Hunks = diff.Hunks(out.Before, out.After, diff.DefaultContext)
	}
	return out, nil
}

// Keep accepts the run's change to one file; it can no longer be undone.
func (s *ReviewService) Keep(sessionID, runID, path string) error {
	cp, abs, err := s.resolve(sessionID, runID, path)
	if err != nil {
		return err
	}
	return cp.Keep(s.ctx, abs)
}

// KeepAll keeps every change of the run still waiting.
func (s *ReviewService) KeepAll(sessionID, runID string) error {
	cp, _, err := s.open(sessionID, runID)
	if err != nil {
		return err
	}
	return cp.KeepAll(s.ctx)
}

// Undo restores one file as it was before the run. A file changed since the agent wrote it is
// left alone and comes back as a result with outcome "conflicted" and its Conflict, not as an
// error, so the UI can offer ForceUndo.
func (s *ReviewService) Undo(sessionID, runID, path string) (checkpoint.UndoResult, error) {
	return s.undo(sessionID, runID, path, false)
}

// ForceUndo is Undo even over a change made after the agent's write: that change is lost.
func (s *ReviewService) ForceUndo(sessionID, runID, path string) (checkpoint.UndoResult, error) {
	return s.undo(sessionID, runID, path, true)
}

func (s *ReviewService) undo(sessionID, runID, path string, force bool) (checkpoint.UndoResult, error) {
	cp, abs, err := s.resolve(sessionID, runID, path)
	if err != nil {
		return checkpoint.UndoResult{}, err
	}
	undo := cp.Undo
	if force {
		undo = cp.ForceUndo
	}
	res, err := undo(s.ctx, abs)
	if err != nil && !errors.Is(err, checkpoint.ErrConflict) {
		return checkpoint.UndoResult{}, err
	}
	res.Path = path
	if res.Conflict != nil {
		res.Conflict.Path = path
	}
	return res, nil
}

// UndoAll undoes every change still waiting; files in conflict are left alone and reported.
func (s *ReviewService) UndoAll(sessionID, runID string) ([]checkpoint.UndoResult, error) {
	cp, sess, err := s.open(sessionID, runID)
	if err != nil {
		return nil, err
	}
	results, err := cp.UndoAll(s.ctx)
	for i := range results {
		results[i].Path, _ = checkpoint.RelativePath(sess.WorkspacePath, results[i].Path)
		if c := results[i].Conflict; c != nil {
			c.Path = results[i].Path
		}
	}
	return results, err
}

// open returns the run's checkpoint, refusing a run of another session: the UI names both, and a
// mismatch means it is confused about what it shows.
func (s *ReviewService) open(sessionID, runID string) (*checkpoint.Checkpoint, store.Session, error) {
	rec, err := s.db.CheckpointByRun(s.ctx, runID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, store.Session{}, fmt.Errorf("run %s changed no files", runID)
	}
	if err != nil {
		return nil, store.Session{}, err
	}
	if rec.SessionID != sessionID {
		return nil, store.Session{}, fmt.Errorf("run %s is not part of session %s", runID, sessionID)
	}
	sess, err := s.db.GetSession(s.ctx, sessionID)
	if err != nil {
		return nil, store.Session{}, err
	}
	cp, err := checkpoint.Open(s.ctx, s.db, runID)
	return cp, sess, err
}

// resolve turns a workspace-relative path from the UI into the checkpoint's own absolute path
// for it. The path must pass the tools' workspace check and name a file the run changed.
func (s *ReviewService) resolve(sessionID, runID, path string) (*checkpoint.Checkpoint, string, error) {
	cp, sess, err := s.open(sessionID, runID)
	if err != nil {
		return nil, "", err
	}
	resolved, err := tools.ResolveWorkspacePath(sess.WorkspacePath, path)
	if err != nil {
		return nil, "", err
	}
	want, _ := checkpoint.RelativePath(sess.WorkspacePath, resolved)
	files, err := cp.Files(s.ctx)
	if err != nil {
		return nil, "", err
	}
	for _, f := range files {
		if rel, ok := checkpoint.RelativePath(sess.WorkspacePath, f.Path); ok && rel == want {
			return cp, f.Path, nil
		}
	}
	return nil, "", fmt.Errorf("%s was not changed by this run", filepath.ToSlash(path))
}
