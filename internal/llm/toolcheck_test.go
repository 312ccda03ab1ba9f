package llm

import (
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/llm/fakeollama"
	"gantry/internal/toolcall"
)

func TestCheckTools(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		answer   fakeollama.Chunk
		verdict  string
		dialect  string
		textPath bool
	}{
		{"a native call", fakeollama.Chunk{ToolCalls: []fakeollama.ToolCall{{Name: "get_weather", Arguments: map[string]any{"city": "Paris"}}}}, ToolsNative, "", false},
		{"a call Ollama missed", fakeollama.Chunk{Content: `[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]`}, ToolsText, toolcall.DialectMistral, true},
		{"no call at all", fakeollama.Chunk{Content: "It is sunny in Paris, I think."}, ToolsUnclear, "", false},
		{"a call only thought about", fakeollama.Chunk{Content: `<think>I could write <tool_call>{"name": "get_weather", "arguments": {}}</tool_call></think>No idea.`}, ToolsUnclear, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, fake, _ := newTestClient(t, fakeollama.Script{Models: testModels, Rules: []fakeollama.Rule{
				{Contains: "get_weather", Turn: fakeollama.Turn{Chunks: []fakeollama.Chunk{tt.answer}}},
			}})
			info, err := c.Model(t.Context(), "qwen3:4b")
			require.NoError(t, err)
			check, err := c.CheckTools(t.Context(), info, "sha256:abc", 8192, 0)
			require.NoError(t, err)
			require.Equal(t, tt.verdict, check.Verdict)
			require.Equal(t, tt.dialect, check.Dialect)
			require.Equal(t, tt.textPath, check.TextPath())
			require.True(t, check.Declared)
			require.Equal(t, "sha256:abc", check.Digest)
			require.False(t, check.CheckedAt.IsZero())

			reqs := fake.Requests()
			require.Len(t, reqs, 1)
			require.Equal(t, "get_weather", reqs[0].Tools[0].Function.Name)
			require.Equal(t, float64(8192), reqs[0].Options["num_ctx"])
			require.Equal(t, []fakeollama.Load{{Model: "qwen3:4b", NumCtx: 8192}}, fake.Loads(), "one load, with the runs' num_ctx")
		})
	}
}

// A model whose template has no tools takes the text path without a request.
func TestCheckToolsUndeclared(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestClient(t, fakeollama.Script{Models: testModels})
	info, err := c.Model(t.Context(), "llava:7b")
	require.NoError(t, err)
	check, err := c.CheckTools(t.Context(), info, "d", 4096, 0)
	require.NoError(t, err)
	require.Equal(t, ToolsUnsupported, check.Verdict)
	require.True(t, check.TextPath())
	require.Empty(t, fake.Requests())
}
