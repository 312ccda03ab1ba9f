package agent

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"gantry/internal/events"
	"gantry/internal/llm"
	"gantry/internal/tools"
)

const (
	// compactAt is the share of num_ctx above which the history is compacted before a request:
	// the rest is room for the answer, and Ollama silently drops the start of a longer prompt.
	compactAt = 0.75
	// compactKeep is the share of the history's room (what compactAt leaves after the system
	// prompt and tool schemas) the verbatim recent turns may fill after compaction; the last
	// exchange is kept whatever its size.
	compactKeep = 0.50
	// compactInput is the share of num_ctx the transcript sent for summarising may fill.
	compactInput = 0.50
	// compactClip bounds each message in that transcript: old tool output matters by its gist.
	compactClip = 600
	// compactSummaryTokens bounds the summary's length, with room for a thinking model's
	// thoughts (the client cannot send think:false).
	compactSummaryTokens = 768
)

// compactSummaryPrefix opens the message that replaces the summarised turns.
const compactSummaryPrefix = "Summary of the earlier conversation (older messages were replaced by it to save context):\n"

const compactInstruction = "Summarise this conversation for yourself, to continue the work from the summary alone: " +
	"the task, what was done, the files read and changed, what was found and decided, and what is left to do. " +
	"Be concise and concrete (file names, functions, errors). Plain text, no tool calls."

// ContextCompactedPayload is the contextCompacted event: older turns were replaced to fit the
// model's context window. Before and After are estimated prompt tokens.
type ContextCompactedPayload struct {
	Before             int `json:"before"`
	After              int `json:"after"`
	SummarisedMessages int `json:"summarisedMessages"`
	// Fallback says why the older turns were dropped without a summary; "" when summarised.
	Fallback string `json:"fallback,omitempty"`
}

// contextWindow keeps a run's requests inside the model's context (SPEC §10): it refreshes the
// session memory in the system prompt and compacts the history when it nears num_ctx. The
// store keeps every message; compaction only changes what the model is sent, so a later run
// loads the whole conversation and compacts again if it must.
type contextWindow struct {
	prompt  PromptInput // the run's prompt, without memory
	memory  *sessionMemory
	seen    int // history messages the memory has observed
	task    int // index of the run's own message in the history; -1 before the first request
	started bool
	// last is how many tokens Ollama counted in the last prompt (0: none since the history
	// was last compacted): a better measure than the estimate, whose four characters a token
	// is only an average.
	last    int
	sent    int    // history messages in the last request
	sentSys string // system prompt of the last request
}

func newContextWindow(prompt PromptInput) *contextWindow {
	return &contextWindow{prompt: prompt, memory: newSessionMemory(), task: -1}
}

// observe brings the memory up to date with the history.
func (w *contextWindow) observe(h *history) {
	w.memory.observe(h.msgs[w.seen:], h.times[w.seen:], h.metas[w.seen:])
	w.seen = len(h.msgs)
}

// noteStaleFiles tells the model which files it knows changed on disk since it saw them, and
// the person that it was told.
func (a *agentRun) noteStaleFiles(ctx context.Context) error {
	a.window.observe(a.hist)
	note, told := a.window.memory.staleNote(a.req.Workspace)
	if note == "" {
		return nil
	}
	if err := a.hist.addAt(ctx, api.Message{Role: "user", Content: note}, time.Time{}, messageMeta{Told: &told}); err != nil {
		return err
	}
	a.emit.state(ctx, events.FilesChangedOnDisk, told)
	return nil
}

// windowedRequest is the next loop request: the system prompt with the current memory, then
// the history, compacted first when it nears the window. It also returns the request's
// expected size in tokens.
func (a *agentRun) windowedRequest(ctx context.Context) (conversation, int) {
	w := a.window
	if !w.started {
		w.started = true
		w.task = a.hist.lastUserMessage()
	}
	w.observe(a.hist)
	w.prompt.Memory = w.memory.String()
	a.system = BuildSystemPrompt(w.prompt)

	if before := a.promptTokens(); before > int(compactAt*float64(a.numCtx)) {
		a.compact(ctx, before, compactKeep)
	}
	w.sent, w.sentSys = len(a.hist.msgs), a.system
	return a.hist.request(a.system), a.promptTokens()
}

// lastUserMessage is the person's latest message: a user message that carries no tool results
// and no note of Gantry's to the model.
func (h *history) lastUserMessage() int {
	for i := len(h.msgs) - 1; i >= 0; i-- {
		if h.msgs[i].Role == "user" && h.metas[i].empty() {
			return i
		}
	}
	return -1
}

// promptTokens estimates the next request: Ollama's count for the last one plus the messages
// added since, but never below the character estimate (scaled by the tokenizer's density the
// session learnt), because some Ollama versions leave tokens served from the prompt cache out
// of prompt_eval_count (ollama/ollama#8008).
func (a *agentRun) promptTokens() int {
	w := a.window
	n := a.densityTokens()
	if w.last > 0 && w.sent <= len(a.hist.msgs) {
		n = max(n, w.last+a.hist.tokensFrom(w.sent)+EstimateTokens(a.system)-EstimateTokens(w.sentSys))
	}
	return n
}

func (a *agentRun) estimatedTokens() int {
	return a.fixedTokens() + a.hist.tokensFrom(0)
}

// densityTokens is the estimate scaled by what the session learnt of the model's tokenizer.
func (a *agentRun) densityTokens() int {
	return int(float64(a.estimatedTokens()) * a.deps.Density.Of(a.req.Model))
}

// fixedTokens estimates what every request costs before the history: the system prompt as it
// is now (memory included) and, on the native path, the tools[] the run sends, at the level
// PlanPrompt chose, so compaction's room is what the window really has left.
func (a *agentRun) fixedTokens() int {
	return EstimateTokens(a.system) + a.wireTokens
}

// messageTokens estimates messages as chat templates frame them: a few tokens each for the
// role markers, then the text, thinking and calls.
func messageTokens(msgs []api.Message) int {
	n := 0
	for _, m := range msgs {
		n += 4 + EstimateTokens(m.Content) + EstimateTokens(m.Thinking)
		for _, c := range m.ToolCalls {
			n += EstimateTokens(c.Function.Name) + EstimateTokens(c.Function.Arguments.String())
		}
	}
	return n
}

// compact replaces the older turns with the model's summary of them: the run's task and the
// recent turns stay verbatim (as many as fit in keep of the history's room), and the memory
// stays in the system prompt. When the summary cannot be had, the older turns are dropped and
// the memory carries what they did. It reports whether there was anything older to replace.
func (a *agentRun) compact(ctx context.Context, before int, keep float64) bool {
	w := a.window
	recent, old := a.olderTurns(keep)
	if len(old) == 0 || ctx.Err() != nil {
		return false // nothing older to give up
	}
	msgs := a.hist.msgs

	a.emit.state(ctx, events.Spinner, SpinnerPayload{Label: "Summarising the conversation"})
	summary, err := a.summarise(ctx, old)
	a.emit.state(ctx, events.Spinner, SpinnerPayload{})
	if ctx.Err() != nil {
		return false
	}
	payload := ContextCompactedPayload{Before: before, SummarisedMessages: len(old)}
	var replaced api.Message
	if err != nil {
		payload.Fallback = "the summary failed (" + err.Error() + "); the older messages were dropped"
		replaced = api.Message{Role: "user", Content: fmt.Sprintf(
			"(%d earlier messages were dropped to fit the context window; the session memory in the system prompt lists what they did.)", len(old))}
	} else {
		replaced = api.Message{Role: "user", Content: compactSummaryPrefix + summary}
	}

	next := make([]api.Message, 0, len(msgs)-recent+2)
	if w.task >= 0 && w.task < recent {
		next = append(next, msgs[w.task])
	}
	next = append(next, replaced)
	if w.task >= recent {
		w.task = len(next) + w.task - recent
	} else if w.task >= 0 {
		w.task = 0
	}
	a.hist.replaceBefore(recent, next)
	w.seen, w.last = len(a.hist.msgs), 0
	payload.After = a.estimatedTokens()
	a.emit.state(ctx, events.ContextCompacted, payload)
	return true
}

// olderTurns splits the history for compaction: where the verbatim recent turns start, and the
// older messages (the run's task aside) a summary would replace.
func (a *agentRun) olderTurns(keep float64) (recent int, old []api.Message) {
	room := int(compactAt*float64(a.numCtx)) - a.fixedTokens()
	recent = recentTurnsStart(a.hist.msgs, int(keep*float64(room)))
	for i, m := range a.hist.msgs[:recent] {
		if i != a.window.task {
			old = append(old, m)
		}
	}
	return recent, old
}

// recentTurnsStart is where the verbatim tail of the history begins: at an assistant message,
// so that no call is parted from its results, taking the last exchange whatever its size and
// earlier ones while the tail fits in budget tokens. It returns 0 when there is no such start.
func recentTurnsStart(msgs []api.Message, budget int) int {
	start, size := len(msgs), 0
	for i := len(msgs) - 1; i > 0; i-- {
		size += messageTokens(msgs[i : i+1])
		if msgs[i].Role != "assistant" {
			continue
		}
		if start < len(msgs) && size > budget {
			break
		}
		start = i
	}
	if start == len(msgs) {
		return 0
	}
	return start
}

// summarise asks the model, without tools, to summarise the older turns, sent as one clipped
// transcript so that the request fits whatever the turns held. The caller has the run's turn at
// the model (nextAnswer).
func (a *agentRun) summarise(ctx context.Context, old []api.Message) (string, error) {
	budget := int(compactInput * float64(a.numCtx))
	var parts []string
	used := 0
	for i := len(old) - 1; i >= 0; i-- { // the newest turns matter most when not all fit
		p := transcriptLine(old[i])
		if used += EstimateTokens(p); used > budget && len(parts) > 0 {
			break
		}
		parts = append(parts, p)
	}
	var b strings.Builder
	for i := len(parts) - 1; i >= 0; i-- {
		b.WriteString(parts[i] + "\n\n")
	}
	// The run's num_ctx, so that Ollama does not reload the model for this call.
	resp, err := a.deps.LLM.Chat(ctx, llm.ChatRequest{
		Model: a.req.Model, NumCtx: a.numCtx, NumPredict: compactSummaryTokens,
		Messages: []api.Message{
			{Role: "system", Content: "You summarise a coding agent's conversation so that it can continue the work."},
			{Role: "user", Content: "CONVERSATION:\n\n" + b.String() + compactInstruction},
		},
	}, nil)
	if err != nil {
		return "", err
	}
	text := strings.TrimSpace(resp.Content)
	if text == "" {
		return "", fmt.Errorf("the model returned no summary")
	}
	return text, nil
}

func transcriptLine(m api.Message) string {
	var b strings.Builder
	b.WriteString(m.Role)
	if m.ToolName != "" {
		b.WriteString(" (" + m.ToolName + ")")
	}
	b.WriteString(": " + tools.Clip(m.Content, compactClip))
	for _, c := range m.ToolCalls {
		b.WriteString(fmt.Sprintf("\n[called %s %s]", c.Function.Name, tools.Clip(c.Function.Arguments.String(), 200)))
	}
	return b.String()
}
