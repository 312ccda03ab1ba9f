package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// EventRecord is one row of the UI event log.
type EventRecord struct {
	Seq       int64
	ID        string
	SessionID string
	RunID     string
	Type      string
	Payload   json.RawMessage
	Time      time.Time
}

// AppendEvent stores an event and returns its sequence number.
func (db *DB) AppendEvent(ctx context.Context, e EventRecord) (int64, error) {
	res, err := db.sql.ExecContext(ctx, `
		INSERT INTO events (id, session_id, run_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		e.ID, e.SessionID, e.RunID, e.Type, string(e.Payload), e.Time.UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("appending %s event: %w", e.Type, err)
	}
	return res.LastInsertId()
}

// Events returns a session's events in the order they were posted ("" for app-wide events).
func (db *DB) Events(ctx context.Context, sessionID string) ([]EventRecord, error) {
	rows, err := db.sql.QueryContext(ctx, `
		SELECT seq, id, session_id, run_id, type, payload, created_at FROM events
		WHERE session_id = ? ORDER BY seq`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("reading events: %w", err)
	}
	defer rows.Close()
	var out []EventRecord
	for rows.Next() {
		var e EventRecord
		var payload string
		var created int64
		if err := rows.Scan(&e.Seq, &e.ID, &e.SessionID, &e.RunID, &e.Type, &payload, &created); err != nil {
			return nil, fmt.Errorf("reading events: %w", err)
		}
		e.Payload = json.RawMessage(payload)
		e.Time = time.UnixMilli(created)
		out = append(out, e)
	}
	return out, rows.Err()
}

// PruneAppEvents drops app-wide events (those of no session) older than the cutoff: they are a
// diagnostic trail, not something a user replays, and must not grow without bound.
func (db *DB) PruneAppEvents(ctx context.Context, olderThan time.Time) error {
	_, err := db.sql.ExecContext(ctx, `DELETE FROM events WHERE session_id = '' AND created_at < ?`, olderThan.UnixMilli())
	if err != nil {
		return fmt.Errorf("pruning old events: %w", err)
	}
	return nil
}
