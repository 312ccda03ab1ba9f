package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/events"
	"gantry/internal/llm/fakeollama"
)

// eventWatcher receives the events a run posts, as the UI does.
type eventWatcher chan events.Event

func (w eventWatcher) Post(e events.Event) { w <- e }

// next waits for the next event of type typ, skipping others, and decodes its payload.
func (w eventWatcher) next(t *testing.T, typ events.Type, payload any) {
	t.Helper()
	for e := range w {
		if e.Type == typ {
			require.NoError(t, json.Unmarshal(e.Payload, payload))
			return
		}
	}
}

// watch attaches a watcher to the fixture's emitter.
func (f *runFixture) watch() eventWatcher {
	w := make(eventWatcher, 4096)
	f.emitter.Attach(w)
	return w
}

// The wait before the first token is named: the model loading, then the prompt being read,
// then the answer; each step is held by the fake until the test has seen it. A second answer
// finds the model loaded and only reads the prompt. Afterwards each answer reports Ollama's
// counts against the window.
func TestRunWaitingStates(t *testing.T) {
	t.Parallel()
	f := newRunFixtureScript(t, fakeollama.Script{
		Models: []fakeollama.Model{{Name: "coder:latest", ContextLength: 16384, Capabilities: []string{"completion", "tools"}}},
		Turns: []fakeollama.Turn{
			{Hold: "prefill 1", Chunks: []fakeollama.Chunk{call("read_file", map[string]any{"path": "main.go"})}},
			{Hold: "prefill 2", Chunks: []fakeollama.Chunk{{Content: "It greets, with a typo."}}},
		},
		HoldLoads: "load",
	}, nil)
	w := f.watch()
	done := make(chan RunResult, 1)
	go func() { done <- f.run(context.Background(), "coder", "What does main.go say?") }()

	var wait ModelWaitingPayload
	w.next(t, events.ModelWaiting, &wait)
	require.Equal(t, ModelWaitingPayload{Phase: WaitLoading, Model: "coder"}, wait)
	f.fake.Release("load")
	w.next(t, events.ModelWaiting, &wait)
	require.Equal(t, WaitPrefill, wait.Phase)
	require.Positive(t, wait.PromptTokens)
	f.fake.Release("prefill 1")
	w.next(t, events.ModelWaiting, &wait)
	require.Equal(t, WaitNone, wait.Phase)

	var usage ContextUsagePayload
	w.next(t, events.ContextUsage, &usage)
	require.Equal(t, 1, usage.Iteration)
	require.Equal(t, 16384, usage.Window)
	require.Positive(t, usage.PromptTokens)
	require.Positive(t, usage.AnswerTokens)
	require.Positive(t, usage.LoadMs+usage.PromptMs, "the held load and prefill took time")

	// The second answer: the model is loaded, so the first word is about the prompt.
	w.next(t, events.ModelWaiting, &wait)
	require.Equal(t, WaitPrefill, wait.Phase)
	require.Greater(t, wait.PromptTokens, usage.PromptTokens, "the prompt grew by the call and its result")
	f.fake.Release("prefill 2")
	w.next(t, events.ModelWaiting, &wait)
	require.Equal(t, WaitNone, wait.Phase)
	w.next(t, events.ContextUsage, &usage)
	require.Equal(t, 2, usage.Iteration)

	res := <-done
	require.Equal(t, StatusDone, res.Status, res.Message)
	require.Equal(t, []fakeollama.Load{{Model: "coder:latest", NumCtx: 16384}}, f.fake.Loads())
}

// One num_ctx for a model across the runs of a session, the compaction's summary and the
// closing summary included: the model is loaded once.
func TestRunOneNumCtx(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("a fairly long line of text in a big file\n", 150)
	f := newRunFixtureWith(t, []fakeollama.Model{{Name: "coder:latest", ContextLength: 4096, Capabilities: []string{"completion", "tools"}}},
		[]fakeollama.Turn{
			{Chunks: []fakeollama.Chunk{call("read_file", map[string]any{"path": "big.txt"})}},
			{Chunks: []fakeollama.Chunk{call("read_file", map[string]any{"path": "main.go"})}},
			textTurn("Summary: read big.txt and main.go."), // compaction
			textTurn("[TASK_COMPLETE]"),
			textTurn("Read both files."),          // the closing summary
			textTurn("Summary: read both files."), // the next run compacts its history again
			textTurn("Still the same."),
		}, nil)
	require.NoError(t, os.WriteFile(filepath.Join(f.root, "big.txt"), []byte(big), 0o644))
	ctx := context.Background()
	res := f.run(ctx, "coder", "Read big.txt and main.go")
	require.Equal(t, StatusDone, res.Status, res.Message)
	require.Equal(t, "Read both files.", res.Message)
	res, err := f.runner.Run(ctx, runRequest(f, "run-2", "And now?"))
	require.NoError(t, err)
	require.Equal(t, "Still the same.", res.Message)

	reqs := f.fake.Requests()
	require.Equal(t, 7, len(reqs))
	require.Contains(t, reqs[2].Messages[1].Content, "CONVERSATION", "the third request is the compaction's")
	for _, r := range reqs {
		require.Equal(t, float64(4096), r.Options["num_ctx"])
	}
	require.Equal(t, []fakeollama.Load{{Model: "coder:latest", NumCtx: 4096}}, f.fake.Loads())
}

func runRequest(f *runFixture, runID, text string) RunRequest {
	return RunRequest{SessionID: f.sessionID, RunID: runID, Workspace: f.root, Mode: ModeAgent, Model: "coder", Text: text}
}
