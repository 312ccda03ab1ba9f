package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/require"

	"gantry/internal/llm/fakeollama"
)

func userSays(text string) []api.Message {
	return []api.Message{{Role: "user", Content: text}}
}

// collect returns an onChunk that appends to chunks.
func collect(chunks *[]Chunk) func(Chunk) error {
	return func(c Chunk) error {
		*chunks = append(*chunks, c)
		return nil
	}
}

func TestChatStreamsThinkingContentAndNativeToolCalls(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestClient(t, fakeollama.Script{Models: testModels, Turns: []fakeollama.Turn{{
		Chunks: []fakeollama.Chunk{
			{Thinking: "The user wants "},
			{Thinking: "a file."},
			{Content: "Writing it now."},
			{ToolCalls: []fakeollama.ToolCall{
				{Name: "write_file", Arguments: map[string]any{"path": "a.go", "content": "package a\n\nfunc A() {}\n"}},
				{Name: "read_file", Arguments: map[string]any{"path": "b.go", "limit": 10}},
			}},
		},
		PromptEvalCount: 321,
		EvalCount:       45,
	}}})
	tools := api.Tools{{Type: "function", Function: api.ToolFunction{Name: "write_file", Description: "Write a file."}}}

	var chunks []Chunk
	resp, err := c.Chat(t.Context(), ChatRequest{
		Model: "qwen3:4b", Messages: userSays("create a.go"), Tools: tools,
		Think: true, NumCtx: 32768, NumPredict: 2048, KeepAlive: 10 * time.Minute,
	}, collect(&chunks))
	require.NoError(t, err)

	require.Len(t, chunks, 4)
	require.Equal(t, Chunk{Thinking: "The user wants "}, chunks[0])
	require.Equal(t, "Writing it now.", chunks[2].Content)
	require.Len(t, chunks[3].ToolCalls, 2)

	require.Equal(t, "The user wants a file.", resp.Thinking)
	require.Equal(t, "Writing it now.", resp.Content)
	require.Len(t, resp.ToolCalls, 2)
	require.Equal(t, "write_file", resp.ToolCalls[0].Function.Name)
	require.Equal(t, map[string]any{"path": "a.go", "content": "package a\n\nfunc A() {}\n"},
		resp.ToolCalls[0].Function.Arguments.ToMap())
	require.Equal(t, map[string]any{"path": "b.go", "limit": float64(10)}, resp.ToolCalls[1].Function.Arguments.ToMap())
	require.Equal(t, "stop", resp.DoneReason)
	require.False(t, resp.Truncated)
	require.Equal(t, 321, resp.PromptEvalCount)
	require.Equal(t, 45, resp.EvalCount)
	require.Positive(t, resp.TotalDuration)

	reqs := fake.Requests()
	require.Len(t, reqs, 1)
	require.Equal(t, "qwen3:4b", reqs[0].Model)
	require.True(t, reqs[0].Think.Bool())
	require.Equal(t, map[string]any{"num_ctx": float64(32768), "num_predict": float64(2048)}, reqs[0].Options)
	require.Equal(t, 10*time.Minute, reqs[0].KeepAlive.Duration)
	require.Equal(t, "write_file", reqs[0].Tools[0].Function.Name)
}

func TestChatLeavesThinkOutWhenNotAsked(t *testing.T) {
	t.Parallel()
	c, fake, rec := newTestClient(t, fakeollama.Script{Models: testModels})

	// llava cannot think: the fake, like Ollama, would refuse think:true.
	resp, err := c.Chat(t.Context(), ChatRequest{Model: "llava:7b", Messages: userSays("hi"), NumCtx: 4096}, nil)
	require.NoError(t, err)
	require.Equal(t, "OK", resp.Content)

	var body map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(rec.lastBody("/api/chat"), &body))
	require.NotContains(t, body, "think")
	require.NotContains(t, body, "tools")
	require.NotContains(t, body, "keep_alive")
	require.JSONEq(t, `{"num_ctx": 4096}`, string(body["options"]))
	require.Nil(t, fake.Requests()[0].Think)
}

func TestChatStreamCutKeepsPartialReply(t *testing.T) {
	t.Parallel()
	c, _, _ := newTestClient(t, fakeollama.Script{Models: testModels, Turns: []fakeollama.Turn{{
		Chunks:   []fakeollama.Chunk{{Content: "Hello "}, {Content: "wor"}, {Content: "ld"}},
		CutAfter: 2,
	}}})

	var chunks []Chunk
	resp, err := c.Chat(t.Context(), ChatRequest{Model: "qwen3:4b", Messages: userSays("hi")}, collect(&chunks))
	require.ErrorIs(t, err, ErrStreamCut)
	require.EqualError(t, err, "Ollama stopped answering in the middle of the reply")
	require.Equal(t, "Hello wor", resp.Content)
	require.Len(t, chunks, 2)
}

func TestChatStreamErrorLine(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestClient(t, fakeollama.Script{Models: testModels, Turns: []fakeollama.Turn{{
		Chunks:      []fakeollama.Chunk{{Content: "Partial"}},
		StreamError: true,
		Error:       "llama runner process has terminated: CUDA error: out of memory",
	}}})

	resp, err := c.Chat(t.Context(), ChatRequest{Model: "qwen3:4b", Messages: userSays("hi")}, nil)
	require.ErrorContains(t, err, "llama runner process has terminated: CUDA error: out of memory")
	require.NotErrorIs(t, err, ErrStreamCut)
	require.Equal(t, "Partial", resp.Content)
	require.Len(t, fake.Requests(), 1, "text was delivered, so no retry")
}

func TestChatRetries5xxBeforeAnythingArrived(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestClient(t, fakeollama.Script{Models: testModels, Turns: []fakeollama.Turn{
		{Status: http.StatusInternalServerError, Error: "failed to load model"},
		{Status: http.StatusServiceUnavailable},
		{Chunks: []fakeollama.Chunk{{Content: "Recovered."}}},
	}})
	c.retryDelays = []time.Duration{time.Millisecond, time.Millisecond}

	var chunks []Chunk
	resp, err := c.Chat(t.Context(), ChatRequest{Model: "qwen3:4b", Messages: userSays("hi")}, collect(&chunks))
	require.NoError(t, err)
	require.Equal(t, "Recovered.", resp.Content)
	require.Equal(t, []Chunk{{Content: "Recovered."}}, chunks)
	require.Len(t, fake.Requests(), 3)
}

func TestChatGivesUpAfterThree5xx(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestClient(t, fakeollama.Script{Models: testModels, Turns: []fakeollama.Turn{
		{Status: http.StatusInternalServerError, Error: "failed to load model"},
		{Status: http.StatusInternalServerError, Error: "failed to load model"},
		{Status: http.StatusInternalServerError, Error: "failed to load model"},
		{Chunks: []fakeollama.Chunk{{Content: "too late"}}},
	}})
	c.retryDelays = []time.Duration{time.Millisecond, time.Millisecond}

	_, err := c.Chat(t.Context(), ChatRequest{Model: "qwen3:4b", Messages: userSays("hi")}, nil)
	var httpErr *HTTPError
	require.ErrorAs(t, err, &httpErr)
	require.Equal(t, &HTTPError{Status: 500, Message: "failed to load model"}, httpErr)
	require.True(t, httpErr.Retryable())
	require.EqualError(t, err, "Ollama answered 500 Internal Server Error: failed to load model")
	require.Len(t, fake.Requests(), 3)
}

func TestChatDoesNotRetry4xx(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestClient(t, fakeollama.Script{Models: testModels})
	c.retryDelays = []time.Duration{time.Millisecond, time.Millisecond}

	// Ollama refuses tools for a model without the capability.
	tools := api.Tools{{Type: "function", Function: api.ToolFunction{Name: "read_file"}}}
	_, err := c.Chat(t.Context(), ChatRequest{Model: "llava:7b", Messages: userSays("hi"), Tools: tools}, nil)
	var httpErr *HTTPError
	require.ErrorAs(t, err, &httpErr)
	require.Equal(t, http.StatusBadRequest, httpErr.Status)
	require.False(t, httpErr.Retryable())
	require.Contains(t, httpErr.Message, "does not support tools")
	require.Len(t, fake.Requests(), 1)
}

func TestChatCancelledDuringBackoff(t *testing.T) {
	t.Parallel()
	c, _, _ := newTestClient(t, fakeollama.Script{Models: testModels, Turns: []fakeollama.Turn{
		{Status: http.StatusInternalServerError},
	}})
	c.retryDelays = []time.Duration{time.Minute, time.Minute}
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()

	start := time.Now()
	_, err := c.Chat(ctx, ChatRequest{Model: "qwen3:4b", Messages: userSays("hi")}, nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, time.Since(start), time.Minute, "the wait before the retry ended with the context")
}

func TestChatCancelledMidStream(t *testing.T) {
	t.Parallel()
	c, _, _ := newTestClient(t, fakeollama.Script{Models: testModels, Turns: []fakeollama.Turn{{
		Chunks:     []fakeollama.Chunk{{Content: "one "}, {Content: "two "}, {Content: "three"}},
		ChunkDelay: time.Minute,
	}}})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	start := time.Now()
	resp, err := c.Chat(ctx, ChatRequest{Model: "qwen3:4b", Messages: userSays("hi")}, func(Chunk) error {
		time.AfterFunc(50*time.Millisecond, cancel)
		return nil
	})
	require.ErrorIs(t, err, context.Canceled)
	require.Less(t, time.Since(start), time.Minute, "the stop cut the wait for the next chunk")
	require.Equal(t, "one ", resp.Content)
}

func TestChatCancelledBeforeFirstChunk(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestClient(t, fakeollama.Script{Models: testModels, Turns: []fakeollama.Turn{{
		Chunks: []fakeollama.Chunk{{Content: "slow"}}, FirstDelay: time.Minute,
	}}})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	start := time.Now()
	failed := make(chan error, 1)
	go func() {
		_, err := c.Chat(ctx, ChatRequest{Model: "qwen3:4b", Messages: userSays("hi")}, nil)
		failed <- err
	}()
	// Stopped while the server holds the request, before any answer.
	require.Eventually(t, func() bool { return len(fake.Requests()) == 1 }, 10*time.Second, time.Millisecond)
	cancel()
	err := <-failed
	require.ErrorIs(t, err, context.Canceled)
	require.NotErrorIs(t, err, ErrUnreachable)
	require.Less(t, time.Since(start), time.Minute, "the stop cut the wait for the first chunk")
}

func TestChatOnChunkErrorStopsTheStream(t *testing.T) {
	t.Parallel()
	c, _, _ := newTestClient(t, fakeollama.Script{Models: testModels, Turns: []fakeollama.Turn{{
		Chunks: []fakeollama.Chunk{{Content: "a"}, {Content: "b"}, {Content: "c"}},
	}}})
	stop := errors.New("storage full")

	resp, err := c.Chat(t.Context(), ChatRequest{Model: "qwen3:4b", Messages: userSays("hi")}, func(ch Chunk) error {
		if ch.Content == "b" {
			return stop
		}
		return nil
	})
	require.ErrorIs(t, err, stop)
	require.Equal(t, "ab", resp.Content)
}

func TestChatReportsLengthLimit(t *testing.T) {
	t.Parallel()
	c, _, _ := newTestClient(t, fakeollama.Script{Models: testModels, Turns: []fakeollama.Turn{{
		Chunks: []fakeollama.Chunk{{Content: "The answer is cut"}}, DoneReason: "length",
	}}})

	resp, err := c.Chat(t.Context(), ChatRequest{Model: "qwen3:4b", Messages: userSays("hi"), NumPredict: 5}, nil)
	require.NoError(t, err)
	require.True(t, resp.Truncated)
	require.Equal(t, "length", resp.DoneReason)
	require.Equal(t, "The answer is cut", resp.Content)
}

func TestChatModelNotFound(t *testing.T) {
	t.Parallel()
	c, _, _ := newTestClient(t, fakeollama.Script{Models: testModels[:1]})

	_, err := c.Chat(t.Context(), ChatRequest{Model: "mistral", Messages: userSays("hi")}, nil)
	var notFound *ModelNotFoundError
	require.ErrorAs(t, err, &notFound)
	require.Equal(t, []string{"qwen3:4b"}, notFound.Installed)
}

func TestChatUnreachable(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestClient(t, fakeollama.Script{Models: testModels})
	require.NoError(t, fake.SetDown(true))
	c.retryDelays = []time.Duration{time.Minute, time.Minute}

	start := time.Now()
	_, err := c.Chat(t.Context(), ChatRequest{Model: "qwen3:4b", Messages: userSays("hi")}, nil)
	require.ErrorIs(t, err, ErrUnreachable)
	require.Contains(t, err.Error(), c.base.Host)
	require.Contains(t, err.Error(), "ollama serve")
	require.Less(t, time.Since(start), time.Minute, "connection errors are not retried (a retry would wait a minute first)")
}
