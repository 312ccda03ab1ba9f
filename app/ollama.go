package app

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
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

	mu    sync.Mutex
	last  llm.Status
	pulls pulls

	checks  *toolChecks    // models.go
	warming sync.WaitGroup // warm-ups under way (Warm), waited for by Shutdown
}

func newOllamaService(settings *config.Store, emitter *events.Emitter, checks *toolChecks) *OllamaService {
	return &OllamaService{settings: settings, emitter: emitter, wakeups: make(chan struct{}, 1), ctx: context.Background(), checks: checks}
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

// TestHost checks the typed host without saving it: the version and models when it is Ollama,
// else why not (refused, not Ollama, timeout) and what to do, in the Status. An empty host is
// what an empty setting means: $OLLAMA_HOST or the default.
func (s *OllamaService) TestHost(host string) (llm.Status, error) {
	if err := (config.Settings{OllamaHost: host}).Validate(); err != nil {
		return llm.Status{}, err
	}
	base, err := llm.ResolveHost(strings.TrimSpace(host))
	if err != nil {
		return llm.Status{}, err
	}
	return llm.CheckStatus(s.ctx, base), nil
}

// modelsTimeout bounds listing the models with their capabilities (one /api/show each).
const modelsTimeout = 15 * time.Second

// Models lists the installed models with what each can do (tools, thinking, vision).
func (s *OllamaService) Models() ([]llm.ModelDetail, error) {
	base, err := llm.ResolveHost(s.settings.Get().OllamaHost)
	if err != nil {
		return nil, err
	}
	st := llm.CheckStatus(s.ctx, base)
	if st.Error != "" {
		return nil, errors.New(st.Error + ". " + st.Hint)
	}
	ctx, cancel := context.WithTimeout(s.ctx, modelsTimeout)
	defer cancel()
	return llm.DescribeModels(ctx, base, st.Models), nil
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
