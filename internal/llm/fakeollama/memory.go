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
	hold := ""
	if fresh {
		hold = s.script.HoldLoads
	}
	s.mu.Unlock()

	if fresh {
		if !s.hold(ctx, hold) {
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

func (s *Server) handleLoads(w http.ResponseWriter, _ *http.Request) {
	loads := s.Loads()
	if loads == nil {
		loads = []Load{}
	}
	writeJSON(w, http.StatusOK, loads)
}
