package llm

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/llm/fakeollama"
)

// requestRecorder is an http.RoundTripper that keeps the path and body of every request, because
// the fake records only chat requests, and only after decoding them.
type requestRecorder struct {
	mu     sync.Mutex
	paths  []string
	bodies [][]byte
}

func (r *requestRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	r.mu.Lock()
	r.paths = append(r.paths, req.URL.Path)
	r.bodies = append(r.bodies, body)
	r.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

func (r *requestRecorder) count(path string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, p := range r.paths {
		if p == path {
			n++
		}
	}
	return n
}

func (r *requestRecorder) lastBody(path string) []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.paths) - 1; i >= 0; i-- {
		if r.paths[i] == path {
			return r.bodies[i]
		}
	}
	return nil
}

// newTestClient starts a fake with script and returns a client for it that records its requests.
func newTestClient(t *testing.T, script fakeollama.Script) (*Client, *fakeollama.Server, *requestRecorder) {
	t.Helper()
	fake := fakeollama.NewTest(t, script)
	base, err := url.Parse(fake.URL())
	require.NoError(t, err)
	rec := &requestRecorder{}
	return NewClient(base, &http.Client{Transport: rec}), fake, rec
}

var testModels = []fakeollama.Model{
	{Name: "qwen3:4b", Arch: "qwen3", ContextLength: 40960, Capabilities: []string{"completion", "tools", "thinking"},
		ParameterSize: "4.0B", Quantization: "Q4_K_M"},
	{Name: "llava:7b", Arch: "llama", ContextLength: 4096, Capabilities: []string{"completion", "vision"}},
	{Name: "nomic-embed-text", Arch: "nomic-bert", ContextLength: 2048, Capabilities: []string{"embedding"}},
}

func TestModelReadsCapabilitiesAndContextLength(t *testing.T) {
	t.Parallel()
	c, _, _ := newTestClient(t, fakeollama.Script{Models: testModels})

	info, err := c.Model(t.Context(), "qwen3:4b")
	require.NoError(t, err)
	require.Equal(t, ModelInfo{
		Name:          "qwen3:4b",
		Capabilities:  Capabilities{Tools: true, Thinking: true, Completion: true},
		ContextLength: 40960,
		Family:        "qwen3",
		ParameterSize: "4.0B",
		Quantization:  "Q4_K_M",
	}, info)

	info, err = c.Model(t.Context(), "llava:7b")
	require.NoError(t, err)
	require.Equal(t, Capabilities{Vision: true, Completion: true}, info.Capabilities)
	require.Equal(t, 4096, info.ContextLength)
}

func TestModelCachesSuccessfulLookups(t *testing.T) {
	t.Parallel()
	c, fake, rec := newTestClient(t, fakeollama.Script{Models: testModels})

	first, err := c.Model(t.Context(), "qwen3:4b")
	require.NoError(t, err)
	var wg sync.WaitGroup
	got := make([]ModelInfo, 8)
	errs := make([]error, 8)
	for i := range got {
		wg.Go(func() { got[i], errs[i] = c.Model(t.Context(), "qwen3:4b") })
	}
	wg.Wait()
	for i := range got {
		require.NoError(t, errs[i])
		require.Equal(t, first, got[i])
	}
	require.Equal(t, 1, rec.count("/api/show"))

	_, err = c.Model(t.Context(), "gemma3:1b")
	var notFound *ModelNotFoundError
	require.ErrorAs(t, err, &notFound)

	// Pulled in the meantime: the failure must not have been cached.
	fake.SetScript(fakeollama.Script{Models: append(testModels, fakeollama.Model{Name: "gemma3:1b"})})
	info, err := c.Model(t.Context(), "gemma3:1b")
	require.NoError(t, err)
	require.Equal(t, "gemma3:1b", info.Name)
	require.Equal(t, 3, rec.count("/api/show"))
}

func TestModelNotFoundListsInstalledModels(t *testing.T) {
	t.Parallel()
	c, _, _ := newTestClient(t, fakeollama.Script{Models: testModels[:2]})

	_, err := c.Model(t.Context(), "qwen3:8b")
	var notFound *ModelNotFoundError
	require.ErrorAs(t, err, &notFound)
	require.Equal(t, "qwen3:8b", notFound.Name)
	require.ElementsMatch(t, []string{"qwen3:4b", "llava:7b"}, notFound.Installed)
	require.Contains(t, err.Error(), `"qwen3:8b" is not installed`)
	require.Contains(t, err.Error(), "qwen3:4b")
	require.Contains(t, err.Error(), "llava:7b")
	require.Contains(t, err.Error(), "`ollama pull qwen3:8b`")
}

func TestModelNotFoundWithNothingInstalled(t *testing.T) {
	t.Parallel()
	c, _, _ := newTestClient(t, fakeollama.Script{})

	_, err := c.Model(t.Context(), "qwen3:4b")
	require.EqualError(t, err,
		"the model \"qwen3:4b\" is not installed in Ollama; no models are installed. Download it with `ollama pull qwen3:4b`")
}

func TestModelEmbeddingOnlyCannotChat(t *testing.T) {
	t.Parallel()
	c, _, _ := newTestClient(t, fakeollama.Script{Models: testModels})

	_, err := c.Model(t.Context(), "nomic-embed-text")
	require.ErrorIs(t, err, ErrCannotChat)
	require.Contains(t, err.Error(), "nomic-embed-text")
}

func TestModelUnreachable(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestClient(t, fakeollama.Script{Models: testModels})
	require.NoError(t, fake.SetDown(true))

	_, err := c.Model(t.Context(), "qwen3:4b")
	require.ErrorIs(t, err, ErrUnreachable)
	var urlErr *url.Error
	require.ErrorAs(t, err, &urlErr, "the transport error stays reachable")
	require.Contains(t, err.Error(), c.base.Host)
	require.Contains(t, err.Error(), "is Ollama running? start it with `ollama serve`")
	require.Contains(t, err.Error(), "connection refused")
}

func TestModelCancelled(t *testing.T) {
	t.Parallel()
	c, _, _ := newTestClient(t, fakeollama.Script{Models: testModels})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()

	_, err := c.Model(ctx, "qwen3:4b")
	require.ErrorIs(t, err, context.Canceled)
	require.False(t, errors.Is(err, ErrUnreachable))
}

func TestNumCtx(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name            string
		length, setting int
		want            int
	}{
		{"below the default cap", 8192, 0, 8192},
		{"capped by the default", 131072, 0, DefaultContextCap},
		{"capped by the setting", 40960, 16384, 16384},
		{"setting above the model", 4096, 65536, 4096},
		{"unknown length", 0, 0, 8192},
		{"unknown length, small cap", 0, 4096, 4096},
		{"never below 2048", 40960, 512, 2048},
		{"tiny model still 2048", 1024, 0, 2048},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, ModelInfo{ContextLength: tc.length}.NumCtx(tc.setting))
		})
	}
}
