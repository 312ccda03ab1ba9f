// Package events is the one door through which the UI learns anything: Emit appends the event to
// the log in SQLite, then posts it to whatever frontend is attached. An event is never shown
// without being stored, so reopening a session replays exactly what was shown live.
package events

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"gantry/internal/store"
)

// Event is what the frontend receives (mirrored in frontend/src/lib/events.ts).
type Event struct {
	ID        string          `json:"id"`
	Seq       int64           `json:"seq"`
	SessionID string          `json:"sessionId"`
	RunID     string          `json:"runId"`
	Type      Type            `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	Time      time.Time       `json:"time"`
}

// Poster delivers a stored event to a frontend: the Wails window or the browser-mode event stream.
type Poster interface {
	Post(Event)
}

// Log is where events are persisted before they are posted.
type Log interface {
	AppendEvent(ctx context.Context, e store.EventRecord) (int64, error)
}

// Emitter persists then posts. Emit is serialised so the posting order is the storage order.
type Emitter struct {
	log Log

	mu      sync.Mutex
	posters []Poster
}

// NewEmitter returns an emitter writing to log; attach frontends with Attach.
func NewEmitter(log Log) *Emitter { return &Emitter{log: log} }

// Attach adds a frontend. Events emitted before it was attached are not re-sent (the frontend
// loads current state through bound methods when it starts).
func (e *Emitter) Attach(p Poster) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.posters = append(e.posters, p)
}

// Scope says which session and run an event belongs to; the zero Scope is app-wide.
type Scope struct {
	SessionID string
	RunID     string
}

// Emit stores the event and then posts it. If storing fails nothing is posted and the error is
// returned: the UI must never show what a replay would not.
func (e *Emitter) Emit(ctx context.Context, scope Scope, typ Type, payload any) (Event, error) {
	raw, err := json.Marshal(payload)
	if err != nil {
		return Event{}, fmt.Errorf("encoding %s event: %w", typ, err)
	}
	ev := Event{ID: newID(), SessionID: scope.SessionID, RunID: scope.RunID, Type: typ, Payload: raw, Time: time.Now()}

	e.mu.Lock()
	defer e.mu.Unlock()
	seq, err := e.log.AppendEvent(ctx, store.EventRecord{
		ID: ev.ID, SessionID: ev.SessionID, RunID: ev.RunID, Type: string(ev.Type), Payload: raw, Time: ev.Time,
	})
	if err != nil {
		return Event{}, err
	}
	ev.Seq = seq
	for _, p := range e.posters {
		p.Post(ev)
	}
	return ev, nil
}

func newID() string {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b[:])
}
