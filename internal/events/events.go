// Package events is the one door through which the UI learns anything: an event is appended to
// the log in SQLite, then posted to whatever frontend is attached. An event is never shown without
// being stored, so reopening a session replays exactly what was shown live.
//
// Emit stores and posts at once; it is for events that change state (a run started or ended, an
// approval was requested). EmitDelta is for the flood of streamed pieces (model text, command
// output) and for progress a run goes on from (its tool lines): they are held briefly and stored
// many to a transaction, and posted only after that commit, so the rule "stored, then posted"
// holds for them too and the cost is a delay no longer than the UI's own 32 ms throttle. One lock
// orders everything, so the log order is the post order.
package events

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"gantry/internal/store"
)

// Event is what the frontend receives (mirrored in frontend/src/lib/events.ts), live or replayed.
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
// It is called with the emitter's lock held and must not block.
type Poster interface {
	Post(Event)
}

// Log is where events are persisted before they are posted, and read back for a replay.
type Log interface {
	// AppendEvents stores the events in one transaction, all or none, and returns their sequence
	// numbers in order.
	AppendEvents(ctx context.Context, evs []store.EventRecord) ([]int64, error)
	ReplayEvents(ctx context.Context, sessionID string, afterSeq int64, limit int) ([]store.EventRecord, error)
}

// ErrClosed is returned for events offered after Close.
var ErrClosed = errors.New("the event emitter is closed")

const (
	// flushInterval bounds how long a delta waits to be stored and posted: the UI shows streamed
	// text at most every 32 ms (SPEC §4), so holding a delta as long adds no visible lag.
	flushInterval = 32 * time.Millisecond
	// maxBatch bounds the memory held and the length of one transaction while output floods in.
	maxBatch = 256
)

// Emitter persists then posts. Everything it does is serialised, so the posting order is the
// storage order.
type Emitter struct {
	log      Log
	interval time.Duration
	maxBatch int

	mu      sync.Mutex
	posters []Poster
	pending []Event     // accepted deltas, neither stored nor posted yet
	timer   *time.Timer // flushes pending when the oldest of them has waited interval
	lost    error       // why a background flush failed; reported by the next EmitDelta, Flush or Close
	closed  bool
}

// NewEmitter returns an emitter writing to log; attach frontends with Attach, and Close it before
// closing the log so the last deltas are stored.
func NewEmitter(log Log) *Emitter { return newEmitter(log, flushInterval, maxBatch) }

func newEmitter(log Log, interval time.Duration, batch int) *Emitter {
	return &Emitter{log: log, interval: interval, maxBatch: batch}
}

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

// Emit stores the event, together with any deltas still waiting (which come first), and then posts
// them. If storing fails nothing is posted and the error is returned: the UI must never show what a
// replay would not.
//
// A cancelled ctx refuses the event. Once accepted, the write no longer follows ctx: the same
// transaction may carry other sessions' deltas, and an event must end stored and posted or
// reported lost, never half.
func (e *Emitter) Emit(ctx context.Context, scope Scope, typ Type, payload any) (Event, error) {
	ev, err := newEvent(ctx, scope, typ, payload)
	if err != nil {
		return Event{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return Event{}, ErrClosed
	}
	batch := append(e.takePending(), ev)
	if err := e.storeAndPost(ctx, batch); err != nil {
		err = fmt.Errorf("storing %s event: %w", typ, err)
		if len(batch) > 1 {
			e.noteLost(err)
		}
		return Event{}, err
	}
	return batch[len(batch)-1], nil
}

// EmitDelta accepts a streamed piece (model text, command output) or progress to be stored and
// posted within the flush interval, in order with everything else. An error means this piece
// will not be shown; it may be that an earlier batch of deltas could not be stored, which is
// reported here because that batch had no caller waiting for it.
func (e *Emitter) EmitDelta(ctx context.Context, scope Scope, typ Type, payload any) error {
	ev, err := newEvent(ctx, scope, typ, payload)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return ErrClosed
	}
	if err := e.takeLost(); err != nil {
		return err
	}
	e.pending = append(e.pending, ev)
	if len(e.pending) >= e.maxBatch {
		return e.flushLocked(ctx)
	}
	if e.timer == nil {
		e.timer = time.AfterFunc(e.interval, e.flushLater)
	}
	return nil
}

// Flush stores and posts the deltas still waiting, and reports any that a background flush lost.
func (e *Emitter) Flush(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return errors.Join(e.takeLost(), e.flushLocked(ctx))
}

// Close flushes and refuses further events. It does not close the log.
func (e *Emitter) Close(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	return errors.Join(e.takeLost(), e.flushLocked(ctx))
}

// Replay returns up to limit of a session's stored events after afterSeq, as the frontend receives
// them live, so both go through one rendering path. Deltas still waiting are not in the log yet;
// they are posted later with higher sequence numbers, so a frontend that subscribes before it
// replays and drops live events at or below the last replayed Seq sees every event exactly once.
func (e *Emitter) Replay(ctx context.Context, sessionID string, afterSeq int64, limit int) ([]Event, error) {
	recs, err := e.log.ReplayEvents(ctx, sessionID, afterSeq, limit)
	if err != nil {
		return nil, err
	}
	out := make([]Event, len(recs))
	for i, r := range recs {
		out[i] = Event{ID: r.ID, Seq: r.Seq, SessionID: r.SessionID, RunID: r.RunID, Type: Type(r.Type), Payload: r.Payload, Time: r.Time}
	}
	return out, nil
}

func (e *Emitter) flushLater() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.flushLocked(context.Background()); err != nil {
		e.noteLost(err)
	}
}

func (e *Emitter) flushLocked(ctx context.Context) error {
	batch := e.takePending()
	if len(batch) == 0 {
		return nil
	}
	if err := e.storeAndPost(ctx, batch); err != nil {
		return fmt.Errorf("storing %d streamed events: %w", len(batch), err)
	}
	return nil
}

// takePending empties the delta buffer. A timer that already fired finds it empty, or flushes a
// newer batch a little early, which is harmless.
func (e *Emitter) takePending() []Event {
	if e.timer != nil {
		e.timer.Stop()
		e.timer = nil
	}
	batch := e.pending
	e.pending = nil
	return batch
}

func (e *Emitter) noteLost(err error) {
	if e.lost == nil {
		e.lost = err
	}
}

func (e *Emitter) takeLost() error {
	err := e.lost
	e.lost = nil
	return err
}

// storeAndPost writes the batch in one transaction, then posts it; e.mu must be held. The write
// no longer follows the caller's cancellation, and has no deadline of its own: its only wait is
// for the write lock, which the database's busy timeout (5 s) bounds, and a context that can
// end costs a goroutine per statement in the driver and database/sql.
func (e *Emitter) storeAndPost(ctx context.Context, batch []Event) error {
	ctx = context.WithoutCancel(ctx)
	recs := make([]store.EventRecord, len(batch))
	for i, ev := range batch {
		recs[i] = store.EventRecord{ID: ev.ID, SessionID: ev.SessionID, RunID: ev.RunID, Type: string(ev.Type), Payload: ev.Payload, Time: ev.Time}
	}
	seqs, err := e.log.AppendEvents(ctx, recs)
	if err != nil {
		return err
	}
	for i := range batch {
		batch[i].Seq = seqs[i]
		for _, p := range e.posters {
			p.Post(batch[i])
		}
	}
	return nil
}

// newEvent encodes the payload outside the lock. The time is kept to the millisecond in UTC, as
// the log stores it, so a replayed event encodes to the same JSON as the live one did.
func newEvent(ctx context.Context, scope Scope, typ Type, payload any) (Event, error) {
	if err := ctx.Err(); err != nil {
		return Event{}, fmt.Errorf("emitting %s event: %w", typ, err)
	}
	raw, err := json.Marshal(payload)
	if err != nil {
		return Event{}, fmt.Errorf("encoding %s event: %w", typ, err)
	}
	return Event{
		ID: newID(), SessionID: scope.SessionID, RunID: scope.RunID, Type: typ, Payload: raw,
		Time: time.Now().UTC().Truncate(time.Millisecond),
	}, nil
}

func newID() string {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b[:])
}
