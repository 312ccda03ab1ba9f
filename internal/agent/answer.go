package agent

import (
	"context"
	"crypto/rand"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/ollama/ollama/api"

	"gantry/internal/events"
	"gantry/internal/llm"
	"gantry/internal/toolcall"
	"gantry/internal/tools"
)

// ChatModel is the model client (*llm.Client).
type ChatModel interface {
	Model(ctx context.Context, name string) (llm.ModelInfo, error)
	// Running reports whether the model is loaded with numCtx, ready to answer at once.
	Running(ctx context.Context, name string, numCtx int) (bool, error)
	// Load loads the model with numCtx, returning once it is ready.
	Load(ctx context.Context, name string, numCtx int, keepAlive time.Duration) error
	Chat(ctx context.Context, req llm.ChatRequest, onChunk func(llm.Chunk) error) (llm.Response, error)
}

// answer is one streamed model answer.
type answer struct {
	Result
	nativeCalls []api.ToolCall // as Ollama sent them; kept verbatim for the history
	truncated   bool
	metrics     api.Metrics // Ollama's counts and durations
}

// answerTurn is what the loop makes of an answer: the calls to run and the assistant message
// the history keeps for them.
type answerTurn struct {
	calls   []tools.Call
	message api.Message
	// dialects are the forms of the calls read from the text, in order of first use; none for
	// native calls.
	dialects []string
	// rescued: a native-path answer whose calls Ollama's parser missed in its text.
	rescued bool
}

// turn reads the answer's calls: the native ones, or the calls to known tools written in its
// text, on the text path and, rescued, on the native path when Ollama found none. IDs name the
// call within the run's progress group.
func (a answer) turn(path ToolPath, known func(string) bool) answerTurn {
	t := answerTurn{message: api.Message{Role: "assistant", Content: a.RawText, Thinking: a.Thinking, ToolCalls: a.nativeCalls}}
	if path == PathNative && len(a.nativeCalls) > 0 {
		for _, c := range a.nativeCalls {
			t.calls = append(t.calls, tools.Call{Name: c.Function.Name, Args: c.Function.Arguments.ToMap()})
		}
	} else {
		found := toolcall.ExtractKnown(a.RawText, known)
		for _, c := range found {
			t.calls = append(t.calls, tools.Call{Name: c.Name, Args: c.Arguments})
			if !slices.Contains(t.dialects, c.Dialect) {
				t.dialects = append(t.dialects, c.Dialect)
			}
		}
		if path == PathNative && len(found) > 0 {
			t.rescued = true
			t.message = rescuedMessage(a, found, known)
		}
	}
	for i := range t.calls {
		t.calls[i].ID = fmt.Sprint(i)
	}
	return t
}

// rescuedMessage is a native-path answer whose calls were read from its text, as Ollama's own
// parser should have delivered it: the prose as content and the calls as tool_calls. The chat
// template then renders the calls in the model's own native format and pairs each tool result
// with its call, and the model sees itself calling tools the way it was asked to; raw markup
// left in the content would teach it the dialect Ollama missed.
func rescuedMessage(a answer, calls []toolcall.Call, known func(string) bool) api.Message {
	msg := api.Message{Role: "assistant", Content: toolcall.RemoveKnown(a.RawText, known), Thinking: a.Thinking}
	for i, c := range calls {
		args := api.NewToolCallFunctionArguments()
		for _, k := range slices.Sorted(maps.Keys(c.Arguments)) {
			args.Set(k, c.Arguments[k])
		}
		msg.ToolCalls = append(msg.ToolCalls, api.ToolCall{
			ID:       rescuedCallID(i),
			Function: api.ToolCallFunction{Index: i, Name: c.Name, Arguments: args},
		})
	}
	return msg
}

// rescuedCallID names a rescued call the way Ollama names the calls it parses ("call_…"),
// for templates that pair results with calls by id.
func rescuedCallID(i int) string {
	var b [4]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return fmt.Sprintf("call_%x%d", b, i)
}

// streamAnswer makes one model call, showing the answer as it streams; started is called when
// the first piece arrives. On an error the answer holds what arrived before it. On the text
// path native calls are ignored: the request offered no tools.
func streamAnswer(ctx context.Context, model ChatModel, req llm.ChatRequest, path ToolPath, opts StreamOptions, sink StreamSink, started func()) (answer, error) {
	p := NewStreamProcessor(sink, opts)
	first := true
	resp, err := model.Chat(ctx, req, func(c llm.Chunk) error {
		if first {
			first = false
			started()
		}
		chunk := Chunk{Thinking: c.Thinking, Content: c.Content}
		for _, tc := range c.ToolCalls {
			chunk.ToolCalls = append(chunk.ToolCalls, ToolCallStart{Name: tc.Function.Name, Args: tc.Function.Arguments.ToMap()})
		}
		p.Add(chunk)
		return nil
	})
	ans := answer{Result: p.Finish(), nativeCalls: resp.ToolCalls, truncated: resp.Truncated, metrics: resp.Metrics}
	if path == PathText {
		ans.nativeCalls = nil
	}
	return ans, err
}

// answerSink shows one answer in the UI through the run's events. Text and thinking are
// deltas (throttled, batched); the collapse and the spinner change state and are stored at
// once. Emit failures are kept for the end of the run: the answer itself still goes on.
type answerSink struct {
	ctx       context.Context
	emit      *runEmitter
	iteration int
}

func (s answerSink) Text(visible string) {
	s.emit.delta(s.ctx, events.AssistantText, TextPayload{Iteration: s.iteration, Text: visible})
}

func (s answerSink) Thinking(text string) {
	s.emit.delta(s.ctx, events.Thinking, TextPayload{Iteration: s.iteration, Text: text})
}

func (s answerSink) ThinkingDone(d time.Duration) {
	s.emit.state(s.ctx, events.ThinkingDone, ThinkingDonePayload{Iteration: s.iteration, DurationMs: d.Milliseconds()})
}

func (s answerSink) Spinner(label string) {
	s.emit.state(s.ctx, events.Spinner, SpinnerPayload{Label: label})
}
