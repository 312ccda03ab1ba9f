package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"gantry/internal/events"
	"gantry/internal/llm/fakeollama"
	"gantry/internal/toolcall"
)

// dialectCalls are one call, read_file of main.go, in every dialect toolcall reads, as small
// models write them (the forms of toolcall's testdata/dialects corpus, with a built-in tool).
var dialectCalls = []struct{ dialect, call string }{
	{toolcall.DialectJSON, `{"name": "read_file", "arguments": {"path": "main.go"}}`},
	{toolcall.DialectHermes, `<tool_call>{"name": "read_file", "arguments": {"path": "main.go"}}</tool_call>`},
	{toolcall.DialectNemotron, `<TOOLCALL>[{"name": "read_file", "arguments": {"path": "main.go"}}]</TOOLCALL>`},
	{toolcall.DialectQwen3Coder, "<tool_call>\n<function=read_file>\n<parameter=path>\nmain.go\n</parameter>\n</function>\n</tool_call>"},
	{toolcall.DialectSeedOSS, "<seed:tool_call>\n<function=read_file>\n<parameter=path>main.go</parameter>\n</function>\n</seed:tool_call>"},
	{toolcall.DialectHarmony, `<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"path":"main.go"}<|call|>`},
	{toolcall.DialectMistral, `[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "main.go"}}]`},
	{toolcall.DialectMistral, `[TOOL_CALLS]read_file[ARGS]{"path": "main.go"}`},
	{toolcall.DialectLlamaPythonTag, `<|python_tag|>{"name": "read_file", "parameters": {"path": "main.go"}}<|eom_id|>`},
	{toolcall.DialectLlamaFunction, `<function=read_file>{"path": "main.go"}</function>`},
	{toolcall.DialectPythonic, `[read_file(path="main.go")]`},
	{toolcall.DialectDeepSeek, "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\": \"main.go\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"},
	{toolcall.DialectGranite, `<|tool_call|> [{"name": "read_file", "arguments": {"path": "main.go"}}]`},
	{toolcall.DialectPhi, `functools[{"name": "read_file", "arguments": {"path": "main.go"}}]`},
	{toolcall.DialectFunctionCall, `<function_call> {"name": "read_file", "arguments": {"path": "main.go"}}`},
	{toolcall.DialectOpenAIEnvelope, `{"tool_calls": [{"type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"main.go\"}"}}]}`},
	{toolcall.DialectGLM, "<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>main.go</arg_value>\n</tool_call>"},
	{toolcall.DialectKimi, `<|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0 <|tool_call_argument_begin|>{"path": "main.go"}<|tool_call_end|><|tool_calls_section_end|>`},
	{toolcall.DialectInvokeXML, `<minimax:tool_call><invoke name="read_file"><parameter name="path">main.go</parameter></invoke></minimax:tool_call>`},
	{toolcall.DialectCommandR, "Action: ```json\n[{\"tool_name\": \"read_file\", \"parameters\": {\"path\": \"main.go\"}}]\n```"},
	{toolcall.DialectGemmaToolCode, "```tool_code\nprint(default_api.read_file(path=\"main.go\"))\n```"},
}

const dialectProse = "I will look at the file first."

// runeChunks streams s a few characters a chunk, as Ollama streams tokens; cutting between
// runes keeps each chunk valid UTF-8, as Ollama's are.
func runeChunks(s string, n int) []fakeollama.Chunk {
	var out []fakeollama.Chunk
	r := []rune(s)
	for i := 0; i < len(r); i += n {
		out = append(out, fakeollama.Chunk{Content: string(r[i:min(i+n, len(r))])})
	}
	return out
}

// Every dialect, streamed a few characters a chunk, on both tool paths: the call runs, the
// screen only ever shows the prose on its way to its final form, and the run records the
// dialect. On the native path the call is rescued: the next request carries it as a native
// tool call paired with its result, and its markup is gone from the history.
func TestRunEveryDialect(t *testing.T) {
	t.Parallel()
	for _, tc := range dialectCalls {
		for _, model := range []string{"coder", "small"} {
			t.Run(tc.dialect+"/"+model+"/"+shortName(tc.call), func(t *testing.T) {
				t.Parallel()
				answer := dialectProse + "\n" + tc.call
				f := newRunFixture(t, []fakeollama.Turn{
					{Chunks: runeChunks(answer, 3)},
					{Chunks: []fakeollama.Chunk{{Content: "It greets, with a typo. [TASK_COMPLETE]"}}},
				}, nil)
				f.runner.deps.Throttle = lookEveryChunk
				res := f.run(context.Background(), model, "What does main.go say?")
				require.Equal(t, StatusDone, res.Status, res.Message)

				for _, shown := range f.texts(1) {
					require.True(t, strings.HasPrefix(dialectProse, shown), "shown on screen: %q", shown)
				}
				require.Equal(t, dialectProse, lastOf(f.texts(1)))
				read := f.actions()[len(f.actions())-1]
				require.Equal(t, "read_file", read.Tool)
				require.Equal(t, ActionSuccess, read.Status)
				require.Equal(t, "main.go", read.Path)

				group := f.groupStarted(1)
				require.Equal(t, []string{tc.dialect}, group.Dialects)
				require.Equal(t, model == "coder", group.Rescued)
				fin := f.finished()
				require.Equal(t, []string{tc.dialect}, fin.Dialects)

				next := f.fake.Requests()[1].Messages
				asked, result := next[len(next)-2], next[len(next)-1]
				if model == "coder" {
					require.Equal(t, 1, fin.RescuedCalls)
					require.Equal(t, dialectProse, asked.Content, "the markup left the history")
					require.Len(t, asked.ToolCalls, 1)
					require.Equal(t, "read_file", asked.ToolCalls[0].Function.Name)
					require.Equal(t, map[string]any{"path": "main.go"}, asked.ToolCalls[0].Function.Arguments.ToMap())
					require.Equal(t, "tool", result.Role)
					require.Equal(t, "read_file", result.ToolName)
					require.Equal(t, asked.ToolCalls[0].ID, result.ToolCallID)
					require.NotEmpty(t, result.ToolCallID)
				} else {
					require.Zero(t, fin.RescuedCalls)
					require.Equal(t, answer, asked.Content, "the text path keeps what the model wrote")
					require.Empty(t, asked.ToolCalls)
					require.Equal(t, "user", result.Role)
					require.Contains(t, result.Content, `<tool_result name="read_file">`)
				}
				require.Contains(t, result.Content, "helo")
			})
		}
	}
}

// A call the model muses about in its thinking, or writes inside <think> in its content, is
// not a call; nor is a JSON example naming a tool the run does not have.
func TestRunCallsThatAreNotCalls(t *testing.T) {
	t.Parallel()
	call := `<tool_call>{"name": "read_file", "arguments": {"path": "main.go"}}</tool_call>`
	tests := map[string]fakeollama.Chunk{
		"thinking field": {Thinking: "Maybe " + call, Content: "It is a Go file."},
		"think tags":     {Content: "<think>Maybe " + call + "</think>It is a Go file."},
		"unknown tool":   {Content: "It is a Go file. Example: <tool_call>{\"name\": \"get_weather\", \"arguments\": {}}</tool_call>"},
	}
	for name, chunk := range tests {
		for _, model := range []string{"coder", "small"} {
			t.Run(name+"/"+model, func(t *testing.T) {
				t.Parallel()
				f := newRunFixture(t, []fakeollama.Turn{{Chunks: []fakeollama.Chunk{chunk}}}, nil)
				res := f.run(context.Background(), model, "What is main.go?")
				require.Equal(t, StatusDone, res.Status)
				require.Empty(t, f.actions())
				require.Len(t, f.fake.Requests(), 1)
				require.Empty(t, f.finished().Dialects)
			})
		}
	}
}

// payloadsOf decodes the payloads of the fixture's stored events of one type, in order.
func payloadsOf[T any](f *runFixture, typ events.Type) []T {
	var out []T
	for _, ev := range f.log() {
		if ev.Type == typ {
			var p T
			require.NoError(f.t, json.Unmarshal(ev.Payload, &p))
			out = append(out, p)
		}
	}
	return out
}

// texts are the assistantText payloads of one answer, in order.
func (f *runFixture) texts(iteration int) []string {
	var out []string
	for _, p := range payloadsOf[TextPayload](f, events.AssistantText) {
		if p.Iteration == iteration {
			out = append(out, p.Text)
		}
	}
	return out
}

func (f *runFixture) groupStarted(iteration int) ProgressGroupPayload {
	for _, p := range payloadsOf[ProgressGroupPayload](f, events.ProgressGroupStarted) {
		if p.Iteration == iteration {
			return p
		}
	}
	f.t.Fatalf("no progress group for answer %d", iteration)
	return ProgressGroupPayload{}
}

func lastOf(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}

// shortName tells two samples of one dialect apart in a test's name.
func shortName(call string) string {
	if strings.Contains(call, "[ARGS]") {
		return "args-marker"
	}
	return "form"
}

// lookEveryChunk makes the stream processor look at the text after every chunk, so that each
// streamed prefix is what the screen would show.
const lookEveryChunk = time.Nanosecond
