package agent

import (
	"context"
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
		{"far below a small expected prompt: the estimate is off, nothing was cut", 300, 8192, 1000, 0, false},
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
			require.Equal(t, PromptCutPayload{Iteration: 3, PromptTokens: count, Expected: cuts[0].Expected, Window: 16384, Retrying: true}, cuts[0])
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

// A tokenizer denser than the estimate makes even the first prompt too long; with nothing
// older to compact, the run stops at once rather than go on without its instructions.
func TestRunPromptCutByADenseTokenizer(t *testing.T) {
	t.Parallel()
	f := newRunFixtureWith(t, []fakeollama.Model{{Name: "coder:latest", ContextLength: 2048, BytesPerToken: 1, Capabilities: []string{"completion", "tools"}}},
		[]fakeollama.Turn{textTurn("I have no idea what I am doing.")}, nil)
	res := f.run(context.Background(), "coder", "Fix the bug")
	require.Equal(t, StatusFailed, res.Status)
	require.Contains(t, res.Message, "Ollama read only 2,048 tokens")
	cuts := f.cuts()
	require.Len(t, cuts, 1)
	require.False(t, cuts[0].Retrying)
	require.Equal(t, 2048, cuts[0].PromptTokens)
	require.Len(t, f.fake.Requests(), 1)
}

func TestThousands(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 16384: "16,384", 1234567: "1,234,567", -4096: "-4,096"} {
		require.Equal(t, want, thousands(n))
	}
}
