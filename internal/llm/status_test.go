package llm

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"syscall"
	"testing"
	"time"

	"gantry/internal/llm/fakeollama"

	"github.com/stretchr/testify/require"
)

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u
}

// serve starts a server that is not Ollama, answering every request with h.
func serve(t *testing.T, h http.HandlerFunc) *url.URL {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return mustURL(t, srv.URL)
}

func TestCheckStatusListsModelsByName(t *testing.T) {
	t.Parallel()
	srv := fakeollama.NewTest(t, fakeollama.Script{Models: []fakeollama.Model{
		{Name: "qwen3:4b", Arch: "qwen3", ParameterSize: "4.0B", Quantization: "Q4_K_M", Size: 2_497_293_931},
		{Name: "gemma3:1b", Arch: "gemma3", ParameterSize: "999.89M", Quantization: "Q4_K_M", Size: 815_319_791},
	}})
	before := time.Now()

	st := CheckStatus(t.Context(), mustURL(t, srv.URL()))

	require.True(t, st.Reachable)
	require.Empty(t, st.Error)
	require.Empty(t, st.Hint)
	require.Equal(t, srv.URL(), st.Host)
	require.Equal(t, "0.17.4", st.Version)
	require.WithinRange(t, st.CheckedAt, before, time.Now())
	require.Len(t, st.Models, 2)
	require.Equal(t, "gemma3:1b", st.Models[0].Name)
	q := st.Models[1]
	require.Equal(t, "qwen3:4b", q.Name)
	require.Equal(t, int64(2_497_293_931), q.Size)
	require.Equal(t, "qwen3", q.Family)
	require.Equal(t, "4.0B", q.ParameterSize)
	require.Equal(t, "Q4_K_M", q.Quantization)
	require.False(t, q.ModifiedAt.IsZero())
}

func TestCheckStatusWithNoModelsHasAnEmptyList(t *testing.T) {
	t.Parallel()
	srv := fakeollama.NewTest(t, fakeollama.Script{})

	st := CheckStatus(t.Context(), mustURL(t, srv.URL()))

	require.True(t, st.Reachable)
	require.NotNil(t, st.Models, "the UI gets [] rather than null")
	require.Empty(t, st.Models)
}

func TestCheckStatusNothingListening(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())

	st := CheckStatus(t.Context(), mustURL(t, "http://"+addr))

	require.False(t, st.Reachable)
	require.Equal(t, "cannot connect to "+addr+": connection refused", st.Error)
	require.Equal(t, "Start Ollama with `ollama serve`, or change the host in Settings.", st.Hint)
	require.NotNil(t, st.Models)
}

func TestCheckStatusFollowsTheServerDownAndUp(t *testing.T) {
	t.Parallel()
	srv := fakeollama.NewTest(t, fakeollama.Script{})
	base := mustURL(t, srv.URL())

	require.NoError(t, srv.SetDown(true))
	require.False(t, CheckStatus(t.Context(), base).Reachable)
	require.NoError(t, srv.SetDown(false))
	require.True(t, CheckStatus(t.Context(), base).Reachable)
}

func TestCheckStatusOllamaError(t *testing.T) {
	t.Parallel()
	base := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error":"something broke"}`))
	})

	st := CheckStatus(t.Context(), base)

	require.False(t, st.Reachable)
	require.Equal(t, "Ollama answered 500 Internal Server Error: something broke", st.Error)
	require.Contains(t, st.Hint, "restart it")
}

func TestCheckStatusModelsFailAfterVersion(t *testing.T) {
	t.Parallel()
	base := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/api/version" {
			_, _ = w.Write([]byte(`{"version":"0.17.4"}`))
			return
		}
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error":"corrupt manifest"}`))
	})

	st := CheckStatus(t.Context(), base)

	require.True(t, st.Reachable)
	require.Equal(t, "0.17.4", st.Version)
	require.Equal(t, "Ollama is running but listing its models failed: Ollama answered 500 Internal Server Error: corrupt manifest", st.Error)
	require.Empty(t, st.Models)
}

func TestCheckStatusNotOllama(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		status int
		body   string
		want   string
	}{
		"html page":       {http.StatusOK, "<!doctype html><title>Router</title>", "answered, but it is not an Ollama server"},
		"html error page": {http.StatusInternalServerError, "<html><body>500</body></html>", "answered 500 Internal Server Error; it is not an Ollama server"},
		"not found":       {http.StatusNotFound, "404 page not found\n", "answered 404 Not Found; it is not an Ollama server"},
		"plain text 502":  {http.StatusBadGateway, "upstream unavailable\n", "answered 502 Bad Gateway; it is not an Ollama server"},
		"other json api":  {http.StatusOK, `{"name":"something else"}`, "answered, but it is not an Ollama server"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			base := serve(t, func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			})

			st := CheckStatus(t.Context(), base)

			require.False(t, st.Reachable)
			require.Equal(t, base.Host+" "+tc.want, st.Error)
			require.Contains(t, st.Hint, "Another program is using that address")
		})
	}
}

func TestCheckStatusForbiddenHostName(t *testing.T) {
	t.Parallel()
	base := serve(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusForbidden) })

	st := CheckStatus(t.Context(), base)

	require.Equal(t, base.Host+" answered 403 Forbidden", st.Error)
	require.Contains(t, st.Hint, "Use 127.0.0.1 or localhost")
}

func TestCheckStatusGivesUpOnAHangingServer(t *testing.T) {
	t.Parallel()
	base := serve(t, func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })

	start := time.Now()
	st := CheckStatus(context.Background(), base)
	elapsed := time.Since(start)

	require.False(t, st.Reachable)
	require.Equal(t, base.Host+" did not answer within 3s", st.Error)
	require.Contains(t, st.Hint, "restart it")
	require.GreaterOrEqual(t, elapsed, statusTimeout)
	// The server never answers: this only tells its own limit from a much later one.
	require.Less(t, elapsed, 10*statusTimeout)
}

func TestCheckStatusHTTPSToPlainHTTP(t *testing.T) {
	t.Parallel()
	srv := fakeollama.NewTest(t, fakeollama.Script{})
	base := mustURL(t, srv.URL())
	base.Scheme = "https"

	st := CheckStatus(t.Context(), base)

	require.Equal(t, base.Host+" does not speak HTTPS", st.Error)
	require.Equal(t, "Use http:// instead of https:// in the host setting.", st.Hint)
}

func TestExplainHintsDependOnWhereOllamaIs(t *testing.T) {
	t.Parallel()
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}

	_, local := explain(mustURL(t, "http://0.0.0.0:11434"), refused)
	require.Contains(t, local, "ollama serve")

	reason, remote := explain(mustURL(t, "http://gpu-box.lan:11434"), refused)
	require.Equal(t, "cannot connect to gpu-box.lan:11434: connection refused", reason)
	require.Equal(t, "Start Ollama on gpu-box.lan with OLLAMA_HOST=0.0.0.0 so it accepts connections from other computers, or change the host in Settings.", remote)

	_, remote = explain(mustURL(t, "http://gpu-box.lan:11434"), context.DeadlineExceeded)
	require.Contains(t, remote, "firewall")

	reason, hint := explain(mustURL(t, "http://no-such-host.invalid:11434"),
		&net.DNSError{Err: "no such host", Name: "no-such-host.invalid", IsNotFound: true})
	require.Equal(t, `the host name "no-such-host.invalid" could not be found`, reason)
	require.Contains(t, hint, "spelling")
}
