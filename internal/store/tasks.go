package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Task is one item of a session's task list.
type Task struct {
	ID        int       `json:"id"`
	Title     string    `json:"title"`
	Status    string    `json:"status"` // "pending", "in_progress", "done"
	Notes     string    `json:"notes,omitempty"`
	UpdatedAt time.Time `json:"-"`
}

// TaskChange is what an update sets; nil fields stay as they are.
type TaskChange struct {
	Title  *string
	Status *string
	Notes  *string
}

// AddTask appends a task to the session's list and returns it with its number.
func (db *DB) AddTask(ctx context.Context, sessionID, title, status, notes string) (Task, error) {
	now := time.Now()
	t := Task{Title: title, Status: status, Notes: notes, UpdatedAt: time.UnixMilli(now.UnixMilli())}
	err := db.write(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) + 1 FROM tasks WHERE session_id = ?`, sessionID).Scan(&t.ID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `
			INSERT INTO tasks (session_id, id, title, status, notes, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, sessionID, t.ID, title, status, notes, now.UnixMilli(), now.UnixMilli())
		return err
	})
	if err != nil {
		return Task{}, fmt.Errorf("adding a task: %w", err)
	}
	return t, nil
}

// UpdateTask changes task id of the session, or fails with ErrNotFound.
func (db *DB) UpdateTask(ctx context.Context, sessionID string, id int, c TaskChange) (Task, error) {
	var t Task
	err := db.write(ctx, func(tx *sql.Tx) error {
		var err error
		if t, err = scanTask(tx.QueryRowContext(ctx, `SELECT `+taskColumns+` FROM tasks WHERE session_id = ? AND id = ?`, sessionID, id)); err != nil {
			return err
		}
		if c.Title != nil {
			t.Title = *c.Title
		}
		if c.Status != nil {
			t.Status = *c.Status
		}
		if c.Notes != nil {
			t.Notes = *c.Notes
		}
		now := time.Now().UnixMilli()
		t.UpdatedAt = time.UnixMilli(now)
		_, err = tx.ExecContext(ctx, `UPDATE tasks SET title = ?, status = ?, notes = ?, updated_at = ? WHERE session_id = ? AND id = ?`,
			t.Title, t.Status, t.Notes, now, sessionID, id)
		return err
	})
	if errors.Is(err, sql.ErrNoRows) {
		return Task{}, fmt.Errorf("task %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Task{}, fmt.Errorf("updating task %d: %w", id, err)
	}
	return t, nil
}

// Tasks is the session's task list in order.
func (db *DB) Tasks(ctx context.Context, sessionID string) ([]Task, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+taskColumns+` FROM tasks WHERE session_id = ? ORDER BY id`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("reading the task list: %w", err)
	}
	defer rows.Close()
	out := []Task{}
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return nil, fmt.Errorf("reading the task list: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

const taskColumns = `id, title, status, notes, updated_at`

func scanTask(row interface{ Scan(...any) error }) (Task, error) {
	var t Task
	var updated int64
	if err := row.Scan(&t.ID, &t.Title, &t.Status, &t.Notes, &updated); err != nil {
		return Task{}, err
	}
	t.UpdatedAt = time.UnixMilli(updated)
	return t, nil
}
