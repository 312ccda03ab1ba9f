package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// ErrNotFound means the session, checkpoint, snapshot or blob asked for does not exist.
var ErrNotFound = errors.New("not found")

// write runs fn in one transaction. The DSN's _txlock=immediate makes BeginTx take the write lock
// at once, so concurrent writers queue on the busy timeout instead of failing halfway.
func (db *DB) write(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Session is one conversation with the agent in a workspace.
type Session struct {
	ID            string    `json:"id"`
	WorkspacePath string    `json:"workspacePath"`
	Title         string    `json:"title"`
	Mode          string    `json:"mode"`
	Model         string    `json:"model"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
	// ParentID is set for a subagent's session: the session whose run started it.
	ParentID string `json:"parentId,omitempty"`
}

// CreateSession stores a new session from s's workspace, title, mode and model, and returns it
// with its new ID and times.
func (db *DB) CreateSession(ctx context.Context, s Session) (Session, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return Session{}, fmt.Errorf("creating session id: %w", err)
	}
	now := db.now().UnixMilli()
	s.ID = hex.EncodeToString(b[:])
	s.CreatedAt, s.UpdatedAt = time.UnixMilli(now), time.UnixMilli(now)
	_, err := db.sql.ExecContext(ctx, `
		INSERT INTO sessions (id, workspace_path, title, mode, model, created_at, updated_at, parent_id)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		s.ID, s.WorkspacePath, s.Title, s.Mode, s.Model, now, now, sql.NullString{String: s.ParentID, Valid: s.ParentID != ""})
	if err != nil {
		return Session{}, fmt.Errorf("creating session: %w", err)
	}
	return s, nil
}

const sessionColumns = `id, workspace_path, title, mode, model, created_at, updated_at, parent_id`

func scanSession(row interface{ Scan(...any) error }) (Session, error) {
	var s Session
	var created, updated int64
	var parent sql.NullString
	if err := row.Scan(&s.ID, &s.WorkspacePath, &s.Title, &s.Mode, &s.Model, &created, &updated, &parent); err != nil {
		return Session{}, err
	}
	s.CreatedAt, s.UpdatedAt = time.UnixMilli(created), time.UnixMilli(updated)
	s.ParentID = parent.String
	return s, nil
}

// GetSession returns the session with id, or an error wrapping ErrNotFound.
func (db *DB) GetSession(ctx context.Context, id string) (Session, error) {
	s, err := scanSession(db.sql.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, fmt.Errorf("session %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Session{}, fmt.Errorf("reading session %s: %w", id, err)
	}
	return s, nil
}

// ListSessions returns a workspace's sessions, the most recently active first; subagents'
// sessions are part of their parent's and not listed.
func (db *DB) ListSessions(ctx context.Context, workspacePath string) ([]Session, error) {
	rows, err := db.sql.QueryContext(ctx, `
		SELECT `+sessionColumns+` FROM sessions WHERE workspace_path = ? AND parent_id IS NULL
		ORDER BY updated_at DESC, rowid DESC`, workspacePath)
	if err != nil {
		return nil, fmt.Errorf("listing sessions: %w", err)
	}
	defer rows.Close()
	out := []Session{}
	for rows.Next() {
		s, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("listing sessions: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// RenameSession sets a session's title.
func (db *DB) RenameSession(ctx context.Context, id, title string) error {
	return db.updateSession(ctx, id, "renaming", `UPDATE sessions SET title = ?, updated_at = ? WHERE id = ?`,
		title, db.now().UnixMilli(), id)
}

// TouchSession records a new message in a session: it moves to the top of its list, and the
// list shows the mode and model that message used (a chat can switch both as it goes).
func (db *DB) TouchSession(ctx context.Context, id, mode, model string) error {
	return db.updateSession(ctx, id, "touching", `UPDATE sessions SET updated_at = ?, mode = ?, model = ? WHERE id = ?`,
		db.now().UnixMilli(), mode, model, id)
}

func (db *DB) updateSession(ctx context.Context, id, verb, query string, args ...any) error {
	res, err := db.sql.ExecContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("%s session %s: %w", verb, id, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("%s session %s: %w", verb, id, ErrNotFound)
	}
	return nil
}

// DeleteSession removes a session with its events, messages and checkpoints, and then the file
// contents no remaining checkpoint needs, all or nothing. Deleting a missing session is not an
// error. The files in the workspace are not touched.
func (db *DB) DeleteSession(ctx context.Context, id string) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM events WHERE session_id = ?`, id); err != nil {
			return err
		}
		// Messages, checkpoints and their snapshots, and its subagents' sessions with theirs, go
		// with the session (ON DELETE CASCADE).
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id); err != nil {
			return err
		}
		return deleteUnusedBlobs(ctx, tx)
	})
	if err != nil {
		return fmt.Errorf("deleting session %s: %w", id, err)
	}
	return nil
}
