package fakeollama

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/require"
)

func userSays(text string) []api.Message {
	return []api.Message{{Role: "user", Content: text}}
}

// chat collects every streamed response, returning them with Chat's error.
func chat(t *testing.T, ctx context.Context, srv *Server, req api.ChatRequest) ([]api.ChatResponse, error) {
	t.Helper()
	var got []api.ChatResponse
	err := newClient(t, srv).Chat(ctx, &req, func(r api.ChatResponse) error {
		got = append(got, r)
		return nil
	})
	return got, err
}

func readFileTool() api.Tool {
	props := api.NewToolPropertiesMap()
	props.Set("path", api.ToolProperty{Type: api.PropertyType{"string"}, Description: "file to read"})
	props.Set("limit", api.ToolProperty{Type: api.PropertyType{"integer"}})
	return api.Tool{Type: "function", Function: api.ToolFunction{
		Name:       "read_file",
		Parameters: api.ToolFunctionParameters{Type: "object", Required: []string{"path"}, Properties: props},
	}}
}

func TestChatStreamsThinkingContentAndToolCalls(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{Models: []Model{qwen}, Turns: []Turn{{Chunks: []Chunk{
		{Thinking: "The user wants "},
		{Thinking: "the README."},
		{Content: "Reading it."},
		{ToolCalls: []ToolCall{
			{Name: "read_file", Arguments: map[string]any{"path": "README.md", "limit": 20, "opts": map[string]any{"raw": true}}},
			{Name: "list_dir", Arguments: map[string]any{"path": "."}},
		}},
	}}}})

	got, err := chat(t, t.Context(), srv, api.ChatRequest{
		Model:    "qwen3:4b",
		Messages: userSays("show me the readme"),
		Tools:    api.Tools{readFileTool()},
		Think:    &api.ThinkValue{Value: true},
		Options:  map[string]any{"num_ctx": 8192},
	})
	require.NoError(t, err)
	require.Len(t, got, 5)

	require.Equal(t, "The user wants ", got[0].Message.Thinking)
	require.Equal(t, "the README.", got[1].Message.Thinking)
	require.Equal(t, "Reading it.", got[2].Message.Content)
	for _, r := range got[:4] {
		require.Equal(t, "qwen3:4b", r.Model)
		require.Equal(t, "assistant", r.Message.Role)
		require.False(t, r.Done)
		require.False(t, r.CreatedAt.IsZero())
	}

	calls := got[3].Message.ToolCalls
	require.Len(t, calls, 2)
	require.Equal(t, "read_file", calls[0].Function.Name)
	require.Equal(t, 0, calls[0].Function.Index)
	require.Equal(t, 1, calls[1].Function.Index)
	require.Regexp(t, `^call_[a-z0-9]{8}$`, calls[0].ID)
	require.NotEqual(t, calls[0].ID, calls[1].ID)
	var keys []string
	for k := range calls[0].Function.Arguments.All() {
		keys = append(keys, k)
	}
	require.Equal(t, []string{"limit", "opts", "path"}, keys)
	require.Equal(t, map[string]any{"path": "README.md", "limit": float64(20), "opts": map[string]any{"raw": true}},
		calls[0].Function.Arguments.ToMap())
	require.Equal(t, `{"path":"."}`, calls[1].Function.Arguments.String())

	final := got[4]
	require.True(t, final.Done)
	require.Equal(t, "stop", final.DoneReason)
	require.Empty(t, final.Message.Content)
	require.Positive(t, final.PromptEvalCount)
	require.Positive(t, final.EvalCount)
	require.Positive(t, final.TotalDuration)
	require.Positive(t, final.LoadDuration)
	require.Positive(t, final.PromptEvalDuration)
	require.Positive(t, final.EvalDuration)

	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	require.Equal(t, "show me the readme", reqs[0].Messages[0].Content)
	require.True(t, reqs[0].Think.Bool())
	require.InDelta(t, 8192, reqs[0].Options["num_ctx"], 0)
	require.Equal(t, "read_file", reqs[0].Tools[0].Function.Name)
	props := reqs[0].Tools[0].Function.Parameters.Properties
	var propNames []string
	for k := range props.All() {
		propNames = append(propNames, k)
	}
	require.Equal(t, []string{"path", "limit"}, propNames, "tool schema properties keep the client's order")
}

func TestChatTurnsAreConsumedInOrderThenDefault(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{
		Models: []Model{gemma},
		Turns:  []Turn{{Chunks: []Chunk{{Content: "one"}}}},
	})
	srv.Enqueue(Turn{Chunks: []Chunk{{Content: "two"}}, DoneReason: "length", PromptEvalCount: 4000, EvalCount: 96})

	text := func() (string, api.ChatResponse) {
		got, err := chat(t, t.Context(), srv, api.ChatRequest{Model: "gemma3:1b", Messages: userSays("go")})
		require.NoError(t, err)
		var sb strings.Builder
		for _, r := range got {
			sb.WriteString(r.Message.Content)
		}
		return sb.String(), got[len(got)-1]
	}

	s, _ := text()
	require.Equal(t, "one", s)
	s, final := text()
	require.Equal(t, "two", s)
	require.Equal(t, "length", final.DoneReason)
	require.Equal(t, 4000, final.PromptEvalCount)
	require.Equal(t, 96, final.EvalCount)
	s, final = text()
	require.Equal(t, "OK", s)
	require.Equal(t, "stop", final.DoneReason)
}

// Interleaved conversations (a run and its subagents) each take their own turns, in order.
func TestChatTurnsAreRoutedByConversation(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{
		Models: []Model{gemma},
		Turns: []Turn{
			{When: "find the loader", Chunks: []Chunk{{Content: "sub one"}}},
			{Chunks: []Chunk{{Content: "parent one"}}},
			{When: "find the loader", Chunks: []Chunk{{Content: "sub two"}}},
		},
	})
	text := func(first string) string {
		msgs := []api.Message{{Role: "system", Content: "You are Gantry."}, {Role: "user", Content: first}, {Role: "assistant", Content: "…"}, {Role: "user", Content: "go on"}}
		got, err := chat(t, t.Context(), srv, api.ChatRequest{Model: "gemma3:1b", Messages: msgs})
		require.NoError(t, err)
		var sb strings.Builder
		for _, r := range got {
			sb.WriteString(r.Message.Content)
		}
		return sb.String()
	}
	require.Equal(t, "parent one", text("fix the build"), "a turn for another conversation is skipped")
	require.Equal(t, "sub one", text("Please find the loader."))
	require.Equal(t, "sub two", text("Please find the loader."))
	require.Equal(t, "OK", text("fix the build"))
}

func TestChatWithoutStreaming(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{Models: []Model{qwen}, Turns: []Turn{{Chunks: []Chunk{
		{Thinking: "hm"}, {Content: "Hel"}, {Content: "lo"},
		{ToolCalls: []ToolCall{{Name: "noop"}}},
	}}}})
	stream := false

	got, err := chat(t, t.Context(), srv, api.ChatRequest{
		Model: "qwen3:4b", Messages: userSays("hi"), Stream: &stream, Tools: api.Tools{readFileTool()},
	})
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.True(t, got[0].Done)
	require.Equal(t, "Hello", got[0].Message.Content)
	require.Equal(t, "hm", got[0].Message.Thinking)
	require.Len(t, got[0].Message.ToolCalls, 1)
	require.Equal(t, "noop", got[0].Message.ToolCalls[0].Function.Name)
	require.Positive(t, got[0].EvalCount)
}

func TestChatThinkingOnlyWhenTheModelThinksAndIsAllowedTo(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{Models: []Model{qwen, gemma}})
	turn := Turn{Chunks: []Chunk{{Thinking: "secret", Content: "answer"}}}

	for _, tc := range []struct {
		model string
		think *api.ThinkValue
		want  string
	}{
		{"qwen3:4b", nil, "secret"},
		{"qwen3:4b", &api.ThinkValue{Value: "high"}, "secret"},
		{"qwen3:4b", &api.ThinkValue{Value: false}, ""},
		{"gemma3:1b", nil, ""},
	} {
		srv.Enqueue(turn)
		got, err := chat(t, t.Context(), srv, api.ChatRequest{Model: tc.model, Messages: userSays("x"), Think: tc.think})
		require.NoError(t, err)
		require.Equal(t, tc.want, got[0].Message.Thinking, "%s think=%v", tc.model, tc.think)
		require.Equal(t, "answer", got[0].Message.Content)
	}
}

func TestChatRefusesLikeOllama(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{Models: []Model{qwen, gemma, embed}})

	for _, tc := range []struct {
		name string
		req  api.ChatRequest
		code int
		msg  string
	}{
		{"unknown model", api.ChatRequest{Model: "llama9:70b", Messages: userSays("x")},
			http.StatusNotFound, "model 'llama9:70b' not found"},
		{"no model", api.ChatRequest{Messages: userSays("x")},
			http.StatusBadRequest, "model is required"},
		{"embedding model", api.ChatRequest{Model: "nomic-embed-text", Messages: userSays("x")},
			http.StatusBadRequest, `"nomic-embed-text" does not support chat`},
		{"no tools", api.ChatRequest{Model: "gemma3:1b", Messages: userSays("x"), Tools: api.Tools{readFileTool()}},
			http.StatusBadRequest, "registry.ollama.ai/library/gemma3:1b does not support tools"},
		{"no thinking", api.ChatRequest{Model: "gemma3:1b", Messages: userSays("x"), Think: &api.ThinkValue{Value: true}},
			http.StatusBadRequest, `"gemma3:1b" does not support thinking`},
	} {
		_, err := chat(t, t.Context(), srv, tc.req)
		requireStatusError(t, err, tc.code, tc.msg)
	}
	require.Len(t, srv.Requests(), 5, "refused requests are recorded too")
}

func TestChatLoadAndUnloadWithoutMessages(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{Models: []Model{qwen}})

	got, err := chat(t, t.Context(), srv, api.ChatRequest{Model: "qwen3:4b"})
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, "load", got[0].DoneReason)

	got, err = chat(t, t.Context(), srv, api.ChatRequest{Model: "qwen3:4b", KeepAlive: &api.Duration{}})
	require.NoError(t, err)
	require.Equal(t, "unload", got[0].DoneReason)
}

func TestChatStatusFault(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{Models: []Model{qwen}, Turns: []Turn{
		{Status: http.StatusInternalServerError, Error: "llama runner process has terminated: exit status 2"},
		{Status: http.StatusServiceUnavailable},
	}})
	req := api.ChatRequest{Model: "qwen3:4b", Messages: userSays("x")}

	_, err := chat(t, t.Context(), srv, req)
	requireStatusError(t, err, http.StatusInternalServerError, "llama runner process has terminated: exit status 2")
	require.EqualError(t, err, "500 Internal Server Error: llama runner process has terminated: exit status 2")

	_, err = chat(t, t.Context(), srv, req)
	requireStatusError(t, err, http.StatusServiceUnavailable, "Service Unavailable")
}

func TestChatErrorMidStream(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{Models: []Model{qwen}, Turns: []Turn{
		{Chunks: []Chunk{{Content: "par"}, {Content: "tial"}}, StreamError: true, Error: "out of memory"},
		{StreamError: true, Error: "failed early"},
	}})
	req := api.ChatRequest{Model: "qwen3:4b", Messages: userSays("x")}

	got, err := chat(t, t.Context(), srv, req)
	require.EqualError(t, err, "out of memory")
	var se api.StatusError
	require.False(t, errors.As(err, &se), "after a 200 the error is a line in the stream, not a status")
	require.Len(t, got, 2)

	// Before anything was written Ollama still can, and does, send a status.
	_, err = chat(t, t.Context(), srv, req)
	requireStatusError(t, err, http.StatusInternalServerError, "failed early")
}

func TestChatCutAfterDropsTheConnection(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{Models: []Model{qwen}})
	srv.Enqueue(Turn{Chunks: []Chunk{{Content: "a"}, {Content: "b"}, {Content: "c"}}, CutAfter: 2})

	// api.Client's stream loop ignores the scanner's read error, so a dropped stream looks like
	// one that simply stopped: callers must treat "no done line" as the failure.
	got, err := chat(t, t.Context(), srv, api.ChatRequest{Model: "qwen3:4b", Messages: userSays("x")})
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.False(t, got[1].Done)

	// On the wire it is a chunked body that ends without its terminator.
	srv.Enqueue(Turn{Chunks: []Chunk{{Content: "a"}, {Content: "b"}}, CutAfter: 1})
	resp, err := http.Post(srv.URL()+"/api/chat", "application/json",
		strings.NewReader(`{"model":"qwen3:4b","messages":[{"role":"user","content":"x"}]}`))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "application/x-ndjson", resp.Header.Get("Content-Type"))
	lines := bufio.NewReader(resp.Body)
	line, err := lines.ReadBytes('\n')
	require.NoError(t, err)
	var first api.ChatResponse
	require.NoError(t, json.Unmarshal(line, &first))
	require.Equal(t, "a", first.Message.Content)
	_, err = io.ReadAll(lines)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
}

func TestChatCutWithoutStreamingGivesNoResponse(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{Models: []Model{qwen}, Turns: []Turn{{CutAfter: 1, Chunks: []Chunk{{Content: "a"}}}}})
	stream := false

	_, err := chat(t, t.Context(), srv, api.ChatRequest{Model: "qwen3:4b", Messages: userSays("x"), Stream: &stream})
	require.ErrorIs(t, err, io.EOF)
}

func TestChatDelays(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{Models: []Model{qwen}})
	req := api.ChatRequest{Model: "qwen3:4b", Messages: userSays("x")}

	srv.Enqueue(Turn{FirstDelay: 150 * time.Millisecond, ChunkDelay: 50 * time.Millisecond,
		Chunks: []Chunk{{Content: "a"}, {Content: "b"}}})
	start := time.Now()
	got, err := chat(t, t.Context(), srv, req)
	require.NoError(t, err)
	require.GreaterOrEqual(t, time.Since(start), 250*time.Millisecond)
	require.GreaterOrEqual(t, got[len(got)-1].TotalDuration, 250*time.Millisecond)

	srv.Enqueue(Turn{FirstDelay: time.Minute})
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start = time.Now()
	_, err = chat(t, ctx, srv, req)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, time.Since(start), time.Minute, "the delay ended with the client's context")
}

// A held turn answers once the test releases it, and not before.
func TestChatHeldTurnsWaitForRelease(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{Models: []Model{gemma}, Turns: []Turn{{Hold: "sub", Chunks: []Chunk{{Content: "late"}}}}})
	done := make(chan string, 1)
	go func() {
		got, err := chat(t, context.Background(), srv, api.ChatRequest{Model: "gemma3:1b", Messages: userSays("go")})
		if err != nil {
			done <- err.Error()
			return
		}
		done <- got[0].Message.Content
	}()
	require.NoError(t, srv.WaitHeld(t.Context(), "sub", 1))
	select {
	case s := <-done:
		t.Fatalf("answered before the release: %q", s)
	default:
	}
	srv.Release("sub")
	require.Equal(t, "late", <-done)
	require.Equal(t, 0, srv.Held("sub"))
}
