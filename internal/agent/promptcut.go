package agent

import (
	"context"
	"fmt"

	"gantry/internal/events"
)

// Ollama never refuses a prompt longer than num_ctx: it drops the oldest messages that do not
// fit (the system prompt and the last message stay) and, when even those do not fit, the
// start of the prompt. The model then answers without its instructions or tools, and the run
// would go on as if nothing happened. The history is compacted before it gets near the window,
// but that works on an estimate (four characters a token), and a dense tokenizer or a huge
// message proves it wrong; only Ollama's count of what it read tells. When that count says the
// prompt was cut, the person is told, and the question is asked once more with less: a leaner
// system prompt (planned as if the window were half its size, since the estimate was that far
// off) and the history compacted harder; a prompt cut again ends the run.

// PromptCutPayload says Ollama cut the prompt to fit the context window: it read PromptTokens
// of a prompt expected to be about Expected tokens. Retrying: the answer was set aside and the
// question asked again, with a leaner system prompt (Leaner) and the older turns compacted
// (Compacted); otherwise the run stops.
type PromptCutPayload struct {
	Iteration    int  `json:"iteration"`
	PromptTokens int  `json:"promptTokens"`
	Expected     int  `json:"expected"`
	Window       int  `json:"window"`
	Retrying     bool `json:"retrying"`
	Leaner       bool `json:"leaner,omitempty"`
	Compacted    bool `json:"compacted,omitempty"`
}

// compactAfterCut is the share of the history's room the recent turns keep when compacting
// after a cut: the estimate was too low, so leave more margin than usual.
const compactAfterCut = compactKeep / 2

// promptCutMinExpected is the least expected prompt whose far lower count means a cut: the
// system prompt alone is larger, and tiny prompts are where an estimate is least sure.
const promptCutMinExpected = 512

// promptCut reports whether Ollama cut a prompt, from count (its prompt_eval_count), the
// window (num_ctx), what the run expected to send and Ollama's count of the previous prompt
// of the run when the history has only grown since (0 when unknown):
//   - a count that reaches the window: the runner kept the last num_ctx tokens (within 2%, since
//     little is left for an answer there anyway);
//   - a count below the previous one though only messages were added: older ones were dropped;
//   - a count below half of what was expected: a count that far off is no estimate's error but
//     messages dropped, the system prompt among them (Ollama before 0.7 drops it when it and the
//     last message do not fit together).
//
// Ollama counts the whole prompt, cached or not (api.Metrics, and its fix ollama#5371); a
// release that left cached tokens out would make the last two rules see cuts that are not.
func promptCut(count, window, expected, previous int) bool {
	switch {
	case count <= 0 || window <= 0:
		return false // the server counted nothing
	case count >= window*98/100:
		return true
	case previous > 0 && count < previous*9/10:
		return true
	}
	return expected >= promptCutMinExpected && count < expected/2
}

// errPromptCut ends a run whose prompt Ollama cut even after compacting.
type errPromptCut struct{ PromptCutPayload }

func (e errPromptCut) Error() string {
	return fmt.Sprintf("The conversation does not fit the model's context window of %s tokens: Ollama read only %s tokens of the prompt, "+
		"so the model lost the start of it (its instructions and tools), and sending less did not help. "+
		"Start a new session, attach less, or raise the context length in Settings.",
		thousands(e.Window), thousands(e.PromptTokens))
}

// handleCut deals with an answer to a cut prompt: it tells the person and makes the next
// request smaller (a leaner system prompt, the older turns compacted) so that the question can
// be asked again, or, when this was already the retry or nothing can be made smaller, says why
// the run must stop.
func (a *agentRun) handleCut(ctx context.Context, cut PromptCutPayload, retried bool) error {
	leaner := PlanPrompt(a.prompt, a.modeTools, a.numCtx/2)
	_, old := a.olderTurns(compactAfterCut)
	cut.Leaner, cut.Compacted = leaner.Tokens < a.level.Tokens, len(old) > 0
	cut.Retrying = !retried && (cut.Leaner || cut.Compacted)
	if !cut.Retrying {
		cut.Leaner, cut.Compacted = false, false
	}
	a.emit.state(ctx, events.PromptCut, cut)
	if !cut.Retrying {
		return errPromptCut{cut}
	}
	a.window.last = 0 // a cut prompt's count says nothing about the next one
	if cut.Leaner {
		a.budget = a.numCtx / 2 // a tool loaded later is planned for in as little
		a.usePlan(leaner)
	}
	if cut.Compacted && !a.compact(ctx, cut.Expected, compactAfterCut) {
		return errPromptCut{cut} // stopped while compacting
	}
	return nil
}

// thousands writes n with a comma between thousands, as the UI does.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
