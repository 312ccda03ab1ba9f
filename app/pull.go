package app

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"gantry/internal/events"
	"gantry/internal/llm"
)

// PullState is a model download as every window shows it (mirrored in frontend/src/lib/types.ts).
type PullState struct {
	Model string `json:"model"`
	// State is running, done, failed or cancelled.
	State  string `json:"state"`
	Status string `json:"status"` // Ollama's last words: "pulling manifest", "pulling 3f2a…", …
	// Completed and Total are bytes over all the layers seen so far; the first layer is the model
	// itself, so they are close to the whole download.
	Completed int64   `json:"completed"`
	Total     int64   `json:"total"`
	Percent   float64 `json:"percent"` // 0–100
	Error     string  `json:"error"`   // why it failed, in plain words
}

// Pull states.
const (
	PullRunning   = "running"
	PullDone      = "done"
	PullFailed    = "failed"
	PullCancelled = "cancelled"
)

// pullEmitEvery throttles progress events: Ollama sends many lines a second, a bar needs few.
const pullEmitEvery = 100 * time.Millisecond

// pulls are the downloads in progress, by model name as typed (trimmed, lower case).
type pulls struct {
	mu      sync.Mutex
	running map[string]*pull
}

type pull struct {
	cancel context.CancelFunc
	state  PullState
	layers map[string][2]int64 // digest → completed, total
}

func pullKey(model string) string { return strings.ToLower(strings.TrimSpace(model)) }

// Pull starts downloading model onto the Ollama server and returns at once; modelPull events
// report the progress to every window, and the model list is re-read when it is done. Pulling a
// model that is already downloading joins that download.
func (s *OllamaService) Pull(model string) (PullState, error) {
	model, err := llm.PullName(model)
	if err != nil {
		return PullState{}, err
	}
	base, err := llm.ResolveHost(s.settings.Get().OllamaHost)
	if err != nil {
		return PullState{}, err
	}
	s.pulls.mu.Lock()
	if s.pulls.running == nil {
		s.pulls.running = map[string]*pull{}
	}
	if p := s.pulls.running[pullKey(model)]; p != nil {
		st := p.state
		s.pulls.mu.Unlock()
		return st, nil
	}
	ctx, cancel := context.WithCancel(s.ctx)
	p := &pull{cancel: cancel, layers: map[string][2]int64{}, state: PullState{Model: model, State: PullRunning, Status: "starting"}}
	s.pulls.running[pullKey(model)] = p
	first := p.state
	s.pulls.mu.Unlock()

	s.emitPull(ctx, first, false)
	go s.runPull(ctx, base, p)
	return first, nil
}

func (s *OllamaService) runPull(ctx context.Context, base *url.URL, p *pull) {
	defer p.cancel()
	var last time.Time
	err := llm.Pull(ctx, base, p.state.Model, func(pr llm.PullProgress) {
		s.pulls.mu.Lock()
		prevStatus := p.state.Status
		p.progress(pr)
		st := p.state
		s.pulls.mu.Unlock()
		if st.Status != prevStatus || time.Since(last) >= pullEmitEvery {
			last = time.Now()
			s.emitPull(ctx, st, false)
		}
	})

	s.pulls.mu.Lock()
	switch {
	case err == nil:
		p.state.State, p.state.Percent, p.state.Completed = PullDone, 100, p.state.Total
	case errors.Is(err, context.Canceled):
		p.state.State, p.state.Error = PullCancelled, ""
	default:
		p.state.State, p.state.Error = PullFailed, err.Error()
	}
	final := p.state
	delete(s.pulls.running, pullKey(p.state.Model))
	s.pulls.mu.Unlock()

	// The app's context, not the pull's: a cancelled pull must still be reported.
	if final.State == PullDone {
		s.check(s.ctx)
	}
	s.emitPull(s.ctx, final, true)
}

// progress folds one line of Ollama's stream into the state; the caller holds the lock.
func (p *pull) progress(pr llm.PullProgress) {
	p.state.Status = pr.Status
	if pr.Digest != "" && pr.Total > 0 {
		p.layers[pr.Digest] = [2]int64{pr.Completed, pr.Total}
	}
	var done, total int64
	for _, l := range p.layers {
		done, total = done+l[0], total+l[1]
	}
	p.state.Completed, p.state.Total = done, total
	if total > 0 {
		p.state.Percent = float64(int(float64(done)/float64(total)*1000)) / 10
	}
	if pr.Status == "success" {
		p.state.Percent = 100
	}
}

func (s *OllamaService) emitPull(ctx context.Context, st PullState, final bool) {
	var err error
	if final {
		_, err = s.emitter.Emit(ctx, events.Scope{}, events.ModelPull, st)
	} else {
		err = s.emitter.EmitDelta(ctx, events.Scope{}, events.ModelPull, st)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		slog.Warn("emitting model pull", "model", st.Model, "err", err)
	}
}

// CancelPull stops a download; Ollama keeps the finished layers, so pulling again resumes.
// Cancelling one that already ended does nothing.
func (s *OllamaService) CancelPull(model string) error {
	s.pulls.mu.Lock()
	p := s.pulls.running[pullKey(model)]
	s.pulls.mu.Unlock()
	if p != nil {
		p.cancel()
	}
	return nil
}

// Pulls are the downloads in progress, for a window that opens while one runs.
func (s *OllamaService) Pulls() []PullState {
	s.pulls.mu.Lock()
	defer s.pulls.mu.Unlock()
	out := []PullState{}
	for _, p := range s.pulls.running {
		out = append(out, p.state)
	}
	slices.SortFunc(out, func(a, b PullState) int { return strings.Compare(a.Model, b.Model) })
	return out
}
