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
// prompt was cut, the person is told, the history compacted harder and the question asked once
// more; a prompt cut again ends the run.

// PromptCutPayload says Ollama cut the prompt to fit the context window: it read PromptTokens
// of a prompt expected to be about Expected tokens. Retrying: the answer was set aside, the
// conversation compacted and the question asked again; otherwise the run stops.
type PromptCutPayload struct {
	Iteration    int  `json:"iteration"`
	PromptTokens int  `json:"promptTokens"`
	Expected     int  `json:"expected"`
	Window       int  `json:"window"`
	Retrying     bool `json:"retrying"`
}

// compactAfterCut is the share of the history's room the recent turns keep when compacting
// after a cut: the estimate was too low, so leave more margin than usual.
const compactAfterCut = compactKeep / 2

// promptCut reports whether Ollama cut a prompt, from count (its prompt_eval_count), the
// window (num_ctx), what the run expected to send and Ollama's count of the previous prompt
// of the run when the history has only grown since (0 when unknown):
//   - a count that reaches the window: the runner kept the last num_ctx tokens (within 2%, since
//     little is left for an answer there anyway);
//   - a count below the previous one though only messages were added: older ones were dropped;
//   - a count below half of a prompt expected to fill at least half the window: a count that
//     far off is no estimate's error.
func promptCut(count, window, expected, previous int) bool {
	switch {
	case count <= 0 || window <= 0:
		return false // the server counted nothing
	case count >= window*98/100:
		return true
	case previous > 0 && count < previous*9/10:
		return true
	}
	return expected > window/2 && count < expected/2
}

// errPromptCut ends a run whose prompt Ollama cut even after compacting.
type errPromptCut struct{ PromptCutPayload }

func (e errPromptCut) Error() string {
	return fmt.Sprintf("The conversation does not fit the model's context window of %s tokens: Ollama read only %s tokens of the prompt, "+
		"so the model lost the start of it (its instructions and tools), and compacting did not help. "+
		"Start a new session, attach less, or raise the context length in Settings.",
		thousands(e.Window), thousands(e.PromptTokens))
}

// handleCut deals with an answer to a cut prompt: it tells the person and compacts the
// history so that the question can be asked again, or, when this was already the retry or
// there is nothing older to compact, says why the run must stop.
func (a *agentRun) handleCut(ctx context.Context, cut PromptCutPayload, retried bool) error {
	_, old := a.olderTurns(compactAfterCut)
	cut.Retrying = !retried && len(old) > 0
	a.emit.state(ctx, events.PromptCut, cut)
	if !cut.Retrying {
		return errPromptCut{cut}
	}
	a.window.last = 0 // a cut prompt's count says nothing about the next one
	if !a.compact(ctx, cut.Expected, compactAfterCut) {
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
