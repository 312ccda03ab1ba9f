package fakeollama

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/require"
)

func post(t *testing.T, u, body string) (int, string) {
	t.Helper()
	return send(t, http.MethodPost, u, body)
}

func TestScriptJSONUsesMillisecondsForDurations(t *testing.T) {
	t.Parallel()
	s := Script{
		Version:   "0.17.4",
		Models:    []Model{qwen},
		Turns:     []Turn{{FirstDelay: 1500 * time.Millisecond, ChunkDelay: 20 * time.Millisecond, CutAfter: 2}},
		PullDelay: 250 * time.Millisecond,
	}
	b, err := json.Marshal(s)
	require.NoError(t, err)
	require.Contains(t, string(b), `"pullDelayMs":250`)
	require.Contains(t, string(b), `"firstDelayMs":1500,"chunkDelayMs":20`)
	require.Contains(t, string(b), `"contextLength":40960`)

	var back Script
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, s, back)
}

func TestControlEndpoints(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{Models: []Model{gemma}})
	c := newClient(t, srv)

	status, body := post(t, srv.URL()+"/_fake/script", `{
		"version": "0.18.0",
		"models": [{"name": "qwen3:4b", "arch": "qwen3", "contextLength": 40960, "capabilities": ["completion", "tools"]}],
		"turns": [{"chunks": [{"content": "scripted"}], "firstDelayMs": 1}]
	}`)
	require.Equal(t, http.StatusNoContent, status, body)

	v, err := c.Version(t.Context())
	require.NoError(t, err)
	require.Equal(t, "0.18.0", v)
	show, err := c.Show(t.Context(), &api.ShowRequest{Model: "qwen3:4b"})
	require.NoError(t, err)
	require.InDelta(t, 40960, show.ModelInfo["qwen3.context_length"], 0)

	status, body = post(t, srv.URL()+"/_fake/turns",
		`[{"chunks": [{"toolCalls": [{"name": "read_file", "arguments": {"path": "a.go"}}]}]}]`)
	require.Equal(t, http.StatusNoContent, status, body)

	got, err := chat(t, t.Context(), srv, api.ChatRequest{Model: "qwen3:4b", Messages: userSays("first")})
	require.NoError(t, err)
	require.Equal(t, "scripted", got[0].Message.Content)
	got, err = chat(t, t.Context(), srv, api.ChatRequest{Model: "qwen3:4b", Messages: userSays("second")})
	require.NoError(t, err)
	require.Equal(t, `{"path":"a.go"}`, got[0].Message.ToolCalls[0].Function.Arguments.String())

	status, body = get(t, srv.URL()+"/_fake/requests")
	require.Equal(t, http.StatusOK, status)
	var reqs []api.ChatRequest
	require.NoError(t, json.Unmarshal([]byte(body), &reqs))
	require.Len(t, reqs, 2)
	require.Equal(t, "second", reqs[1].Messages[0].Content)

	status, _ = post(t, srv.URL()+"/_fake/reset", "")
	require.Equal(t, http.StatusNoContent, status)
	_, body = get(t, srv.URL()+"/_fake/requests")
	require.JSONEq(t, `[]`, body)
	list, err := c.List(t.Context())
	require.NoError(t, err)
	require.Len(t, list.Models, 1)
	require.Equal(t, "gemma3:1b", list.Models[0].Name)

	status, body = post(t, srv.URL()+"/_fake/turns", `{"not": "an array"}`)
	require.Equal(t, http.StatusBadRequest, status)
	require.Contains(t, body, `"error":"fakeollama: json: cannot unmarshal`)
}

// Out of process a test releases a held load through /_fake/release and reads the loads back.
func TestControlReleaseAndLoads(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{Models: []Model{qwen}, HoldLoads: "load"})
	done := make(chan error, 1)
	go func() {
		_, err := chat(t, t.Context(), srv, api.ChatRequest{Model: "qwen3:4b", Options: map[string]any{"num_ctx": 2048}})
		done <- err
	}()
	require.NoError(t, srv.WaitHeld(t.Context(), "load", 1))
	status, body := post(t, srv.URL()+"/_fake/release", `{"name": "load"}`)
	require.Equal(t, http.StatusNoContent, status, body)
	require.NoError(t, <-done)
	status, body = send(t, http.MethodGet, srv.URL()+"/_fake/loads", "")
	require.Equal(t, http.StatusOK, status)
	require.JSONEq(t, `[{"model": "qwen3:4b", "numCtx": 2048}]`, body)
}
