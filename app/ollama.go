package app

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"gantry/internal/config"
	"gantry/internal/events"
	"gantry/internal/llm"
)

// How often the monitor re-checks the server. Quick while it is down so the UI recovers soon
// after `ollama serve` starts; slow while it is up, to notice it going away without chatter.
const (
	recheckWhileDown = 3 * time.Second
	recheckWhileUp   = 30 * time.Second
)

// OllamaService reports whether the configured Ollama server is reachable and what it has.
type OllamaService struct {
	settings *config.Store
	emitter  *events.Emitter

	ctx     context.Context
	wakeups chan struct{}

	mu   sync.Mutex
	last llm.Status
}

func newOllamaService(settings *config.Store, emitter *events.Emitter) *OllamaService {
	return &OllamaService{settings: settings, emitter: emitter, wakeups: make(chan struct{}, 1), ctx: context.Background()}
}

func (s *OllamaService) start(ctx context.Context) { s.ctx = ctx }

// Status is the last known status, without asking the server.
func (s *OllamaService) Status() llm.Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// Refresh asks the server now and returns what it said.
func (s *OllamaService) Refresh() llm.Status {
	return s.check(s.ctx)
}

func (s *OllamaService) check(ctx context.Context) llm.Status {
	var st llm.Status
	base, err := llm.ResolveHost(s.settings.Get().OllamaHost)
	if err != nil {
		st = llm.Status{Host: s.settings.Get().OllamaHost, Error: err.Error(), Hint: "Fix the Ollama host in Settings.", CheckedAt: time.Now()}
	} else {
		st = llm.CheckStatus(ctx, base)
	}
	s.mu.Lock()
	changed := !sameStatus(s.last, st)
	s.last = st
	s.mu.Unlock()
	if changed {
		if _, err := s.emitter.Emit(ctx, events.Scope{}, events.OllamaStatus, st); err != nil {
			slog.Warn("emitting ollama status", "err", err)
		}
	}
	return st
}

// sameStatus ignores the check time so an unchanged server emits nothing.
func sameStatus(a, b llm.Status) bool {
	return a.Host == b.Host && a.Reachable == b.Reachable && a.Version == b.Version && a.Error == b.Error &&
		slices.EqualFunc(a.Models, b.Models, func(x, y llm.Model) bool { return x == y })
}

// wake makes the monitor check now (after the host setting changed).
func (s *OllamaService) wake() {
	select {
	case s.wakeups <- struct{}{}:
	default:
	}
}

// monitor checks the server until ctx ends.
func (s *OllamaService) monitor(ctx context.Context) {
	for {
		st := s.check(ctx)
		wait := recheckWhileUp
		if !st.Reachable {
			wait = recheckWhileDown
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-s.wakeups:
			timer.Stop()
		case <-timer.C:
		}
	}
}
