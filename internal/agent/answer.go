package agent

import (
	"context"
	"fmt"
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
	Chat(ctx context.Context, req llm.ChatRequest, onChunk func(llm.Chunk) error) (llm.Response, error)
}

// answer is one streamed model answer.
type answer struct {
	Result
	nativeCalls []api.ToolCall // as Ollama sent them; kept verbatim for the history
	truncated   bool
}

// calls returns the tool calls of the answer: the native ones, or on the text path those
// written in the text. IDs name the call within the run's progress group.
func (a answer) calls(path ToolPath) []tools.Call {
	var out []tools.Call
	if path == PathNative {
		for _, c := range a.nativeCalls {
			out = append(out, tools.Call{Name: c.Function.Name, Args: c.Function.Arguments.ToMap()})
		}
	} else {
		for _, c := range toolcall.Extract(a.RawText) {
			out = append(out, tools.Call{Name: c.Name, Args: c.Arguments})
		}
	}
	for i := range out {
		out[i].ID = fmt.Sprint(i)
	}
	return out
}

// streamAnswer makes one model call, showing the answer as it streams. On an error the answer
// holds what arrived before it.
func streamAnswer(ctx context.Context, model ChatModel, req llm.ChatRequest, opts StreamOptions, sink StreamSink) (answer, error) {
	p := NewStreamProcessor(sink, opts)
	resp, err := model.Chat(ctx, req, func(c llm.Chunk) error {
		chunk := Chunk{Thinking: c.Thinking, Content: c.Content}
		for _, tc := range c.ToolCalls {
			chunk.ToolCalls = append(chunk.ToolCalls, ToolCallStart{Name: tc.Function.Name, Args: tc.Function.Arguments.ToMap()})
		}
		p.Add(chunk)
		return nil
	})
	ans := answer{Result: p.Finish(), nativeCalls: resp.ToolCalls, truncated: resp.Truncated}
	if opts.TextPath {
		ans.nativeCalls = nil
	}
	return ans, err
}

// answerSink shows one answer in the UI through the run's events. Text and thinking are
// deltas (throttled, batched), and so is the spinner, as progress; the collapse changes state
// and is stored at once. Emit failures are kept for the end of the run: the answer itself
// still goes on.
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
	s.emit.progress(s.ctx, events.Spinner, SpinnerPayload{Label: label})
}
