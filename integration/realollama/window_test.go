//go:build realollama

package realollama

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/llm"
)

// phases are the waiting states a run announced, in order.
func (h headless) phases() []string {
	var out []string
	for _, p := range h.payloads("modelWaiting") {
		phase, _ := p["phase"].(string)
		out = append(out, phase)
	}
	return out
}

// A real server's counts and states: a cold model is announced as loading, then the prompt as
// being read; the answer's counts come from Ollama against the num_ctx sent. The tiny model's
// tokenizer packs half the text a token that Gantry's estimate assumes, so its 4k window may
// not hold the whole system prompt: Ollama 0.6.5 then drops the system prompt (the count says
// so) and the run asks again with a leaner one. The next run finds the model loaded and only
// reads the prompt.
func TestWaitsAndCountsFromARealServer(t *testing.T) {
	s := ownServer(t) // cold: nothing loaded yet
	info, err := client(s).Model(context.Background(), ModelText)
	require.NoError(t, err)
	d := newGantryDirs(t)

	res := gantryRun(t, s.Addr, d, ModelText, "Say hello to the README.", nil)
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, "done", res.final()["status"])
	phases := res.phases()
	require.Equal(t, []string{"loading", "prefill", ""}, phases[:3])
	for i := 3; i < len(phases); i += 2 {
		require.Equal(t, []string{"prefill", ""}, phases[i:i+2], "a retry only reads its prompt")
	}
	prefill := res.payloads("modelWaiting")[1]
	require.Positive(t, prefill["promptTokens"], "the prompt's expected size")

	usage := res.payloads("contextUsage")
	require.Len(t, usage, 1+(len(phases)-3)/2, "one count per answer")
	for _, u := range usage {
		require.Equal(t, float64(info.NumCtx(0)), u["window"])
		require.Positive(t, u["answerTokens"])
		// prompt_eval_duration, as measured by the server, in whole milliseconds: a prompt Ollama
		// cut to a few tokens (the first answer's, 16) is read in less than one, so only a long
		// one must show time.
		require.Contains(t, u, "promptMs")
		require.GreaterOrEqual(t, u["promptMs"], float64(0))
		if tokens, _ := u["promptTokens"].(float64); tokens > 500 {
			require.Positive(t, u["promptMs"], "a prompt of %v tokens takes the server time to read", tokens)
		}
	}
	last := usage[len(usage)-1]
	prompt, _ := last["promptTokens"].(float64)
	require.Greater(t, prompt, float64(500), "Ollama counted the system prompt and the task")
	require.Less(t, prompt, float64(info.NumCtx(0)), "and it fit")
	for _, c := range res.payloads("promptCut") {
		require.Equal(t, true, c["retrying"])
		require.Equal(t, true, c["leaner"])
	}

	ready, err := client(s).Running(context.Background(), ModelText, info.NumCtx(0))
	require.NoError(t, err)
	require.True(t, ready, "/api/ps lists it")

	res = gantryRun(t, s.Addr, d, ModelText, "And again.", nil)
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, "prefill", res.phases()[0], "loaded already: no load announced")
	require.NotContains(t, res.phases(), "loading")
}

// A task longer than the context window: the real server cuts the prompt to num_ctx, the run
// reads that from its count, says so, asks once more with a leaner system prompt, and when the
// task alone is still too long stops rather than go on without its instructions.
func TestAPromptTheRealServerCutStopsTheRun(t *testing.T) {
	s := server(t)
	d := newGantryDirs(t)
	task := "Summarise this: " + strings.Repeat("antidisestablishmentarianism ", 2500)
	res := gantryRun(t, s.Addr, d, ModelText, task, nil)
	require.Equal(t, 1, res.code, res.stderr)

	cuts := res.payloads("promptCut")
	require.Len(t, cuts, 2)
	for i, c := range cuts {
		require.Equal(t, float64(4096), c["window"])
		require.Equal(t, float64(4096), c["promptTokens"], "the runner kept num_ctx tokens")
		require.Equal(t, i == 0, c["retrying"], "asked again once, with a leaner prompt")
	}
	require.Equal(t, true, cuts[0]["leaner"])
	final := res.final()
	require.Equal(t, "failed", final["status"])
	require.Contains(t, final["message"], "does not fit the model's context window of 4,096 tokens")
}

// Loading and the tool check against a real server: Load returns once the model is in memory,
// Running then says so; the tool check asks the model with tools and skips the one without.
func TestLoadAndToolCheckOnARealServer(t *testing.T) {
	s := ownServer(t)
	c := client(s)
	ctx := context.Background()
	ready, err := c.Running(ctx, ModelTools, 4096)
	require.NoError(t, err)
	require.False(t, ready)
	require.NoError(t, c.Load(ctx, ModelTools, 4096, 0))
	ready, err = c.Running(ctx, ModelTools, 4096)
	require.NoError(t, err)
	require.True(t, ready)

	info, err := c.Model(ctx, ModelTools)
	require.NoError(t, err)
	check, err := c.CheckTools(ctx, info, "sha256:test", 4096, 0)
	require.NoError(t, err)
	require.True(t, check.Declared)
	require.Contains(t, []string{llm.ToolsNative, llm.ToolsText, llm.ToolsUnclear}, check.Verdict, "random weights call nothing in particular")

	info, err = c.Model(ctx, ModelText)
	require.NoError(t, err)
	check, err = c.CheckTools(ctx, info, "sha256:text", 4096, 0)
	require.NoError(t, err)
	require.Equal(t, llm.ToolsUnsupported, check.Verdict)
	require.True(t, check.TextPath())
}
