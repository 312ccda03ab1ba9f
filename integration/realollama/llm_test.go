//go:build realollama

package realollama

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/envconfig"
	"github.com/stretchr/testify/require"

	"gantry/internal/llm"
)

func client(s *Server) *llm.Client { return llm.NewClient(s.URL(), http.DefaultClient) }

func TestStatusListsTheModels(t *testing.T) {
	s := server(t)
	st := llm.CheckStatus(context.Background(), s.URL())
	require.True(t, st.Reachable, st.Error)
	require.Empty(t, st.Error)
	require.NotEmpty(t, st.Version)
	require.Equal(t, "http://"+s.Addr, st.Host)

	var names []string
	for _, m := range st.Models {
		names = append(names, m.Name)
		require.Equal(t, "llama", m.Family, m.Name)
		require.NotEmpty(t, m.Quantization, m.Name)
		require.NotEmpty(t, m.ParameterSize, m.Name)
		require.Positive(t, m.Size, m.Name)
		require.WithinDuration(t, time.Now(), m.ModifiedAt, 10*time.Minute, m.Name)
	}
	require.Equal(t, []string{ModelLong, ModelShort, ModelText, ModelTools}, names, "sorted by name")
}

func TestModelDetailsAndCapabilities(t *testing.T) {
	c := client(server(t))
	ctx := context.Background()

	text, err := c.Model(ctx, ModelText)
	require.NoError(t, err)
	require.Equal(t, llm.Capabilities{Completion: true}, text.Capabilities, "no .Tools in the template: no tools")
	require.Equal(t, "llama", text.Family)
	require.Equal(t, 4096, text.ContextLength, "from model_info llama.context_length")
	require.Equal(t, 4096, text.NumCtx(0), "the trained context, under the default cap")
	require.Equal(t, 2048, text.NumCtx(2048), "capped by the setting")

	tools, err := c.Model(ctx, "tiny-tools") // the :latest tag is implied, as in Ollama
	require.NoError(t, err)
	require.Equal(t, llm.Capabilities{Completion: true, Tools: true}, tools.Capabilities)
	require.False(t, tools.Capabilities.Thinking, "v0.6.5 knows no thinking")
}

// The capability decides the path: Ollama refuses tools for a model without them, so the text
// path must never send any, and the native one may.
func TestToolsAreRefusedWithoutTheCapability(t *testing.T) {
	c := client(server(t))
	ctx := context.Background()
	weather := api.Tools{{Type: "function", Function: api.ToolFunction{Name: "read_file", Description: "Read a file"}}}

	_, err := c.Chat(ctx, llm.ChatRequest{Model: ModelText, Messages: hello(), Tools: weather}, nil)
	var httpErr *llm.HTTPError
	require.ErrorAs(t, err, &httpErr)
	require.Equal(t, http.StatusBadRequest, httpErr.Status)
	require.Contains(t, httpErr.Message, "does not support tools")

	resp, err := c.Chat(ctx, llm.ChatRequest{Model: ModelTools, Messages: hello(), Tools: weather}, nil)
	require.NoError(t, err)
	require.NotEmpty(t, resp.Content+toolNames(resp.ToolCalls))
}

func TestChatStreamsGibberishToTheEnd(t *testing.T) {
	c := client(server(t))
	var chunks int
	resp, err := c.Chat(context.Background(), llm.ChatRequest{Model: ModelText, Messages: hello(), NumCtx: 4096},
		func(ch llm.Chunk) error { chunks++; return nil })
	require.NoError(t, err)
	require.NotEmpty(t, resp.Content)
	require.Greater(t, chunks, 1, "streamed, not sent whole")
	require.Equal(t, "stop", resp.DoneReason, "the stop sequence ended it")
	require.False(t, resp.Truncated)
	require.Positive(t, resp.EvalCount)
	require.Positive(t, resp.PromptEvalCount)
}

func TestNumPredictCutsTheAnswer(t *testing.T) {
	c := client(server(t))
	ctx := context.Background()
	for _, req := range []llm.ChatRequest{
		{Model: ModelShort, Messages: hello()},               // the Modelfile's num_predict 8
		{Model: ModelText, Messages: hello(), NumPredict: 2}, // ours, over the Modelfile's
	} {
		resp, err := c.Chat(ctx, req, nil)
		require.NoError(t, err, req.Model)
		require.Equal(t, "length", resp.DoneReason, req.Model)
		require.True(t, resp.Truncated, req.Model)
		require.LessOrEqual(t, resp.EvalCount, 8, req.Model)
	}
}

// v0.6.5 predates thinking: every field we may send is accepted, and thinking is just absent.
func TestOldServerAcceptsEverythingWeSend(t *testing.T) {
	c := client(server(t))
	for _, model := range []string{ModelText, ModelTools} {
		resp, err := c.Chat(context.Background(), llm.ChatRequest{
			Model: model, Messages: append([]api.Message{{Role: "system", Content: "You are a coding agent."}}, hello()...),
			Think: true, NumCtx: 2048, NumPredict: 6, KeepAlive: time.Minute,
		}, nil)
		require.NoError(t, err, model)
		require.Empty(t, resp.Thinking, model)
		require.NotEmpty(t, resp.Content+toolNames(resp.ToolCalls), model)
	}
}

func TestUnknownModelNamesTheInstalledOnes(t *testing.T) {
	c := client(server(t))
	ctx := context.Background()
	_, err := c.Model(ctx, "qwen3:4b")
	var notFound *llm.ModelNotFoundError
	require.ErrorAs(t, err, &notFound)
	require.Equal(t, "qwen3:4b", notFound.Name)
	require.ElementsMatch(t, []string{ModelLong, ModelShort, ModelText, ModelTools}, notFound.Installed)
	require.Contains(t, err.Error(), `the model "qwen3:4b" is not installed`)
	require.Contains(t, err.Error(), ModelText)

	_, err = c.Chat(ctx, llm.ChatRequest{Model: "qwen3:4b", Messages: hello()}, nil)
	require.ErrorAs(t, err, &notFound, "a chat with a missing model says the same")
}

// Every OLLAMA_HOST form resolves as Ollama's own client resolves it, and reaches the server.
// [::1] goes through a relay on the IPv6 loopback to the IPv4 server.
func TestOllamaHostForms(t *testing.T) {
	s := server(t)
	_, port, err := net.SplitHostPort(s.Addr)
	require.NoError(t, err)
	v6 := relay(t, "[::1]:0", s.Addr)
	_, v6port, _ := net.SplitHostPort(v6)

	for _, form := range []string{
		"127.0.0.1:" + port,
		"http://127.0.0.1:" + port,
		"localhost:" + port,
		"http://localhost:" + port + "/",
		"[::1]:" + v6port,
		"http://[::1]:" + v6port,
	} {
		t.Run(form, func(t *testing.T) {
			t.Setenv("OLLAMA_HOST", form)
			ctx := context.Background()

			theirs, err := api.ClientFromEnvironment()
			require.NoError(t, err)
			_, err = theirs.Version(ctx)
			require.NoError(t, err, "Ollama's own client reaches the server")

			fromEnv, err := llm.ResolveHost("")
			require.NoError(t, err)
			require.Equal(t, envconfig.Host(), fromEnv)
			fromSetting, err := llm.ResolveHost(form)
			require.NoError(t, err)
			require.Equal(t, envconfig.Host(), fromSetting, "the Settings host takes the same forms")

			st := llm.CheckStatus(ctx, fromEnv)
			require.True(t, st.Reachable, st.Error)
			require.Len(t, st.Models, 4)
		})
	}
}

// relay forwards connections from listen to target until the test ends.
func relay(t *testing.T, listen, target string) string {
	t.Helper()
	l, err := net.Listen("tcp", listen)
	if err != nil {
		t.Skipf("no IPv6 loopback here: %v", err)
	}
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			in, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer in.Close()
				out, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer out.Close()
				go func() { _, _ = io.Copy(out, in) }()
				_, _ = io.Copy(in, out)
			}()
		}
	}()
	return l.Addr().String()
}

func hello() []api.Message { return []api.Message{{Role: "user", Content: "Say hello."}} }

func toolNames(calls []api.ToolCall) string {
	var s string
	for _, c := range calls {
		s += c.Function.Name
	}
	return s
}

// unreachable checks the failure a stopped server gives.
func requireUnreachable(t *testing.T, err error, addr string) {
	t.Helper()
	require.True(t, errors.Is(err, llm.ErrUnreachable), "%v", err)
	require.Contains(t, err.Error(), addr)
}
