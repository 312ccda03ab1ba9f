package events

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/store"
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

func openDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

func TestEmitPersistsThenPostsInTheSameOrder(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	em := NewEmitter(db)
	rec := &recordingPoster{}
	em.Attach(rec)
	ctx := context.Background()

	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				_, err := em.Emit(ctx, Scope{SessionID: "s"}, RecentChanged, map[string]int{"g": g, "i": i})
				require.NoError(t, err)
			}
		}(g)
	}
	wg.Wait()

	stored, err := db.Events(ctx, "s")
	require.NoError(t, err)
	require.Len(t, stored, 80)
	require.Len(t, rec.events, 80)
	for i := range stored {
		require.Equal(t, stored[i].ID, rec.events[i].ID, "posted order is stored order")
		require.Equal(t, stored[i].Seq, rec.events[i].Seq)
		require.JSONEq(t, string(stored[i].Payload), string(rec.events[i].Payload))
	}
}

type failingLog struct{}

func (failingLog) AppendEvent(context.Context, store.EventRecord) (int64, error) {
	return 0, errors.New("disk full")
}

func TestNothingIsPostedWhenStoringFails(t *testing.T) {
	t.Parallel()
	em := NewEmitter(failingLog{})
	rec := &recordingPoster{}
	em.Attach(rec)
	_, err := em.Emit(context.Background(), Scope{}, OllamaStatus, map[string]bool{"reachable": true})
	require.ErrorContains(t, err, "disk full")
	require.Empty(t, rec.events)
}

func TestUnencodablePayloadIsAnError(t *testing.T) {
	t.Parallel()
	em := NewEmitter(openDB(t))
	_, err := em.Emit(context.Background(), Scope{}, OllamaStatus, func() {})
	require.Error(t, err)
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
