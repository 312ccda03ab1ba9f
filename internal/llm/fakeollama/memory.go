package fakeollama

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// What the fake keeps in memory, as Ollama's scheduler does: a model is loaded on the first
// request for it, and loaded again when a request asks for other runner options (num_ctx),
// which is why a client should keep one num_ctx per model. A model being loaded is already
// listed by /api/ps, as with Ollama.

// defaultNumCtx is Ollama's num_ctx when a request sets none.
const defaultNumCtx = 4096

// defaultKeepAlive is how long Ollama keeps a model loaded when the request says nothing.
const defaultKeepAlive = 5 * time.Minute

// Load is one time the fake loaded a model into memory.
type Load struct {
	Model  string `json:"model"`
	NumCtx int    `json:"numCtx"`
}

// Gates hold a request at one of its waits until a test releases it (Server.Release, or
// POST /_fake/release {"gate": …}), so that a test can watch each waiting state without a
// clock: GateLoad holds every load while Script.HoldLoads is set, GatePrefill holds a turn
// with HoldPrefill before its first token.
const (
	GateLoad    = "load"
	GatePrefill = "prefill"
)

// resident is a model in memory, or being loaded (ready still open).
type resident struct {
	name    string
	numCtx  int
	ready   chan struct{}
	expires time.Time
}

// schedule finds the model in memory with numCtx, loading it first when it is not there (or
// is there with another num_ctx), and reports how long that took: Ollama's load_duration. It
// returns false when the request went away first.
func (s *Server) schedule(ctx context.Context, m Model, numCtx int, keepAlive *api.Duration) (time.Duration, bool) {
	start := time.Now()
	key := model.ParseName(m.Name).DisplayShortest()
	s.mu.Lock()
	r := s.resident[key]
	fresh := r == nil || r.numCtx != numCtx
	if fresh {
		r = &resident{name: key, numCtx: numCtx, ready: make(chan struct{})}
		s.resident[key] = r
		s.loads = append(s.loads, Load{Model: key, NumCtx: numCtx})
	}
	r.expires = time.Now().Add(keepAliveOf(keepAlive))
	hold := fresh && s.script.HoldLoads
	s.mu.Unlock()

	if fresh {
		if hold && !s.wait(ctx, GateLoad) {
			s.unload(key, r)
			return 0, false
		}
		close(r.ready)
	}
	select {
	case <-r.ready:
		return time.Since(start), true
	case <-ctx.Done():
		return 0, false
	}
}

func keepAliveOf(d *api.Duration) time.Duration {
	if d == nil || d.Duration < 0 {
		return defaultKeepAlive
	}
	return d.Duration
}

// unload forgets the model (keep_alive 0, or a load the request gave up); only r, so that a
// newer load of the same model stays.
func (s *Server) unload(key string, r *resident) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r == nil || s.resident[key] == r {
		delete(s.resident, key)
	}
}

// numCtxOf is the request's num_ctx, or Ollama's default.
func numCtxOf(req api.ChatRequest) int {
	if v, ok := req.Options["num_ctx"].(float64); ok && v > 0 {
		return int(v)
	}
	return defaultNumCtx
}

// Release lets one request held at gate go on, or the next one to arrive there.
func (s *Server) Release(gate string) {
	select {
	case s.gate(gate) <- struct{}{}:
	default:
	}
}

func (s *Server) gate(name string) chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.gates[name]
	if g == nil {
		g = make(chan struct{}, 64)
		s.gates[name] = g
	}
	return g
}

// wait holds at gate until it is released; false when the request went away first.
func (s *Server) wait(ctx context.Context, gate string) bool {
	select {
	case <-s.gate(gate):
		return true
	case <-ctx.Done():
		return false
	}
}

// Loads returns every load so far, oldest first.
func (s *Server) Loads() []Load {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.loads)
}

func (s *Server) handlePs(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	models := make([]api.ProcessModelResponse, 0, len(s.resident))
	for _, r := range s.resident {
		m, _ := find(s.script.Models, model.ParseName(r.name))
		m = m.withDefaults()
		models = append(models, api.ProcessModelResponse{
			Name: r.name, Model: r.name, Size: m.Size, SizeVRAM: m.Size, Digest: sha256Hex(r.name),
			Details: m.details(), ExpiresAt: r.expires, ContextLength: r.numCtx,
		})
	}
	s.mu.Unlock()
	slices.SortStableFunc(models, func(a, b api.ProcessModelResponse) int { return b.ExpiresAt.Compare(a.ExpiresAt) })
	writeJSON(w, http.StatusOK, api.ProcessResponse{Models: models})
}

func (s *Server) handleRelease(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Gate string `json:"gate"`
	}
	if !decodeControl(w, r, &body) {
		return
	}
	if body.Gate != GateLoad && body.Gate != GatePrefill {
		writeError(w, http.StatusBadRequest, "fakeollama: no gate "+body.Gate)
		return
	}
	s.Release(body.Gate)
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleLoads(w http.ResponseWriter, _ *http.Request) {
	loads := s.Loads()
	if loads == nil {
		loads = []Load{}
	}
	writeJSON(w, http.StatusOK, loads)
}
