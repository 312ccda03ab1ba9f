// Package checkpoint makes every file change of a run keep-able or undo-able, one file at a time
// or all at once, also after the app restarts: before a run first changes a file, the file's
// prior state goes into SQLite (its content as a deduplicated blob and its mode, or "did not
// exist"); after the agent writes, the hash of what it wrote, so an undo can tell whether someone
// changed the file since and ask instead of throwing their edit away.
//
// Operations on one file are serialised within the process, not across processes, which is one
// reason the database is opened once per process (store.Open; the app does so).
package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"gantry/internal/store"
)

var (
	// ErrConflict is what a *Conflict is: the file is no longer what the agent left.
	ErrConflict = errors.New("the file changed after the agent wrote it")
	// ErrAlreadyKept refuses to undo a change the person kept.
	ErrAlreadyKept = errors.New("the change was kept")
	// ErrAlreadyUndone refuses to keep or undo again a change already undone.
	ErrAlreadyUndone = errors.New("the change was already undone")
	// ErrNotTracked means the run did not change the file.
	ErrNotTracked = errors.New("the file was not changed in this run")
	// ErrClosed refuses snapshots once the checkpoint's run has ended.
	ErrClosed = store.ErrCheckpointClosed
)

// Manager starts the checkpoints of one session, one per run.
type Manager struct {
	db        *store.DB
	sessionID string

	mu      sync.Mutex
	current *Checkpoint // of the run Begin started last
}

// New returns the manager of a session.
func New(db *store.DB, sessionID string) *Manager {
	return &Manager{db: db, sessionID: sessionID}
}

// Begin starts the checkpoint of a run. The session's previous checkpoint, if still open, is
// closed: its run is over.
func (m *Manager) Begin(ctx context.Context, runID string) (*Checkpoint, error) {
	session, err := m.db.GetSession(ctx, m.sessionID)
	if err != nil {
		return nil, err
	}
	rec, err := m.db.CreateCheckpoint(ctx, m.sessionID, runID)
	if err != nil {
		return nil, err
	}
	c := newCheckpoint(m.db, rec, session.WorkspacePath)
	m.mu.Lock()
	m.current = c
	m.mu.Unlock()
	return c, nil
}

func (m *Manager) currentCheckpoint() *Checkpoint {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.current
}

// Open returns the checkpoint of an earlier run, for instance after the app restarted.
func Open(ctx context.Context, db *store.DB, runID string) (*Checkpoint, error) {
	rec, err := db.CheckpointByRun(ctx, runID)
	if err != nil {
		return nil, err
	}
	session, err := db.GetSession(ctx, rec.SessionID)
	if err != nil {
		return nil, err
	}
	return newCheckpoint(db, rec, session.WorkspacePath), nil
}

// Checkpoint holds the files one run changed. Paths are absolute, as the tools resolve them.
type Checkpoint struct {
	db      *store.DB
	id      int64
	session string
	roots   []string // the workspace, and the same with links resolved when that differs
}

func newCheckpoint(db *store.DB, rec store.Checkpoint, workspace string) *Checkpoint {
	root := filepath.Clean(workspace)
	roots := []string{root}
	// The tools resolve links before they write, so a workspace reached through a link (macOS's
	// /tmp, a symlinked home) shows up under its real path.
	if real, err := filepath.EvalSymlinks(root); err == nil && real != root {
		roots = append(roots, real)
	}
	return &Checkpoint{db: db, id: rec.ID, session: rec.SessionID, roots: roots}
}

// Close marks the end of the run: no more snapshots. Keep and undo still work.
func (c *Checkpoint) Close(ctx context.Context) error {
	return c.db.CloseCheckpoint(ctx, c.id)
}

// rootOf returns the workspace root path lies in, refusing paths outside it and anything in a
// .git folder: Gantry never writes the user's repository data, not even to restore it.
func (c *Checkpoint) rootOf(path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("%s is not an absolute path", path)
	}
	for _, root := range c.roots {
		rel, ok := within(root, path)
		if !ok {
			continue
		}
		if slices.Contains(strings.Split(rel, string(filepath.Separator)), ".git") {
			return "", fmt.Errorf("%s is inside a .git folder, which Gantry never changes", path)
		}
		return root, nil
	}
	return "", fmt.Errorf("%s is outside the workspace %s", path, c.roots[0])
}

// within returns path relative to root if it is below root.
func within(root, path string) (string, bool) {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// snapshot returns path's snapshot, ErrNotTracked when there is none.
func (c *Checkpoint) snapshot(ctx context.Context, path string) (store.FileSnapshot, error) {
	s, err := c.db.Snapshot(ctx, c.id, path)
	if errors.Is(err, store.ErrNotFound) {
		return s, fmt.Errorf("%s: %w", path, ErrNotTracked)
	}
	return s, err
}
