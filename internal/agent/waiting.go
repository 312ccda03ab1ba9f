package agent

import (
	"context"

	"github.com/ollama/ollama/api"

	"gantry/internal/events"
)

// Before an answer's first token the model may have to be loaded, and then it reads the prompt:
// on a laptop each can take a minute, and a spinner that says nothing about it looks like a
// hang (there is no first-token timeout: a slow machine is not a failure). The run names each
// wait, and after the answer reports Ollama's own counts of the context window, so the person
// sees how full it really is. These are progress (runEmitter.progress), shown within the UI's
// throttle: a run sends three a model call, each would be a transaction of its own, and the
// waits they name last seconds when they matter. Waiting in line (queue.go) goes at once.

// The phases of ModelWaitingPayload.
const (
	WaitQueued  = "queued"  // another task is using the model: the request waits in line (queue.go)
	WaitLoading = "loading" // Ollama is loading the model into memory
	WaitPrefill = "prefill" // the model is reading the prompt
	WaitNone    = ""        // the answer is arriving
)

// ModelWaitingPayload says what the wait before an answer's first token is for.
type ModelWaitingPayload struct {
	Phase string `json:"phase"`
	Model string `json:"model"`
	// PromptTokens is the prompt's expected size while it is read.
	PromptTokens int `json:"promptTokens,omitempty"`
}

// ContextUsagePayload is how much of the context window an answer used, as Ollama counted it:
// the prompt it read and the answer it wrote, and how long loading, reading and writing took.
type ContextUsagePayload struct {
	Iteration    int    `json:"iteration"`
	Model        string `json:"model"`
	PromptTokens int    `json:"promptTokens"` // prompt_eval_count
	AnswerTokens int    `json:"answerTokens"` // eval_count
	Window       int    `json:"window"`       // the num_ctx sent
	LoadMs       int64  `json:"loadMs"`
	PromptMs     int64  `json:"promptMs"`
	AnswerMs     int64  `json:"answerMs"`
}

// awaitModel tells the person what the coming wait is for: the model loading (which it then
// waits for, so that the wait after it is the prompt being read) and the prompt of about
// expected tokens being read.
func (a *agentRun) awaitModel(ctx context.Context, expected int) error {
	ready, err := a.deps.LLM.Running(ctx, a.req.Model, a.numCtx)
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	// A server that cannot list what it has loaded still loads on request.
	if !ready {
		a.emit.progress(ctx, events.ModelWaiting, ModelWaitingPayload{Phase: WaitLoading, Model: a.req.Model})
		if err := a.deps.LLM.Load(ctx, a.req.Model, a.numCtx, 0); err != nil {
			return err
		}
	}
	a.emit.progress(ctx, events.ModelWaiting, ModelWaitingPayload{Phase: WaitPrefill, Model: a.req.Model, PromptTokens: expected})
	return nil
}

// answerStarted clears the wait: the first token arrived.
func (a *agentRun) answerStarted(ctx context.Context) {
	a.emit.progress(ctx, events.ModelWaiting, ModelWaitingPayload{Phase: WaitNone, Model: a.req.Model})
}

// reportUsage sends an answer's counts; a server that reports none sends nothing.
func (a *agentRun) reportUsage(ctx context.Context, iteration int, m api.Metrics) {
	if m.PromptEvalCount == 0 && m.EvalCount == 0 {
		return
	}
	a.emit.progress(ctx, events.ContextUsage, ContextUsagePayload{
		Iteration: iteration, Model: a.req.Model, PromptTokens: m.PromptEvalCount, AnswerTokens: m.EvalCount,
		Window: a.numCtx, LoadMs: m.LoadDuration.Milliseconds(), PromptMs: m.PromptEvalDuration.Milliseconds(),
		AnswerMs: m.EvalDuration.Milliseconds(),
	})
}
