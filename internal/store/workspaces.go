package store

import (
	"context"
	"fmt"
	"time"
)

// Workspace is a recently opened project folder.
type Workspace struct {
	ID       int64     `json:"id"`
	Path     string    `json:"path"`
	Name     string    `json:"name"`
	OpenedAt time.Time `json:"openedAt"`
}

// TouchWorkspace records that path was opened now, adding it to the recent list if new.
func (db *DB) TouchWorkspace(ctx context.Context, path, name string) (Workspace, error) {
	now := db.now().UnixMilli()
	var w Workspace
	var opened int64
	err := db.sql.QueryRowContext(ctx, `
		INSERT INTO workspaces (path, name, created_at, opened_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (path) DO UPDATE SET name = excluded.name, opened_at = excluded.opened_at
		RETURNING id, path, name, opened_at`, path, name, now, now).Scan(&w.ID, &w.Path, &w.Name, &opened)
	if err != nil {
		return Workspace{}, fmt.Errorf("recording recent project %s: %w", path, err)
	}
	w.OpenedAt = time.UnixMilli(opened)
	return w, nil
}

// RecentWorkspaces lists opened folders, most recent first.
func (db *DB) RecentWorkspaces(ctx context.Context, limit int) ([]Workspace, error) {
	rows, err := db.sql.QueryContext(ctx, `
		SELECT id, path, name, opened_at FROM workspaces ORDER BY opened_at DESC, id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("listing recent projects: %w", err)
	}
	defer rows.Close()
	out := []Workspace{}
	for rows.Next() {
		var w Workspace
		var opened int64
		if err := rows.Scan(&w.ID, &w.Path, &w.Name, &opened); err != nil {
			return nil, fmt.Errorf("listing recent projects: %w", err)
		}
		w.OpenedAt = time.UnixMilli(opened)
		out = append(out, w)
	}
	return out, rows.Err()
}

// RemoveWorkspace forgets a recent project (the folder itself is not touched).
func (db *DB) RemoveWorkspace(ctx context.Context, id int64) error {
	if _, err := db.sql.ExecContext(ctx, `DELETE FROM workspaces WHERE id = ?`, id); err != nil {
		return fmt.Errorf("removing recent project: %w", err)
	}
	return nil
}
