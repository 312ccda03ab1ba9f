package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"gantry/internal/store"
)

// Test-only types: the streamed and state-changing kinds the agent will emit.
const (
	textDelta  Type = "textDelta"
	toolAction Type = "toolAction"
)

type recordingPoster struct {
	mu     sync.Mutex
	events []Event
}

func (r *recordingPoster) Post(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recordingPoster) all() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

func (r *recordingPoster) of(session string) []Event {
	var out []Event
	for _, e := range r.all() {
		if e.SessionID == session {
			out = append(out, e)
		}
	}
	return out
}

// countingLog counts write transactions and remembers their sizes.
type countingLog struct {
	*store.DB
	mu    sync.Mutex
	sizes []int
}

func (c *countingLog) AppendEvents(ctx context.Context, evs []store.EventRecord) ([]int64, error) {
	c.mu.Lock()
	c.sizes = append(c.sizes, len(evs))
	c.mu.Unlock()
	return c.DB.AppendEvents(ctx, evs)
}

func (c *countingLog) transactions() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]int(nil), c.sizes...)
}

type failingLog struct {
	*store.DB
	calls atomic.Int64
}

func (f *failingLog) AppendEvents(context.Context, []store.EventRecord) ([]int64, error) {
	f.calls.Add(1)
	return nil, errors.New("disk full")
}

// recorded attaches a recording frontend to em.
func recorded(em *Emitter) (*Emitter, *recordingPoster) {
	rec := &recordingPoster{}
	em.Attach(rec)
	return em, rec
}

func openDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

func replayAll(t *testing.T, em *Emitter, session string, page int) []Event {
	t.Helper()
	var all []Event
	var after int64
	for {
		got, err := em.Replay(context.Background(), session, after, page)
		require.NoError(t, err)
		if len(got) == 0 {
			return all
		}
		all = append(all, got...)
		after = got[len(got)-1].Seq
	}
}

func ids(evs []Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.ID
	}
	return out
}

func encode(t *testing.T, evs []Event) []string {
	t.Helper()
	out := make([]string, len(evs))
	for i, e := range evs {
		raw, err := json.Marshal(e)
		require.NoError(t, err)
		out[i] = string(raw)
	}
	return out
}

func requireIncreasingSeqs(t *testing.T, evs []Event) {
	t.Helper()
	for i := 1; i < len(evs); i++ {
		require.Greater(t, evs[i].Seq, evs[i-1].Seq, "event %d", i)
	}
}

func TestEmitPersistsThenPostsInTheSameOrder(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	em, rec := recorded(NewEmitter(db))
	ctx := context.Background()

	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				_, err := em.Emit(ctx, Scope{SessionID: "s"}, RecentChanged, map[string]int{"g": g, "i": i})
				require.NoError(t, err)
			}
		}()
	}
	wg.Wait()

	stored := replayAll(t, em, "s", 1000)
	require.Len(t, stored, 80)
	require.Equal(t, encode(t, stored), encode(t, rec.all()), "posted order is stored order")
}

// Every post must find its event already committed, deltas included: the poster reads the log
// back, through another connection, at the moment it is called.
func TestNothingIsPostedBeforeItIsCommitted(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	em := newEmitter(db, time.Millisecond, 8)
	var checked atomic.Int64
	em.Attach(posterFunc(func(ev Event) {
		got, err := db.ReplayEvents(context.Background(), ev.SessionID, ev.Seq-1, 1)
		if err != nil || len(got) != 1 || got[0].ID != ev.ID {
			t.Errorf("event %s (seq %d) was posted before it was stored: %v %v", ev.ID, ev.Seq, got, err)
		}
		checked.Add(1)
	}))
	ctx := context.Background()
	for i := range 50 {
		require.NoError(t, em.EmitDelta(ctx, Scope{SessionID: "s"}, textDelta, i))
		if i%10 == 9 {
			_, err := em.Emit(ctx, Scope{SessionID: "s"}, toolAction, i)
			require.NoError(t, err)
		}
	}
	require.NoError(t, em.Close(ctx))
	require.EqualValues(t, 55, checked.Load())
}

type posterFunc func(Event)

func (f posterFunc) Post(e Event) { f(e) }

func TestReplayPagesEncodeLikeLiveEvents(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	em, rec := recorded(NewEmitter(db))
	ctx := context.Background()
	for i := range 40 {
		scope := Scope{SessionID: "s", RunID: fmt.Sprintf("r%d", i/20)}
		if i%5 == 0 {
			_, err := em.Emit(ctx, scope, toolAction, map[string]any{"i": i, "status": "success", "text": "ü \"quoted\" <b>"})
			require.NoError(t, err)
		} else {
			require.NoError(t, em.EmitDelta(ctx, scope, textDelta, map[string]any{"text": strings.Repeat("x", i)}))
		}
		_, err := em.Emit(ctx, Scope{SessionID: "noise"}, toolAction, i)
		require.NoError(t, err)
	}
	_, err := em.Emit(ctx, Scope{}, RecentChanged, struct{}{})
	require.NoError(t, err)
	require.NoError(t, em.Flush(ctx))

	live := rec.of("s")
	require.Len(t, live, 40)
	for _, page := range []int{1, 7, 40, 500} {
		require.Equal(t, encode(t, live), encode(t, replayAll(t, em, "s", page)), "page size %d", page)
	}
	require.Equal(t, encode(t, rec.of("")), encode(t, replayAll(t, em, "", 10)), "app-wide events replay too")

	first, err := em.Replay(ctx, "s", 0, 10)
	require.NoError(t, err)
	rest, err := em.Replay(ctx, "s", first[9].Seq, 100)
	require.NoError(t, err)
	require.Equal(t, ids(live[10:]), ids(rest))
	none, err := em.Replay(ctx, "s", live[39].Seq, 100)
	require.NoError(t, err)
	require.Empty(t, none)
	_, err = em.Replay(ctx, "s", 0, 0)
	require.Error(t, err)
}

func TestDeltasShareTransactionsAndKeepTheirOrder(t *testing.T) {
	t.Parallel()
	log := &countingLog{DB: openDB(t)}
	em, rec := recorded(newEmitter(log, time.Hour, 100)) // only the batch size or a flush writes
	ctx := context.Background()

	for i := range 1000 {
		require.NoError(t, em.EmitDelta(ctx, Scope{SessionID: "s"}, textDelta, i))
	}
	require.Len(t, rec.all(), 1000)
	require.Len(t, log.transactions(), 10, "1000 deltas in batches of 100")

	for i := range 30 {
		require.NoError(t, em.EmitDelta(ctx, Scope{SessionID: "s"}, textDelta, 1000+i))
	}
	require.Len(t, rec.all(), 1000, "a batch is posted only once it is stored")
	require.NoError(t, em.Flush(ctx))
	require.Equal(t, 30, log.transactions()[10])
	require.NoError(t, em.Flush(ctx))
	require.Len(t, log.transactions(), 11, "flushing nothing writes nothing")

	posted := rec.all()
	require.Len(t, posted, 1030)
	for i, e := range posted {
		require.JSONEq(t, fmt.Sprint(i), string(e.Payload))
	}
	requireIncreasingSeqs(t, posted)
	require.Equal(t, ids(posted), ids(replayAll(t, em, "s", 500)))
}

func TestNonDeltaEventFlushesWaitingDeltasFirst(t *testing.T) {
	t.Parallel()
	log := &countingLog{DB: openDB(t)}
	em, rec := recorded(newEmitter(log, time.Hour, 100))
	ctx := context.Background()

	require.NoError(t, em.EmitDelta(ctx, Scope{SessionID: "a"}, textDelta, "a1"))
	require.NoError(t, em.EmitDelta(ctx, Scope{SessionID: "b"}, textDelta, "b1"))
	require.NoError(t, em.EmitDelta(ctx, Scope{SessionID: "a"}, textDelta, "a2"))
	require.Empty(t, rec.all())
	done, err := em.Emit(ctx, Scope{SessionID: "a"}, toolAction, "done")
	require.NoError(t, err)

	require.Equal(t, []int{4}, log.transactions(), "the waiting deltas and the event went in one transaction")
	posted := rec.all()
	var payloads []string
	for _, e := range posted {
		payloads = append(payloads, string(e.Payload))
	}
	require.Equal(t, []string{`"a1"`, `"b1"`, `"a2"`, `"done"`}, payloads)
	require.Equal(t, done, posted[3])
	requireIncreasingSeqs(t, posted)
	require.Equal(t, ids([]Event{posted[0], posted[2], posted[3]}), ids(replayAll(t, em, "a", 10)))
}

func TestWaitingDeltasAreFlushedWithinTheInterval(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	em, rec := recorded(newEmitter(db, 5*time.Millisecond, 100))
	ctx := context.Background()
	require.NoError(t, em.EmitDelta(ctx, Scope{SessionID: "s"}, textDelta, "hello"))
	require.Eventually(t, func() bool { return len(rec.all()) == 1 }, 5*time.Second, time.Millisecond)
	require.Equal(t, ids(rec.all()), ids(replayAll(t, em, "s", 10)))

	require.NoError(t, em.EmitDelta(ctx, Scope{SessionID: "s"}, textDelta, "again"))
	require.Eventually(t, func() bool { return len(rec.all()) == 2 }, 5*time.Second, time.Millisecond)
	require.NoError(t, em.Close(ctx))
}

// Several sessions stream at once, each mixing deltas with state changes; every session's replay
// must be exactly what was posted for it, in the order its goroutine emitted.
func TestConcurrentSessionsReplayExactlyWhatWasPosted(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	em, rec := recorded(newEmitter(db, 2*time.Millisecond, 16))
	ctx := context.Background()

	const sessions, perSession = 6, 300
	var wg sync.WaitGroup
	for s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			scope := Scope{SessionID: fmt.Sprintf("s%d", s), RunID: "r"}
			for i := range perSession {
				if i%7 == 0 {
					_, err := em.Emit(ctx, scope, toolAction, i)
					require.NoError(t, err)
				} else {
					require.NoError(t, em.EmitDelta(ctx, scope, textDelta, i))
				}
				if i%50 == 0 {
					// Wait until this delta has gone out (by the timer, or with another
					// session's state change), so that timer flushes mix with the emits too.
					n := i + 1
					assert.Eventually(t, func() bool { return len(rec.of(scope.SessionID)) >= n }, time.Minute, 100*time.Microsecond)
				}
			}
		}()
	}
	wg.Wait()
	require.NoError(t, em.Close(ctx))

	requireIncreasingSeqs(t, rec.all())
	for s := range sessions {
		session := fmt.Sprintf("s%d", s)
		posted := rec.of(session)
		require.Len(t, posted, perSession)
		for i, e := range posted {
			require.JSONEq(t, fmt.Sprint(i), string(e.Payload), "%s event %d", session, i)
			want := textDelta
			if i%7 == 0 {
				want = toolAction
			}
			require.Equal(t, want, e.Type)
		}
		require.Equal(t, encode(t, posted), encode(t, replayAll(t, em, session, 64)), session)
	}
}

// A crash at any moment leaves on disk exactly what was posted: state changes, written at once,
// are all there; only deltas still waiting (never shown) are missing. A cancelled context refuses
// new events but does not abandon accepted ones.
func TestCrashOrCancelLosesNothingThatWasShown(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := store.Open(context.Background(), dir)
	require.NoError(t, err)
	defer db.Close()
	em, rec := recorded(newEmitter(db, time.Hour, 100))
	ctx, cancel := context.WithCancel(context.Background())
	scope := Scope{SessionID: "s"}

	for i := range 5 {
		require.NoError(t, em.EmitDelta(ctx, scope, textDelta, i))
	}
	_, err = em.Emit(ctx, scope, toolAction, "pending")
	require.NoError(t, err)
	for i := range 3 {
		require.NoError(t, em.EmitDelta(ctx, scope, textDelta, 10+i))
	}
	_, err = em.Emit(ctx, scope, toolAction, "success")
	require.NoError(t, err)
	for i := range 3 {
		require.NoError(t, em.EmitDelta(ctx, scope, textDelta, 20+i))
	}

	// What another process (or this one after kill -9) would read now.
	onDisk, err := store.Open(context.Background(), dir)
	require.NoError(t, err)
	defer onDisk.Close()
	crashed := replayAll(t, NewEmitter(onDisk), "s", 100)
	require.Len(t, crashed, 10, "both state changes and the deltas before them")
	require.Equal(t, encode(t, rec.all()), encode(t, crashed))

	cancel()
	_, err = em.Emit(ctx, scope, toolAction, "late")
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, em.EmitDelta(ctx, scope, textDelta, "late"), context.Canceled)
	require.NoError(t, em.Close(ctx), "accepted deltas are stored even though ctx is cancelled")

	final := replayAll(t, NewEmitter(onDisk), "s", 100)
	require.Len(t, final, 13)
	require.Equal(t, encode(t, rec.all()), encode(t, final))
}

func TestNothingIsPostedWhenStoringFails(t *testing.T) {
	t.Parallel()
	em, rec := recorded(NewEmitter(&failingLog{DB: openDB(t)}))
	ctx := context.Background()
	_, err := em.Emit(ctx, Scope{}, OllamaStatus, map[string]bool{"reachable": true})
	require.ErrorContains(t, err, "disk full")

	require.NoError(t, em.EmitDelta(ctx, Scope{SessionID: "s"}, textDelta, "x"))
	require.ErrorContains(t, em.Flush(ctx), "disk full")
	require.NoError(t, em.Flush(ctx), "a loss is reported once")
	require.Empty(t, rec.all())
}

func TestLostBackgroundFlushIsReportedByTheNextDelta(t *testing.T) {
	t.Parallel()
	log := &failingLog{DB: openDB(t)}
	em, rec := recorded(newEmitter(log, time.Millisecond, 100))
	ctx := context.Background()
	require.NoError(t, em.EmitDelta(ctx, Scope{SessionID: "s"}, textDelta, "x"))
	require.Eventually(t, func() bool { return log.calls.Load() == 1 }, 5*time.Second, time.Millisecond)
	require.ErrorContains(t, em.EmitDelta(ctx, Scope{SessionID: "s"}, textDelta, "y"), "storing 1 streamed events: disk full")
	require.NoError(t, em.Close(ctx), "the refused delta was not kept")
	require.Empty(t, rec.all())
}

func TestClosedEmitterRefusesEvents(t *testing.T) {
	t.Parallel()
	em := NewEmitter(openDB(t))
	ctx := context.Background()
	require.NoError(t, em.Close(ctx))
	require.NoError(t, em.Close(ctx))
	_, err := em.Emit(ctx, Scope{}, RecentChanged, struct{}{})
	require.ErrorIs(t, err, ErrClosed)
	require.ErrorIs(t, em.EmitDelta(ctx, Scope{}, textDelta, "x"), ErrClosed)
}

func TestUnencodablePayloadIsAnError(t *testing.T) {
	t.Parallel()
	em := NewEmitter(openDB(t))
	_, err := em.Emit(context.Background(), Scope{}, OllamaStatus, func() {})
	require.Error(t, err)
	require.Error(t, em.EmitDelta(context.Background(), Scope{}, textDelta, func() {}))
}

func TestEventJSONShape(t *testing.T) {
	t.Parallel()
	em := NewEmitter(openDB(t))
	ev, err := em.Emit(context.Background(), Scope{SessionID: "s", RunID: "r"}, OllamaStatus, map[string]string{"host": "h"})
	require.NoError(t, err)
	raw, err := json.Marshal(ev)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	for _, k := range []string{"id", "seq", "sessionId", "runId", "type", "payload", "time"} {
		require.Contains(t, m, k)
	}
	require.Equal(t, "h", m["payload"].(map[string]any)["host"])
}

// The TypeScript mirror must name every Go event type, so the frontend cannot silently miss one.
func TestTypeScriptMirrorListsEveryType(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(filepath.Join("..", "..", "frontend", "src", "lib", "events.ts"))
	require.NoError(t, err)
	for _, typ := range All {
		require.True(t, strings.Contains(string(src), `"`+string(typ)+`"`), "events.ts is missing %q", typ)
	}
}
