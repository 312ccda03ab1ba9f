// Command reopenbench measures the backend's share of reopening a long session, for `make
// bench`: the session of frontend/bench/reopen.mjs (60 runs, each thinking, reading two files,
// editing one and streaming a markdown answer word by word) is run through the real agent,
// tools, checkpoints, store and event log against a fake Ollama that answers at once; then its
// event log is replayed as the frontend asks for it (pages of 1,000, frontend/src/stores/
// chat.svelte.ts) and each page encoded as JSON, as `gantry serve` answers a bound call. Each
// time is the median of 9 replays. The same replay in one page of 5,000 (the most one call
// returns) and in pages of 100 show how much the paging costs.
//
// Each result is printed as one line "name<TAB>value<TAB>unit" so a script can tabulate it. The
// workspace and database are created under -dir (the system temp folder by default) and removed
// afterwards.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gantry/internal/agent"
	"gantry/internal/checkpoint"
	"gantry/internal/events"
	"gantry/internal/ignore"
	"gantry/internal/llm"
	"gantry/internal/llm/fakeollama"
	"gantry/internal/safety"
	"gantry/internal/store"
	"gantry/internal/tools"
)

const (
	runs     = 60
	replays  = 9
	uiPage   = 1000 // what the frontend asks for
	maxPage  = 5000 // what one call returns at most (app.replayMaxPage)
	tinyPage = 100
	model    = "qwen3:4b"
)

func main() {
	dir := flag.String("dir", "", "folder for the temporary files (default: the system temp folder)")
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "reopenbench:", err)
		os.Exit(1)
	}
}

func report(name string, value float64, unit string) {
	fmt.Printf("%s\t%.2f\t%s\n", name, value, unit)
}

func run(parent string) error {
	ctx := context.Background()
	root, err := os.MkdirTemp(parent, "reopenbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	db, sessionID, err := recordSession(ctx, root)
	if err != nil {
		return err
	}
	defer db.Close()
	emitter := events.NewEmitter(db)

	var count, bytes int
	replay := func(page int) (read, encode time.Duration, pages int, err error) {
		count, bytes = 0, 0
		var after int64
		for {
			start := time.Now()
			evs, err := emitter.Replay(ctx, sessionID, after, page)
			if err != nil {
				return 0, 0, 0, err
			}
			read += time.Since(start)
			start = time.Now()
			w := &countingWriter{}
			if err := json.NewEncoder(w).Encode(evs); err != nil {
				return 0, 0, 0, err
			}
			encode += time.Since(start)
			pages++
			count, bytes = count+len(evs), bytes+w.n
			if len(evs) < page {
				return read, encode, pages, nil
			}
			after = evs[len(evs)-1].Seq
		}
	}
	for _, c := range []struct {
		name string
		page int
	}{{"", uiPage}, {"_one_page", maxPage}, {"_pages_of_100", tinyPage}} {
		var reads, encodes, totals []time.Duration
		var pages int
		for range replays {
			read, encode, n, err := replay(c.page)
			if err != nil {
				return err
			}
			reads, encodes, totals, pages = append(reads, read), append(encodes, encode), append(totals, read+encode), n
		}
		if c.name == "" {
			report("session_runs", runs, "runs")
			report("session_events", float64(count), "events")
			report("session_events_json", float64(bytes)/1024, "KB")
		}
		report("replay"+c.name+"_pages", float64(pages), "pages")
		report("replay"+c.name+"_read", ms(median(reads)), "ms")
		report("replay"+c.name+"_encode", ms(median(encodes)), "ms")
		report("replay"+c.name+"_backend", ms(median(totals)), "ms")
	}
	return nil
}

// recordSession runs reopen.mjs's 60 turns and returns the database holding their events.
func recordSession(ctx context.Context, root string) (*store.DB, string, error) {
	ws := filepath.Join(root, "project")
	if err := os.Mkdir(ws, 0o755); err != nil {
		return nil, "", err
	}
	if err := os.WriteFile(filepath.Join(ws, "README.md"), []byte("# Bench 0\n"), 0o644); err != nil {
		return nil, "", err
	}
	if err := os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n"), 0o644); err != nil {
		return nil, "", err
	}
	fake := fakeollama.New(fakeollama.Script{
		Models: []fakeollama.Model{{Name: model, Arch: "qwen3", ContextLength: 40960, Capabilities: []string{"completion", "tools", "thinking"}}},
		Turns:  turns(),
	})
	if err := fake.Start("127.0.0.1:0"); err != nil {
		return nil, "", err
	}
	defer fake.Close()
	base, err := url.Parse(fake.URL())
	if err != nil {
		return nil, "", err
	}
	db, err := store.Open(ctx, filepath.Join(root, "data"))
	if err != nil {
		return nil, "", err
	}
	sess, err := db.CreateSession(ctx, store.Session{WorkspacePath: ws, Mode: "agent", Model: model})
	if err != nil {
		db.Close()
		return nil, "", err
	}
	emitter := events.NewEmitter(db)
	checkpoints := checkpoint.New(db, sess.ID)
	env := &tools.Env{
		Root: ws, Ignore: ignore.New(ws), Approver: tools.PolicyApprover{AllowEdits: true},
		Checkpoints: checkpoints.Checkpointer(), FileRules: safety.DefaultFileRules(),
	}
	reg := tools.NewRegistry()
	for _, t := range []tools.Tool{tools.ReadFile(env), tools.EditFile(env)} {
		if err := reg.Register(t); err != nil {
			db.Close()
			return nil, "", err
		}
	}
	runner := agent.NewRunner(agent.Deps{
		LLM: llm.NewClient(base, http.DefaultClient), Events: emitter, Messages: db, Tools: reg, Checkpoints: checkpoints,
	})
	for i := range runs {
		res, err := runner.Run(ctx, agent.RunRequest{
			SessionID: sess.ID, RunID: fmt.Sprintf("run-%02d", i), Workspace: ws, Mode: agent.ModeAgent, Model: model,
			Text: fmt.Sprintf("Task %d", i),
		})
		if err == nil && res.Status != agent.StatusDone {
			err = fmt.Errorf("run %d ended %s: %s", i, res.Status, res.Message)
		}
		if err != nil {
			db.Close()
			return nil, "", err
		}
	}
	if err := emitter.Close(ctx); err != nil {
		db.Close()
		return nil, "", err
	}
	return db, sess.ID, nil
}

// turns are reopen.mjs's: per run, thinking and two reads, an edit, and an answer streamed word
// by word.
func turns() []fakeollama.Turn {
	answer := strings.Repeat("Some explanation with `code` and **bold** text. ", 12) +
		"\n\n```go\nfunc main() {\n\tprintln(\"hi\")\n}\n```\n\nDone. [TASK_COMPLETE]"
	var words []fakeollama.Chunk
	for w := range strings.SplitAfterSeq(answer, " ") {
		words = append(words, fakeollama.Chunk{Content: w})
	}
	var out []fakeollama.Turn
	for i := range runs {
		out = append(out,
			fakeollama.Turn{Chunks: []fakeollama.Chunk{
				{Thinking: strings.Repeat("Let me look at the files first. ", 8)},
				{ToolCalls: []fakeollama.ToolCall{
					{Name: "read_file", Arguments: map[string]any{"path": "README.md"}},
					{Name: "read_file", Arguments: map[string]any{"path": "main.go"}},
				}},
			}},
			fakeollama.Turn{Chunks: []fakeollama.Chunk{{ToolCalls: []fakeollama.ToolCall{
				{Name: "edit_file", Arguments: map[string]any{"path": "README.md", "old": fmt.Sprintf("# Bench %d", i), "new": fmt.Sprintf("# Bench %d", i+1)}},
			}}}},
			fakeollama.Turn{Chunks: words},
		)
	}
	return out
}

type countingWriter struct{ n int }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

var _ io.Writer = (*countingWriter)(nil)

func median(ds []time.Duration) time.Duration {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[len(ds)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
