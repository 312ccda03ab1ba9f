package fakeollama

import (
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/require"
)

// A model is loaded by the first request for it and again when num_ctx changes; /api/ps lists
// it with its context length; keep_alive 0 unloads it.
func TestMemoryLoadsOncePerNumCtx(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{Models: []Model{qwen}})
	c := newClient(t, srv)
	ctx := t.Context()

	ps, err := c.ListRunning(ctx)
	require.NoError(t, err)
	require.Empty(t, ps.Models)

	for _, numCtx := range []int{8192, 8192, 16384} {
		_, err := chat(t, ctx, srv, api.ChatRequest{Model: "qwen3:4b", Messages: userSays("hi"), Options: map[string]any{"num_ctx": numCtx}})
		require.NoError(t, err)
	}
	// A load request (no messages) with the same num_ctx finds the model loaded.
	got, err := chat(t, ctx, srv, api.ChatRequest{Model: "qwen3:4b", Options: map[string]any{"num_ctx": 16384}})
	require.NoError(t, err)
	require.Equal(t, "load", got[len(got)-1].DoneReason)
	require.Equal(t, []Load{{"qwen3:4b", 8192}, {"qwen3:4b", 16384}}, srv.Loads())

	ps, err = c.ListRunning(ctx)
	require.NoError(t, err)
	require.Len(t, ps.Models, 1)
	require.Equal(t, "qwen3:4b", ps.Models[0].Name)
	require.Equal(t, 16384, ps.Models[0].ContextLength)

	_, err = chat(t, ctx, srv, api.ChatRequest{Model: "qwen3:4b", KeepAlive: &api.Duration{}})
	require.NoError(t, err)
	ps, err = c.ListRunning(ctx)
	require.NoError(t, err)
	require.Empty(t, ps.Models)
}

// A held load and a held turn (the model reading its prompt) wait for the test; the load shows
// in /api/ps while it is under way, and the final message reports how long each took.
func TestMemoryGates(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{Models: []Model{qwen}, HoldLoads: "load", Turns: []Turn{
		{Hold: "prefill", Chunks: []Chunk{{Content: "Hello."}}},
	}})
	c := newClient(t, srv)
	type result struct {
		resps []api.ChatResponse
		err   error
	}
	done := make(chan result, 1)
	go func() {
		r, err := chat(t, t.Context(), srv, api.ChatRequest{Model: "qwen3:4b", Messages: userSays("hi")})
		done <- result{r, err}
	}()

	require.NoError(t, srv.WaitHeld(t.Context(), "load", 1))
	ps, err := c.ListRunning(t.Context())
	require.NoError(t, err)
	require.Len(t, ps.Models, 1, "a model being loaded is listed")
	require.Equal(t, defaultNumCtx, ps.Models[0].ContextLength)
	srv.Release("load")
	require.NoError(t, srv.WaitHeld(t.Context(), "prefill", 1))
	srv.Release("prefill")
	r := <-done
	require.NoError(t, r.err)
	last := r.resps[len(r.resps)-1]
	require.True(t, last.Done)
	require.Positive(t, last.LoadDuration)
	require.Greater(t, last.PromptEvalDuration, time.Duration(last.PromptEvalCount)*400*time.Microsecond)
}

// The prompt count is cut to num_ctx as Ollama cuts it: older messages go first, the system
// prompt and the last message stay; a last message larger than the window leaves num_ctx.
func TestMemoryPromptCut(t *testing.T) {
	t.Parallel()
	msgs := []api.Message{
		{Role: "system", Content: strings.Repeat("s", 400)}, // 104 tokens at 4 bytes
		{Role: "user", Content: strings.Repeat("a", 800)},   // 204
		{Role: "assistant", Content: strings.Repeat("b", 800)},
		{Role: "user", Content: strings.Repeat("c", 400)}, // 104
	}
	tests := []struct {
		name   string
		numCtx int
		bpt    int
		want   int
	}{
		{"fits", 1000, 4, 104 + 204 + 204 + 104},
		{"oldest dropped", 500, 4, 104 + 204 + 104},
		{"only system and last", 300, 4, 104 + 104},
		{"runner keeps the window", 150, 4, 150},
		{"a denser tokenizer counts more", 2000, 2, 204 + 404 + 404 + 204},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := qwen
			m.BytesPerToken = tt.bpt
			srv := NewTest(t, Script{Models: []Model{m}})
			got, err := chat(t, t.Context(), srv, api.ChatRequest{Model: "qwen3:4b", Messages: msgs, Options: map[string]any{"num_ctx": tt.numCtx}})
			require.NoError(t, err)
			require.Equal(t, tt.want, got[len(got)-1].PromptEvalCount)
		})
	}
}

// A rule answers the requests it matches every time, and the queued turns wait for the rest.
func TestRulesLeaveTheQueueAlone(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{Models: []Model{qwen},
		Rules: []Rule{{Contains: "weather", Turn: Turn{Chunks: []Chunk{{Content: "Sunny."}}}}},
		Turns: []Turn{{Chunks: []Chunk{{Content: "First."}}}, {Chunks: []Chunk{{Content: "Second."}}}},
	})
	for _, tt := range []struct{ ask, want string }{
		{"the weather?", "Sunny."}, {"hello", "First."}, {"weather again", "Sunny."}, {"and?", "Second."},
	} {
		got, err := chat(t, t.Context(), srv, api.ChatRequest{Model: "qwen3:4b", Messages: userSays(tt.ask)})
		require.NoError(t, err)
		require.Equal(t, tt.want, got[0].Message.Content, tt.ask)
	}
}
