package agent

import "sync"

// The estimate counts four characters a token; a model's tokenizer may pack much less (the
// llama-2 tokenizer about half as much). Within a run Ollama's own counts correct the estimate,
// but the first request of every run is planned on the estimate alone: a dense tokenizer would
// have every run's first prompt cut and asked again. TokenDensity carries what Ollama counted
// into the session's later runs.

// TokenDensity remembers, per model, how many tokens Ollama counted for each token the estimate
// expected. The zero value and nil know nothing (a density of 1). Safe for concurrent use.
type TokenDensity struct {
	mu    sync.Mutex
	ratio map[string]float64
}

// densityMin and densityMax bound what one odd count can make of the estimate.
const (
	densityMin = 1.0 // a sparser tokenizer leaves room: the estimate stays as it is
	densityMax = 4.0
)

// Of is the model's density, 1 when nothing was counted yet.
func (d *TokenDensity) Of(model string) float64 {
	if d == nil {
		return 1
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if r, ok := d.ratio[model]; ok {
		return r
	}
	return 1
}

// Note records a prompt Ollama counted whole (not cut) against its estimate.
func (d *TokenDensity) Note(model string, counted, estimated int) {
	if d == nil || counted <= 0 || estimated < promptCutMinExpected {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ratio == nil {
		d.ratio = map[string]float64{}
	}
	d.ratio[model] = min(max(float64(counted)/float64(estimated), densityMin), densityMax)
}
