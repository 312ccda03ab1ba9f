package store

import (
	"context"
	"encoding/json"
	"errors"
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

// AppendEvents stores events in one transaction, in the order given, and returns their sequence
// numbers. Either all of them are stored or none: the emitter posts a batch only once it is whole.
func (db *DB) AppendEvents(ctx context.Context, evs []EventRecord) ([]int64, error) {
	if len(evs) == 0 {
		return nil, nil
	}
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("appending %d events: %w", len(evs), err)
	}
	defer tx.Rollback()
	stmt, err := db.txStmt(ctx, tx, `
		INSERT INTO events (id, session_id, run_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return nil, fmt.Errorf("appending %d events: %w", len(evs), err)
	}
	seqs := make([]int64, len(evs))
	for i, e := range evs {
		res, err := stmt.ExecContext(ctx, e.ID, e.SessionID, e.RunID, e.Type, string(e.Payload), e.Time.UnixMilli())
		if err != nil {
			return nil, fmt.Errorf("appending %s event: %w", e.Type, err)
		}
		if seqs[i], err = res.LastInsertId(); err != nil {
			return nil, fmt.Errorf("appending %s event: %w", e.Type, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("appending %d events: %w", len(evs), err)
	}
	return seqs, nil
}

// ReplayEvents returns up to limit of a session's events ("" for app-wide ones) with a sequence
// number above afterSeq, in the order they were posted. A UI reopening a long session pages
// through it by passing the last Seq it got as the next afterSeq (0 to start).
func (db *DB) ReplayEvents(ctx context.Context, sessionID string, afterSeq int64, limit int) ([]EventRecord, error) {
	if limit <= 0 {
		return nil, errors.New("replaying events: the page limit must be positive")
	}
	q, err := db.stmt(ctx, `
		SELECT seq, id, run_id, type, payload, created_at FROM events
		WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?`)
	if err != nil {
		return nil, fmt.Errorf("replaying events of session %q: %w", sessionID, err)
	}
	rows, err := q.QueryContext(ctx, sessionID, afterSeq, limit)
	if err != nil {
		return nil, fmt.Errorf("replaying events of session %q: %w", sessionID, err)
	}
	defer rows.Close()
	out := make([]EventRecord, 0, min(limit, 512))
	for rows.Next() {
		e := EventRecord{SessionID: sessionID}
		var created int64
		if err := rows.Scan(&e.Seq, &e.ID, &e.RunID, &e.Type, (*[]byte)(&e.Payload), &created); err != nil {
			return nil, fmt.Errorf("replaying events of session %q: %w", sessionID, err)
		}
		e.Time = time.UnixMilli(created).UTC()
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("replaying events of session %q: %w", sessionID, err)
	}
	return out, nil
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
