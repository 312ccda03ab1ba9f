package app

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"gantry/internal/agent"
	"gantry/internal/events"
	"gantry/internal/llm"
	"gantry/internal/llm/fakeollama"
	"gantry/internal/toolcall"
)

// mistralAnswer is a model that declares native tools but writes its calls in Mistral's form,
// which Ollama's parser misses: the tool check's answer.
var mistralAnswer = fakeollama.Rule{Contains: "get_weather", Turn: fakeollama.Turn{Chunks: []fakeollama.Chunk{
	{Content: `[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]`},
}}}

// The tool check asks once per model version, keeps what it found in the data folder, and a
// model found writing its calls as text runs on the text path, with the num_ctx it was loaded
// with for the check.
func TestCheckToolsDecidesTheToolPath(t *testing.T) {
	t.Parallel()
	f := startChat(t, "", done("Looked."))
	f.fake.SetScript(fakeollama.Script{
		Models: []fakeollama.Model{{Name: chatModel, Capabilities: []string{"completion", "tools"}}},
		Rules:  []fakeollama.Rule{mistralAnswer}, Turns: []fakeollama.Turn{done("Looked.")},
	})

	check, err := f.app.Ollama.CheckTools(chatModel)
	require.NoError(t, err)
	require.Equal(t, llm.ToolsText, check.Verdict)
	require.Equal(t, toolcall.DialectMistral, check.Dialect)
	require.True(t, check.Declared)
	require.NotEmpty(t, check.Digest)
	again, err := f.app.Ollama.CheckTools("coder")
	require.NoError(t, err)
	require.Equal(t, check, again, "cached by digest, whatever the name's spelling")
	require.Len(t, f.fake.Requests(), 1)
	require.FileExists(t, filepath.Join(f.dirs.data, "tool-checks.json"))
	kept := openToolChecks(filepath.Join(f.dirs.data, "tool-checks.json")).byID[check.Digest]
	require.True(t, kept.CheckedAt.Equal(check.CheckedAt))
	kept.CheckedAt = check.CheckedAt
	require.Equal(t, check, kept, "kept for the next start")

	res, err := f.app.Chat.Send(SendRequest{Text: "Look at the notes"})
	require.NoError(t, err)
	f.waitIdle(t, res.SessionID, 10*time.Second)
	evs := f.replay(t, res.SessionID)
	var started agent.RunStartedPayload
	require.NoError(t, json.Unmarshal(evs[0].Payload, &started))
	require.Equal(t, agent.PathText, started.ToolPath)
	reqs := f.fake.Requests()
	require.Empty(t, reqs[len(reqs)-1].Tools, "the text path sends no tools")
	require.Equal(t, []fakeollama.Load{{Model: chatModel, NumCtx: 4096}}, f.fake.Loads(), "the check and the run share one load")
}

// A model whose check found native calls keeps the native path.
func TestCheckToolsNative(t *testing.T) {
	t.Parallel()
	f := startChat(t, "")
	f.fake.SetScript(fakeollama.Script{
		Models: []fakeollama.Model{{Name: chatModel, Capabilities: []string{"completion", "tools"}}},
		Rules: []fakeollama.Rule{{Contains: "get_weather", Turn: fakeollama.Turn{Chunks: []fakeollama.Chunk{
			{ToolCalls: []fakeollama.ToolCall{{Name: "get_weather", Arguments: map[string]any{"city": "Paris"}}}},
		}}}},
	})
	check, err := f.app.Ollama.CheckTools(chatModel)
	require.NoError(t, err)
	require.Equal(t, llm.ToolsNative, check.Verdict)
	require.False(t, f.app.Ollama.textTools(chatModel))

	_, err = f.app.Ollama.CheckTools("missing:1b")
	require.ErrorContains(t, err, `"missing:1b" is not installed`)
}

// Warming loads the model with the runs' num_ctx, so the first run finds it loaded: its wait
// starts with reading the prompt, and the model is loaded once.
func TestWarmLoadsTheModelOnce(t *testing.T) {
	t.Parallel()
	f := startChat(t, "", done("Warm already."))
	require.NoError(t, f.app.Ollama.Warm(chatModel))
	// The load runs in the background; until it has returned, the run would rightly say it
	// waits for a load.
	f.app.Ollama.warming.Wait()
	require.Equal(t, []fakeollama.Load{{Model: chatModel, NumCtx: 4096}}, f.fake.Loads())

	res, err := f.app.Chat.Send(SendRequest{Text: "Anything?"})
	require.NoError(t, err)
	f.waitIdle(t, res.SessionID, 10*time.Second)
	var phases []string
	for _, ev := range f.replay(t, res.SessionID) {
		if ev.Type == events.ModelWaiting {
			var p agent.ModelWaitingPayload
			require.NoError(t, json.Unmarshal(ev.Payload, &p))
			phases = append(phases, p.Phase)
		}
	}
	require.Equal(t, []string{agent.WaitPrefill, agent.WaitNone}, phases)
	require.Equal(t, []fakeollama.Load{{Model: chatModel, NumCtx: 4096}}, f.fake.Loads())
}
