package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func record(id, session string, i int) EventRecord {
	return EventRecord{
		ID: id, SessionID: session, RunID: "r", Type: "t",
		Payload: json.RawMessage(fmt.Sprintf(`{"i":%d}`, i)), Time: time.UnixMilli(1_700_000_000_000 + int64(i)),
	}
}

// replayAll pages through a session's log the way a frontend does.
func replayAll(t *testing.T, db *DB, session string, page int) []EventRecord {
	t.Helper()
	var all []EventRecord
	var after int64
	for {
		got, err := db.ReplayEvents(context.Background(), session, after, page)
		require.NoError(t, err)
		require.LessOrEqual(t, len(got), page)
		if len(got) == 0 {
			return all
		}
		all = append(all, got...)
		after = got[len(got)-1].Seq
	}
}

func TestAppendEventsStoresABatchInOrder(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	ctx := context.Background()
	batch := []EventRecord{record("a", "s", 0), record("b", "s", 1), record("c", "s", 2)}
	seqs, err := db.AppendEvents(ctx, batch)
	require.NoError(t, err)
	require.Len(t, seqs, 3)
	require.Less(t, seqs[0], seqs[1])
	require.Less(t, seqs[1], seqs[2])

	got := replayAll(t, db, "s", 10)
	require.Len(t, got, 3)
	for i, e := range got {
		want := batch[i]
		want.Seq = seqs[i]
		want.Time = want.Time.UTC()
		require.Equal(t, want, e)
	}

	seqs, err = db.AppendEvents(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, seqs)
}

func TestAppendEventsIsAllOrNothing(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	ctx := context.Background()
	_, err := db.AppendEvents(ctx, []EventRecord{record("a", "s", 0)})
	require.NoError(t, err)
	_, err = db.AppendEvents(ctx, []EventRecord{record("b", "s", 1), record("a", "s", 2)})
	require.ErrorContains(t, err, "appending t event")
	got := replayAll(t, db, "s", 10)
	require.Len(t, got, 1, "the batch with a duplicate id left nothing behind")
	require.Equal(t, "a", got[0].ID)
}

func TestReplayEventsPagesBySeq(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	ctx := context.Background()
	// Three sessions interleaved, so a session's seqs have gaps as they do in real use.
	var mine []int64
	for i := range 10 {
		for _, s := range []string{"other", "s", ""} {
			seqs, err := db.AppendEvents(ctx, []EventRecord{record(fmt.Sprintf("%s-%d", s, i), s, i)})
			require.NoError(t, err)
			if s == "s" {
				mine = append(mine, seqs[0])
			}
		}
	}
	seqsOf := func(evs []EventRecord) []int64 {
		out := []int64{}
		for _, e := range evs {
			require.Equal(t, "s", e.SessionID)
			out = append(out, e.Seq)
		}
		return out
	}
	page := func(after int64, limit int) []int64 {
		got, err := db.ReplayEvents(ctx, "s", after, limit)
		require.NoError(t, err)
		return seqsOf(got)
	}

	require.Equal(t, mine[:3], page(0, 3))
	require.Equal(t, mine[3:6], page(mine[2], 3))
	require.Equal(t, mine[9:], page(mine[8], 3), "the last page is short")
	require.Empty(t, page(mine[9], 3), "nothing after the last event")
	require.Empty(t, page(mine[9]+1000, 3))
	require.Equal(t, mine, page(0, 1000), "a limit above the count returns everything")
	require.Equal(t, mine[5:6], page(mine[5]-1, 1), "afterSeq is exclusive")
	require.Equal(t, mine[6:7], page(mine[5], 1))
	require.Equal(t, mine, seqsOf(replayAll(t, db, "s", 4)))

	app, err := db.ReplayEvents(ctx, "", 0, 100)
	require.NoError(t, err)
	require.Len(t, app, 10, "app-wide events replay as their own log")

	for _, limit := range []int{0, -1} {
		_, err := db.ReplayEvents(ctx, "s", 0, limit)
		require.ErrorContains(t, err, "limit must be positive")
	}
}

// A long session is replayed page by page while the app runs: each page must be an index range
// scan on (session_id, seq), not a scan of every event ever stored.
func TestReplayEventsUsesTheSessionIndex(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	rows, err := db.sql.Query(`EXPLAIN QUERY PLAN
		SELECT seq, id, session_id, run_id, type, payload, created_at FROM events
		WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?`, "s", 0, 10)
	require.NoError(t, err)
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		require.NoError(t, rows.Scan(&id, &parent, &notused, &detail))
		plan = append(plan, detail)
	}
	require.NoError(t, rows.Err())
	joined := strings.Join(plan, "\n")
	require.Contains(t, joined, "events_session")
	require.NotContains(t, joined, "TEMP B-TREE", "rows come out of the index already in order")
}

func TestEventsKeepOrderUnderConcurrentWriters(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i += 5 {
				var batch []EventRecord
				for j := i; j < i+5; j++ {
					batch = append(batch, record(fmt.Sprintf("w%d-%d", w, j), "s1", w*100+j))
				}
				_, err := db.AppendEvents(ctx, batch)
				require.NoError(t, err)
			}
		}()
	}
	wg.Wait()
	evs := replayAll(t, db, "s1", 30)
	require.Len(t, evs, 100)
	last := map[int]int{0: -1, 1: -1, 2: -1, 3: -1}
	for _, e := range evs {
		var p map[string]int
		require.NoError(t, json.Unmarshal(e.Payload, &p))
		w, i := p["i"]/100, p["i"]%100
		require.Greater(t, i, last[w], "each writer's events stay in its order")
		last[w] = i
	}
}

func TestPruneAppEventsKeepsSessionEvents(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	ctx := context.Background()
	old := time.Now().Add(-30 * 24 * time.Hour)
	for i, sid := range []string{"", "s"} {
		e := record(fmt.Sprint(i), sid, i)
		e.Time = old
		_, err := db.AppendEvents(ctx, []EventRecord{e})
		require.NoError(t, err)
	}
	require.NoError(t, db.PruneAppEvents(ctx, time.Now().Add(-7*24*time.Hour)))
	require.Empty(t, replayAll(t, db, "", 10))
	require.Len(t, replayAll(t, db, "s", 10), 1)
}

// BenchmarkReplayEvents reads back a session the size of reopenbench's (1,260 events of about
// 300 bytes) the way the frontend pages through it, for profiling the store's part of reopening.
func BenchmarkReplayEvents(b *testing.B) {
	db, _ := openTest(b)
	ctx := context.Background()
	text := strings.Repeat("Some explanation with `code` and **bold** text. ", 5)
	evs := make([]EventRecord, 1260)
	for i := range evs {
		evs[i] = record(fmt.Sprintf("e%d", i), "s", i)
		evs[i].Payload = json.RawMessage(fmt.Sprintf(`{"i":%d,"text":%q}`, i, text))
	}
	_, err := db.AppendEvents(ctx, evs)
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		var after int64
		for {
			page, err := db.ReplayEvents(ctx, "s", after, 1000)
			require.NoError(b, err)
			if len(page) < 1000 {
				break
			}
			after = page[len(page)-1].Seq
		}
	}
}
