package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/events"
	"gantry/internal/llm/fakeollama"
)

func TestPromptCut(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                              string
		count, window, expected, previous int
		cut                               bool
	}{
		{"fits", 3000, 8192, 3100, 2500, false},
		{"no count", 0, 8192, 9000, 0, false},
		{"reaches the window", 8192, 8192, 6000, 0, true},
		{"within 2% of the window", 8100, 8192, 6000, 5000, true},
		{"fell below the previous prompt", 4000, 8192, 6000, 5000, true},
		{"a little below the previous (a template dropping old thinking)", 4800, 8192, 6000, 5000, false},
		{"far below a large expected prompt", 2000, 8192, 6000, 0, true},
		{"far below a tiny expected prompt: the estimate is off, nothing was cut", 150, 8192, 400, 0, false},
		{"the system prompt dropped (Ollama 0.6): 16 of about 2,000", 16, 4096, 2025, 0, true},
		{"a denser tokenizer than the estimate", 7000, 8192, 5000, 4000, false},
	}
	for _, tt := range tests {
		require.Equal(t, tt.cut, promptCut(tt.count, tt.window, tt.expected, tt.previous), tt.name)
	}
}

// promptCutFixture is a session whose model reads a large file, then main.go: the third
// answer is where a test makes Ollama cut the prompt.
func promptCutFixture(t *testing.T, third ...fakeollama.Turn) *runFixture {
	t.Helper()
	turns := []fakeollama.Turn{
		{Chunks: []fakeollama.Chunk{call("read_file", map[string]any{"path": "big.txt"})}},
		{Chunks: []fakeollama.Chunk{call("read_file", map[string]any{"path": "main.go"})}},
	}
	f := newRunFixtureWith(t, []fakeollama.Model{{Name: "coder:latest", ContextLength: 16384, Capabilities: []string{"completion", "tools"}}},
		append(turns, third...), nil)
	big := strings.Repeat("a fairly long line of text in a big file\n", 300)
	require.NoError(t, os.WriteFile(filepath.Join(f.root, "big.txt"), []byte(big), 0o644))
	return f
}

func (f *runFixture) cuts() []PromptCutPayload {
	return payloadsOf[PromptCutPayload](f, events.PromptCut)
}

// An answer to a prompt Ollama cut is set aside: the person is told, the conversation is
// compacted and the question asked again, and the run goes on from the new answer.
func TestRunPromptCutCompactsAndRetries(t *testing.T) {
	t.Parallel()
	for name, count := range map[string]int{"reaches the window": 16384, "fell below the previous": 500} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := promptCutFixture(t,
				fakeollama.Turn{Chunks: []fakeollama.Chunk{{Content: "gibberish from a model without its instructions"}}, PromptEvalCount: count},
				textTurn("Summary: read big.txt and main.go."),
				textTurn("Both read. [TASK_COMPLETE]"),
			)
			res := f.run(context.Background(), "coder", "Read big.txt and main.go")
			require.Equal(t, StatusDone, res.Status, res.Message)
			require.Equal(t, "Both read.", res.Message)

			cuts := f.cuts()
			require.Len(t, cuts, 1)
			require.Equal(t, PromptCutPayload{Iteration: 3, PromptTokens: count, Expected: cuts[0].Expected, Window: 16384, Retrying: true, Compacted: true}, cuts[0],
				"the prompt is already as lean as half the window would make it: only the history is compacted")
			var kinds []events.Type
			for _, ev := range f.log() {
				if ev.Type == events.PromptCut || ev.Type == events.ContextCompacted || ev.Type == events.RunFinished {
					kinds = append(kinds, ev.Type)
				}
			}
			require.Equal(t, []events.Type{events.PromptCut, events.ContextCompacted, events.RunFinished}, kinds)

			reqs := f.fake.Requests()
			retry := reqs[len(reqs)-1].Messages
			require.Contains(t, retry[len(retry)-3].Content, compactSummaryPrefix, "the retry is compacted")
			for _, m := range f.messages() {
				require.NotContains(t, m.Content, "gibberish", "the answer to the cut prompt is not history")
			}
			require.Equal(t, "Both read.", lastOf(f.texts(4)), "the retry's answer shows as an answer of its own")
		})
	}
}

// A prompt cut again after compacting stops the run with a plain explanation.
func TestRunPromptCutTwiceStops(t *testing.T) {
	t.Parallel()
	f := promptCutFixture(t,
		fakeollama.Turn{Chunks: []fakeollama.Chunk{{Content: "one"}}, PromptEvalCount: 16384},
		textTurn("Summary: read big.txt and main.go."),
		fakeollama.Turn{Chunks: []fakeollama.Chunk{call("write_file", map[string]any{"path": "x.go", "content": "x"})}, PromptEvalCount: 16384},
	)
	res := f.run(context.Background(), "coder", "Read big.txt and main.go")
	require.Equal(t, StatusFailed, res.Status)
	require.Contains(t, res.Message, "does not fit the model's context window of 16,384 tokens")
	cuts := f.cuts()
	require.Len(t, cuts, 2)
	require.True(t, cuts[0].Retrying)
	require.False(t, cuts[1].Retrying)
	require.NoFileExists(t, filepath.Join(f.root, "x.go"), "a call from a cut prompt never runs")
}

// A tokenizer four times as dense as the estimate makes even the first prompt too long: with
// nothing older to compact, the question is asked again with a leaner system prompt, which
// fits a 4k window; in a 2k window the prompt is as lean as it gets already, and the run stops
// rather than go on without its instructions.
func TestRunPromptCutByADenseTokenizer(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		window  int
		status  Status
		retried bool
	}{
		{4096, StatusDone, true},
		{2048, StatusFailed, false},
	} {
		t.Run(fmt.Sprint(tt.window), func(t *testing.T) {
			t.Parallel()
			f := newRunFixtureWith(t, []fakeollama.Model{{Name: "coder:latest", ContextLength: tt.window, BytesPerToken: 1, Capabilities: []string{"completion", "tools"}}},
				[]fakeollama.Turn{textTurn("I have no idea what I am doing."), textTurn("The bug is in greet.")}, nil)
			res := f.run(context.Background(), "coder", "Where is the bug?")
			require.Equal(t, tt.status, res.Status, res.Message)
			cuts := f.cuts()
			require.Len(t, cuts, 1)
			require.Equal(t, tt.retried, cuts[0].Retrying)
			require.Equal(t, tt.retried, cuts[0].Leaner, "nothing older to compact: only the prompt can shrink")
			require.False(t, cuts[0].Compacted)
			reqs := f.fake.Requests()
			if !tt.retried {
				require.Len(t, reqs, 1)
				require.Contains(t, res.Message, "Ollama read only 2,048 tokens")
				return
			}
			require.Len(t, reqs, 2)
			require.Equal(t, "The bug is in greet.", res.Message)
			require.Less(t, len(reqs[1].Messages[0].Content), len(reqs[0].Messages[0].Content), "the retry's system prompt is leaner")
			require.Less(t, len(reqs[1].Tools.String()), len(reqs[0].Tools.String()), "and so are its tools")
		})
	}
}

// What Ollama counted carries into the session's next run: after a dense tokenizer had the
// first run's prompt cut, the next run plans a prompt that fits from the start.
func TestRunLearnsTheTokenizer(t *testing.T) {
	t.Parallel()
	f := newRunFixtureWith(t, []fakeollama.Model{{Name: "coder:latest", ContextLength: 4096, BytesPerToken: 1, Capabilities: []string{"completion", "tools"}}},
		[]fakeollama.Turn{textTurn("No idea."), textTurn("The bug is in greet."),
			textTurn("Summary: the bug is in greet."), // the window is nearly full, by the real counts
			textTurn("Still greet.")}, nil)
	f.runner.deps.Density = &TokenDensity{}
	res := f.run(context.Background(), "coder", "Where is the bug?")
	require.Equal(t, StatusDone, res.Status, res.Message)
	require.Len(t, f.cuts(), 1)
	require.Greater(t, f.runner.deps.Density.Of("coder"), 2.0, "four bytes a token expected, one counted")

	res, err := f.runner.Run(context.Background(), runRequest(f, "run-2", "And now?"))
	require.NoError(t, err)
	require.Equal(t, "Still greet.", res.Message)
	require.Len(t, f.cuts(), 1, "the second run's prompt was not cut")
	reqs := f.fake.Requests()
	require.Contains(t, reqs[2].Messages[1].Content, "CONVERSATION", "compacted first: the density counts")
	require.Equal(t, len(reqs[1].Tools.String()), len(reqs[3].Tools.String()), "it starts with the leaner prompt's tools")
	require.NotContains(t, reqs[3].Messages[0].Content, "LARGER TASKS", "and its leaner system prompt")
}
