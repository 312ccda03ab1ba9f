package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// Message is one entry of the model's history, as it is sent back to the model.
type Message struct {
	SessionID string
	RunID     string
	Seq       int64 // 1, 2, … within the session; assigned by AppendMessage
	Role      string
	Content   string
	Thinking  string
	ToolCalls json.RawMessage // as the model sent them; nil when there were none
	ToolName  string          // the tool whose result a tool message carries
	// Meta is what the message's tool results say in structured form (the agent's JSON); nil
	// for messages written before it was kept.
	Meta json.RawMessage
	Time time.Time
}

// AppendMessage adds m at the end of its session's history, marks the session active, and
// returns m's sequence number.
func (db *DB) AppendMessage(ctx context.Context, m Message) (int64, error) {
	var toolCalls, meta any
	if len(m.ToolCalls) > 0 {
		toolCalls = string(m.ToolCalls)
	}
	if len(m.Meta) > 0 {
		meta = string(m.Meta)
	}
	if m.Time.IsZero() {
		m.Time = db.now()
	}
	var seq int64
	err := db.write(ctx, func(tx *sql.Tx) error {
		// The write lock is held from the start, so no other append can take the same number.
		err := tx.QueryRowContext(ctx, `
			INSERT INTO messages (session_id, seq, run_id, role, content, thinking, tool_calls, tool_name, meta, created_at)
			SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ?, ?, ?, ?, ? FROM messages WHERE session_id = ?
			RETURNING seq`,
			m.SessionID, m.RunID, m.Role, m.Content, m.Thinking, toolCalls, m.ToolName, meta, m.Time.UnixMilli(), m.SessionID,
		).Scan(&seq)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE sessions SET updated_at = MAX(updated_at, ?) WHERE id = ?`,
			m.Time.UnixMilli(), m.SessionID)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("saving %s message: %w", m.Role, err)
	}
	return seq, nil
}

// Messages returns a session's history in order.
func (db *DB) Messages(ctx context.Context, sessionID string) ([]Message, error) {
	rows, err := db.sql.QueryContext(ctx, `
		SELECT seq, run_id, role, content, thinking, tool_calls, tool_name, meta, created_at FROM messages
		WHERE session_id = ? ORDER BY seq`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("reading messages: %w", err)
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		m := Message{SessionID: sessionID}
		var toolCalls, meta sql.NullString
		var created int64
		if err := rows.Scan(&m.Seq, &m.RunID, &m.Role, &m.Content, &m.Thinking, &toolCalls, &m.ToolName, &meta, &created); err != nil {
			return nil, fmt.Errorf("reading messages: %w", err)
		}
		if toolCalls.Valid {
			m.ToolCalls = json.RawMessage(toolCalls.String)
		}
		if meta.Valid {
			m.Meta = json.RawMessage(meta.String)
		}
		m.Time = time.UnixMilli(created)
		out = append(out, m)
	}
	return out, rows.Err()
}
