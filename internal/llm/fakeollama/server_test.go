package fakeollama

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
	"github.com/stretchr/testify/require"
)

var (
	qwen = Model{
		Name: "qwen3:4b", Arch: "qwen3", ContextLength: 40960,
		Capabilities:  []string{"completion", "tools", "thinking"},
		ParameterSize: "4.0B", Quantization: "Q4_K_M", Size: 2_497_293_931,
	}
	gemma = Model{Name: "gemma3:1b", Arch: "gemma3", ContextLength: 32768, ParameterSize: "999.89M", Quantization: "Q4_K_M", Size: 815_319_791}
	embed = Model{Name: "nomic-embed-text", Arch: "nomic-bert", ContextLength: 2048, Capabilities: []string{"embedding"}}
)

func newClient(t *testing.T, srv *Server) *api.Client {
	t.Helper()
	u, err := url.Parse(srv.URL())
	require.NoError(t, err)
	return api.NewClient(u, http.DefaultClient)
}

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	return send(t, http.MethodGet, u, "")
}

func send(t *testing.T, method, u, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, u, strings.NewReader(body))
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

func TestVersionAndRoot(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{})
	c := newClient(t, srv)

	v, err := c.Version(t.Context())
	require.NoError(t, err)
	require.Equal(t, "0.17.4", v)
	require.NoError(t, c.Heartbeat(t.Context()))

	status, body := get(t, srv.URL())
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "Ollama is running", body)

	srv.SetScript(Script{Version: "0.9.0"})
	v, err = c.Version(t.Context())
	require.NoError(t, err)
	require.Equal(t, "0.9.0", v)
}

func TestUnknownRoutesAnswerLikeGin(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{})

	status, body := get(t, srv.URL()+"/api/nope")
	require.Equal(t, http.StatusNotFound, status)
	require.Equal(t, "404 page not found", body)

	status, body = get(t, srv.URL()+"/api/chat")
	require.Equal(t, http.StatusMethodNotAllowed, status)
	require.Equal(t, "405 method not allowed", body)
}

func TestList(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{Models: []Model{qwen, gemma, embed}})

	list, err := newClient(t, srv).List(t.Context())
	require.NoError(t, err)
	require.Len(t, list.Models, 3)

	var names []string
	for _, m := range list.Models {
		names = append(names, m.Name)
		require.Equal(t, m.Name, m.Model)
		require.Len(t, m.Digest, 64)
		require.False(t, m.ModifiedAt.IsZero())
	}
	require.Equal(t, []string{"qwen3:4b", "gemma3:1b", "nomic-embed-text:latest"}, names)

	q := list.Models[0]
	require.Equal(t, int64(2_497_293_931), q.Size)
	require.Equal(t, api.ModelDetails{
		Format: "gguf", Family: "qwen3", Families: []string{"qwen3"},
		ParameterSize: "4.0B", QuantizationLevel: "Q4_K_M",
	}, q.Details)
}

func TestShow(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{Models: []Model{qwen, {Name: "tiny"}}})
	c := newClient(t, srv)

	show, err := c.Show(t.Context(), &api.ShowRequest{Model: "qwen3:4b"})
	require.NoError(t, err)
	require.Equal(t, []model.Capability{"completion", "tools", "thinking"}, show.Capabilities)
	require.Equal(t, "qwen3", show.ModelInfo["general.architecture"])
	require.InDelta(t, 40960, show.ModelInfo["qwen3.context_length"], 0) // JSON numbers decode as float64
	require.Equal(t, "qwen3", show.Details.Family)
	require.Equal(t, "Q4_K_M", show.Details.QuantizationLevel)
	require.NotEmpty(t, show.Template)
	require.Contains(t, show.Parameters, "stop")
	require.Contains(t, show.Modelfile, "# FROM qwen3:4b")

	// Names resolve like Ollama's: default tag, registry prefix, case.
	show, err = c.Show(t.Context(), &api.ShowRequest{Model: "registry.ollama.ai/library/TINY:latest"})
	require.NoError(t, err)
	require.Equal(t, "llama", show.ModelInfo["general.architecture"])
	require.InDelta(t, 4096, show.ModelInfo["llama.context_length"], 0)
	require.Equal(t, []model.Capability{"completion"}, show.Capabilities)

	_, err = c.Show(t.Context(), &api.ShowRequest{Model: "nope:1b"})
	requireStatusError(t, err, http.StatusNotFound, "model 'nope:1b' not found")

	_, err = c.Show(t.Context(), &api.ShowRequest{})
	requireStatusError(t, err, http.StatusBadRequest, "model is required")
}

func requireStatusError(t *testing.T, err error, code int, msg string) {
	t.Helper()
	var se api.StatusError
	require.ErrorAs(t, err, &se)
	require.Equal(t, code, se.StatusCode)
	require.Equal(t, msg, se.ErrorMessage)
}

func TestDelete(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{Models: []Model{qwen, gemma}})
	c := newClient(t, srv)

	require.NoError(t, c.Delete(t.Context(), &api.DeleteRequest{Model: "gemma3:1b"}))
	list, err := c.List(t.Context())
	require.NoError(t, err)
	require.Len(t, list.Models, 1)
	require.Equal(t, "qwen3:4b", list.Models[0].Name)

	err = c.Delete(t.Context(), &api.DeleteRequest{Model: "gemma3:1b"})
	requireStatusError(t, err, http.StatusNotFound, "model 'gemma3:1b' not found")
}

func TestSetDownAndBackOnTheSamePort(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{})
	c := newClient(t, srv)
	before := srv.URL()

	require.NoError(t, srv.SetDown(true))
	_, err := c.Version(t.Context())
	require.ErrorContains(t, err, "connection refused")

	require.NoError(t, srv.SetDown(false))
	require.Equal(t, before, srv.URL())
	_, err = c.Version(t.Context())
	require.NoError(t, err)
}

func TestSetDownDropsOpenStreams(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{Models: []Model{qwen}})
	srv.Enqueue(Turn{Chunks: []Chunk{{Content: "a"}, {Content: "b"}}, ChunkDelay: time.Minute})

	got := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- newClient(t, srv).Chat(context.Background(), &api.ChatRequest{
			Model: "qwen3:4b", Messages: []api.Message{{Role: "user", Content: "hi"}},
		}, func(r api.ChatResponse) error { got <- r.Message.Content; return nil })
	}()
	require.Equal(t, "a", <-got)
	require.NoError(t, srv.SetDown(true))
	// api.Client ends a broken stream without an error; the missing done line is the only sign.
	require.NoError(t, <-done)
}
