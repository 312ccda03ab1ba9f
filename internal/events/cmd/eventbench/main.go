// Command eventbench measures the UI event log for `make bench`: 10,000 events of one session (90%
// streamed deltas, 10% state changes, the mix of a model answering and running tools) appended
// through the emitter to a fresh database, then replayed in pages of 500 as a reopened session
// is. For comparison the same events are appended with every one written at once, as before
// deltas were batched.
//
// Each result is printed as one line "name<TAB>value<TAB>unit" so a script can tabulate it. The
// databases are created under -dir (the system temp folder by default) and removed afterwards.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"gantry/internal/events"
	"gantry/internal/store"
)

const (
	total    = 10_000
	pageSize = 500
)

func main() {
	dir := flag.String("dir", "", "folder for the temporary databases (default: the system temp folder)")
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "eventbench:", err)
		os.Exit(1)
	}
}

func report(name string, value float64, unit string) {
	fmt.Printf("%s\t%.2f\t%s\n", name, value, unit)
}

// countingLog counts write transactions.
type countingLog struct {
	*store.DB
	txs atomic.Int64
}

func (c *countingLog) AppendEvents(ctx context.Context, evs []store.EventRecord) ([]int64, error) {
	c.txs.Add(1)
	return c.DB.AppendEvents(ctx, evs)
}

// discard stands in for the window: posting must not be what is measured.
type discard struct{ n atomic.Int64 }

func (d *discard) Post(events.Event) { d.n.Add(1) }

type deltaPayload struct {
	Text string `json:"text"`
}

type actionPayload struct {
	Tool   string `json:"tool"`
	Status string `json:"status"`
	Detail string `json:"detail"`
}

func run(parent string) error {
	ctx := context.Background()
	batched, err := appendAll(ctx, parent, true)
	if err != nil {
		return err
	}
	defer batched.cleanup()
	unbatched, err := appendAll(ctx, parent, false)
	if err != nil {
		return err
	}
	defer unbatched.cleanup()

	start := time.Now()
	var after int64
	replayed, pages := 0, 0
	for {
		page, err := batched.emitter.Replay(ctx, "bench", after, pageSize)
		if err != nil {
			return err
		}
		if len(page) == 0 {
			break
		}
		replayed += len(page)
		pages++
		after = page[len(page)-1].Seq
	}
	replayWall := time.Since(start)
	if replayed != total {
		return fmt.Errorf("replayed %d events, appended %d", replayed, total)
	}
	// Closing the last connection checkpoints the write-ahead log into the file and removes it.
	if err := batched.db.Close(); err != nil {
		return err
	}
	st, err := os.Stat(batched.db.Path())
	if err != nil {
		return err
	}

	report("events_appended", total, "events")
	report("append_wall", ms(batched.wall), "ms")
	report("append_rate", total/batched.wall.Seconds(), "events/s")
	report("append_transactions", float64(batched.log.txs.Load()), "tx")
	report("append_wall_unbatched", ms(unbatched.wall), "ms")
	report("append_rate_unbatched", total/unbatched.wall.Seconds(), "events/s")
	report("append_transactions_unbatched", float64(unbatched.log.txs.Load()), "tx")
	report("replay_wall", ms(replayWall), "ms")
	report("replay_pages", float64(pages), "pages")
	report("replay_rate", total/replayWall.Seconds(), "events/s")
	report("db_size", float64(st.Size())/1024, "KB")
	return nil
}

type appended struct {
	db      *store.DB
	log     *countingLog
	emitter *events.Emitter
	wall    time.Duration
	cleanup func()
}

// appendAll emits the mix into a fresh database: every tenth event is a state change, the rest
// are deltas, through EmitDelta when batched and through Emit otherwise.
func appendAll(ctx context.Context, parent string, batched bool) (*appended, error) {
	dir, err := os.MkdirTemp(parent, "eventbench-")
	if err != nil {
		return nil, err
	}
	db, err := store.Open(ctx, dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// Closing twice is harmless: database/sql ignores the second Close.
	a := &appended{db: db, log: &countingLog{DB: db}, cleanup: func() { db.Close(); os.RemoveAll(dir) }}
	a.emitter = events.NewEmitter(a.log)
	window := &discard{}
	a.emitter.Attach(window)

	text := strings.Repeat("token ", 3)
	start := time.Now()
	for i := range total {
		scope := events.Scope{SessionID: "bench", RunID: fmt.Sprintf("run-%d", i/1000)}
		switch {
		case i%10 == 9:
			_, err = a.emitter.Emit(ctx, scope, "toolAction", actionPayload{Tool: "read_file", Status: "success", Detail: "internal/events/events.go"})
		case batched:
			err = a.emitter.EmitDelta(ctx, scope, "textDelta", deltaPayload{Text: text})
		default:
			_, err = a.emitter.Emit(ctx, scope, "textDelta", deltaPayload{Text: text})
		}
		if err != nil {
			a.cleanup()
			return nil, err
		}
	}
	if err := a.emitter.Close(ctx); err != nil {
		a.cleanup()
		return nil, err
	}
	a.wall = time.Since(start)
	if n := window.n.Load(); n != total {
		a.cleanup()
		return nil, fmt.Errorf("posted %d events, emitted %d", n, total)
	}
	return a, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
