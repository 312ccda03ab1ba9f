package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"
)

// ErrCheckpointClosed means the run of the checkpoint has ended, so it takes no more snapshots.
var ErrCheckpointClosed = errors.New("checkpoint is closed: its run has ended")

// Checkpoint statuses (checkpoints.status).
const (
	CheckpointOpen   = "open"
	CheckpointClosed = "closed"
)

// Snapshot statuses (file_snapshots.status).
const (
	SnapshotPending = "pending" // the change waits for keep or undo
	SnapshotKept    = "kept"
	SnapshotUndone  = "undone"
)

// Checkpoint records the files one run changed.
type Checkpoint struct {
	ID        int64
	SessionID string
	RunID     string
	Status    string
	CreatedAt time.Time
}

// CreateCheckpoint starts the checkpoint of a run. A session runs one run at a time, so any
// checkpoint of the session still open (its run was cut short by a crash) is closed.
func (db *DB) CreateCheckpoint(ctx context.Context, sessionID, runID string) (Checkpoint, error) {
	c := Checkpoint{SessionID: sessionID, RunID: runID, Status: CheckpointOpen, CreatedAt: time.UnixMilli(db.now().UnixMilli())}
	err := db.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE checkpoints SET status = ? WHERE session_id = ? AND status = ?`,
			CheckpointClosed, sessionID, CheckpointOpen); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `
			INSERT INTO checkpoints (session_id, run_id, status, created_at) VALUES (?, ?, ?, ?) RETURNING id`,
			sessionID, runID, CheckpointOpen, c.CreatedAt.UnixMilli()).Scan(&c.ID)
	})
	if err != nil {
		return Checkpoint{}, fmt.Errorf("creating checkpoint for run %s: %w", runID, err)
	}
	return c, nil
}

// CheckpointByRun returns the checkpoint of a run, or an error wrapping ErrNotFound.
func (db *DB) CheckpointByRun(ctx context.Context, runID string) (Checkpoint, error) {
	c := Checkpoint{RunID: runID}
	var created int64
	err := db.sql.QueryRowContext(ctx, `SELECT id, session_id, status, created_at FROM checkpoints WHERE run_id = ?`, runID).
		Scan(&c.ID, &c.SessionID, &c.Status, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return Checkpoint{}, fmt.Errorf("checkpoint of run %s: %w", runID, ErrNotFound)
	}
	if err != nil {
		return Checkpoint{}, fmt.Errorf("reading checkpoint of run %s: %w", runID, err)
	}
	c.CreatedAt = time.UnixMilli(created)
	return c, nil
}

// CloseCheckpoint marks that the checkpoint's run has ended.
func (db *DB) CloseCheckpoint(ctx context.Context, id int64) error {
	if _, err := db.sql.ExecContext(ctx, `UPDATE checkpoints SET status = ? WHERE id = ?`, CheckpointClosed, id); err != nil {
		return fmt.Errorf("closing checkpoint: %w", err)
	}
	return nil
}

// FileSnapshot is one file a run changed.
type FileSnapshot struct {
	CheckpointID int64
	Path         string      // absolute
	PriorHash    string      // blob of the content before the run changed it; "" when the file did not exist
	PriorMode    fs.FileMode // permission bits before
	CreatedDirs  []string    // folders that did not exist before, deepest first
	Recorded     bool        // the agent's result has been recorded
	ResultHash   string      // hash of what the agent left; "" when it deleted the file or nothing is recorded
	Status       string
}

// Prior is a file as it was before a run first changed it.
type Prior struct {
	Exists      bool
	Data        []byte
	Mode        fs.FileMode
	CreatedDirs []string // folders that the change will have to create, deepest first
}

// AddSnapshot records path's prior state in an open checkpoint, content and row together. The
// first snapshot of a file in a run wins: it returns false, changing nothing, when path already
// has a pending one. A kept or undone one is replaced, since the file as it is now is the
// state a new change would be undone to.
func (db *DB) AddSnapshot(ctx context.Context, checkpointID int64, path string, p Prior) (bool, error) {
	var blob *pendingBlob
	var priorHash any
	if p.Exists {
		var err error
		if blob, err = db.prepareBlob(ctx, p.Data); err != nil {
			return false, err
		}
		priorHash = blob.hash
	}
	dirs, err := json.Marshal(nonNil(p.CreatedDirs))
	if err != nil {
		return false, fmt.Errorf("encoding created folders: %w", err)
	}
	var added bool
	err = db.write(ctx, func(tx *sql.Tx) error {
		var status string
		err := tx.QueryRowContext(ctx, `SELECT status FROM checkpoints WHERE id = ?`, checkpointID).Scan(&status)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("checkpoint %d: %w", checkpointID, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if status != CheckpointOpen {
			return ErrCheckpointClosed
		}
		if blob != nil {
			if err := blob.insert(ctx, tx); err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, `
			INSERT INTO file_snapshots (checkpoint_id, path, prior_hash, prior_mode, created_dirs, created_at)
			VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (checkpoint_id, path) DO UPDATE SET
				prior_hash = excluded.prior_hash, prior_mode = excluded.prior_mode,
				created_dirs = excluded.created_dirs, created_at = excluded.created_at,
				recorded = 0, result_hash = NULL, status = ?
			WHERE file_snapshots.status <> ?`,
			checkpointID, path, priorHash, uint32(p.Mode), string(dirs), db.now().UnixMilli(),
			SnapshotPending, SnapshotPending)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		added = n > 0
		return err
	})
	if err != nil {
		return false, fmt.Errorf("storing snapshot of %s: %w", path, err)
	}
	return added, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

const snapshotColumns = `checkpoint_id, path, prior_hash, prior_mode, created_dirs, recorded, result_hash, status`

func scanSnapshot(row interface{ Scan(...any) error }) (FileSnapshot, error) {
	var s FileSnapshot
	var prior, result sql.NullString
	var mode uint32
	var dirs string
	if err := row.Scan(&s.CheckpointID, &s.Path, &prior, &mode, &dirs, &s.Recorded, &result, &s.Status); err != nil {
		return FileSnapshot{}, err
	}
	s.PriorHash, s.PriorMode, s.ResultHash = prior.String, fs.FileMode(mode), result.String
	if err := json.Unmarshal([]byte(dirs), &s.CreatedDirs); err != nil {
		return FileSnapshot{}, fmt.Errorf("created folders of %s: %w", s.Path, err)
	}
	return s, nil
}

// Snapshot returns the snapshot of path in a checkpoint, or an error wrapping ErrNotFound.
func (db *DB) Snapshot(ctx context.Context, checkpointID int64, path string) (FileSnapshot, error) {
	s, err := scanSnapshot(db.sql.QueryRowContext(ctx,
		`SELECT `+snapshotColumns+` FROM file_snapshots WHERE checkpoint_id = ? AND path = ?`, checkpointID, path))
	if errors.Is(err, sql.ErrNoRows) {
		return FileSnapshot{}, fmt.Errorf("snapshot of %s: %w", path, ErrNotFound)
	}
	if err != nil {
		return FileSnapshot{}, fmt.Errorf("reading snapshot of %s: %w", path, err)
	}
	return s, nil
}

// ChangedLater reports whether a later checkpoint of the same session changed path starting
// from from (the hash of what the earlier run left there, "" when it left no file): the file
// moved on through a later run of the agent, not through the person.
func (db *DB) ChangedLater(ctx context.Context, sessionID string, checkpointID int64, path, from string) (bool, error) {
	var found bool
	err := db.sql.QueryRowContext(ctx, `
		SELECT EXISTS (SELECT 1 FROM file_snapshots s JOIN checkpoints c ON c.id = s.checkpoint_id
			WHERE c.session_id = ? AND c.id > ? AND s.path = ?
			AND (s.prior_hash = ? OR (? = '' AND s.prior_hash IS NULL)))`,
		sessionID, checkpointID, path, from, from).Scan(&found)
	if err != nil {
		return false, fmt.Errorf("reading later changes of %s: %w", path, err)
	}
	return found, nil
}

// Snapshots returns a checkpoint's snapshots in the order the run first touched the files.
func (db *DB) Snapshots(ctx context.Context, checkpointID int64) ([]FileSnapshot, error) {
	rows, err := db.sql.QueryContext(ctx,
		`SELECT `+snapshotColumns+` FROM file_snapshots WHERE checkpoint_id = ? ORDER BY id`, checkpointID)
	if err != nil {
		return nil, fmt.Errorf("reading snapshots: %w", err)
	}
	defer rows.Close()
	var out []FileSnapshot
	for rows.Next() {
		s, err := scanSnapshot(rows)
		if err != nil {
			return nil, fmt.Errorf("reading snapshots: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// RecordResult stores the hash of what the agent left at path ("" when it deleted the file). It
// fails with ErrNotFound unless path has a pending snapshot.
func (db *DB) RecordResult(ctx context.Context, checkpointID int64, path, resultHash string) error {
	var result any
	if resultHash != "" {
		result = resultHash
	}
	res, err := db.sql.ExecContext(ctx, `
		UPDATE file_snapshots SET recorded = 1, result_hash = ? WHERE checkpoint_id = ? AND path = ? AND status = ?`,
		result, checkpointID, path, SnapshotPending)
	if err != nil {
		return fmt.Errorf("recording the agent's change to %s: %w", path, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("recording the agent's change to %s: no pending snapshot: %w", path, ErrNotFound)
	}
	return nil
}

// SetSnapshotStatus moves path's snapshot from one status to another and reports whether it did:
// false when the snapshot was not in status from.
func (db *DB) SetSnapshotStatus(ctx context.Context, checkpointID int64, path, from, to string) (bool, error) {
	res, err := db.sql.ExecContext(ctx, `
		UPDATE file_snapshots SET status = ? WHERE checkpoint_id = ? AND path = ? AND status = ?`,
		to, checkpointID, path, from)
	if err != nil {
		return false, fmt.Errorf("marking %s %s: %w", path, to, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("marking %s %s: %w", path, to, err)
	}
	return n > 0, nil
}
