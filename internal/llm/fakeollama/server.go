// Package fakeollama is a scripted stand-in for an Ollama server, for tests. It speaks Ollama
// v0.17.4's wire protocol, encoded with the api package's own types, so code under test cannot
// tell it from the real thing; what it answers comes from a Script.
//
// Besides the Ollama endpoints it serves control endpoints for tests in other processes:
//
//	POST /_fake/script    body: Script      replace the script (queued turns included)
//	POST /_fake/turns     body: []Turn      queue more turns
//	GET  /_fake/requests  → []api.ChatRequest, every /api/chat request for an answer, oldest first
//	POST /_fake/reset                       back to the script given to New, requests forgotten
//	POST /_fake/release   body: {"name": …} let the turns and loads held on that name go on (Turn.Hold, Script.HoldLoads)
//	GET  /_fake/loads     → []Load, every model load so far (model and num_ctx), oldest first
//	POST /_fake/pulls/release               let pulls held by Script.PullHold finish
//
// "Ollama went away and came back": SetDown(true) closes the listener and every open connection
// (clients get connection refused), SetDown(false) listens again on the same port. Out of process,
// stop the fake-ollama command and start it again with --listen on the same address.
package fakeollama

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// Server is a fake Ollama. Its methods are safe for concurrent use.
type Server struct {
	routes map[string]map[string]http.HandlerFunc

	mu          sync.Mutex
	initial     Script
	script      Script // live state: pulls and deletes change Models, chats consume Turns
	requests    []api.ChatRequest
	resident    map[string]*resident     // models in memory by short name (memory.go)
	loads       []Load                   // every load so far (memory.go)
	gates       map[string]chan struct{} // Turn.Hold names, closed once released (hold.go)
	held        map[string]int           // chats waiting on each
	heldChanged chan struct{}            // closed when a count in held changes
	pullGate    chan struct{}            // with Script.PullHold: closed by ReleasePulls
	addr        string                   // kept across SetDown so the server comes back on the same port
	httpSrv     *http.Server
	ln          net.Listener
}

// New returns a Server that is not listening yet; see Start, or NewTest for tests.
func New(s Script) *Server {
	srv := &Server{resident: map[string]*resident{}}
	srv.setScriptLocked(s)
	srv.routes = map[string]map[string]http.HandlerFunc{
		"/":               {http.MethodGet: srv.handleRoot, http.MethodHead: srv.handleRoot},
		"/api/version":    {http.MethodGet: srv.handleVersion, http.MethodHead: srv.handleVersion},
		"/api/tags":       {http.MethodGet: srv.handleTags, http.MethodHead: srv.handleTags},
		"/api/show":       {http.MethodPost: srv.handleShow},
		"/api/ps":         {http.MethodGet: srv.handlePs},
		"/api/chat":       {http.MethodPost: srv.handleChat},
		"/api/pull":       {http.MethodPost: srv.handlePull},
		"/api/delete":     {http.MethodDelete: srv.handleDelete},
		"/_fake/script":   {http.MethodPost: srv.handleSetScript},
		"/_fake/turns":    {http.MethodPost: srv.handleEnqueue},
		"/_fake/requests": {http.MethodGet: srv.handleRequests},
		"/_fake/reset":    {http.MethodPost: srv.handleReset},
		"/_fake/release":  {http.MethodPost: srv.handleRelease},
		"/_fake/loads":    {http.MethodGet: srv.handleLoads},
		"/_fake/pulls/release": {http.MethodPost: func(w http.ResponseWriter, _ *http.Request) {
			srv.ReleasePulls()
			w.WriteHeader(http.StatusNoContent)
		}},
	}
	return srv
}

// NewTest returns a Server listening on a random loopback port, closed when the test ends.
func NewTest(t testing.TB, s Script) *Server {
	t.Helper()
	srv := New(s)
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatalf("fakeollama: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// Start listens on addr ("127.0.0.1:0" picks a free port) and serves in the background.
func (s *Server) Start(addr string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.httpSrv != nil {
		return errors.New("fakeollama: already started")
	}
	return s.listenLocked(addr)
}

func (s *Server) listenLocked(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	s.addr, s.ln = ln.Addr().String(), ln
	s.httpSrv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func(hs *http.Server) { _ = hs.Serve(ln) }(s.httpSrv)
	return nil
}

// URL is the base URL, like http://127.0.0.1:41234. It stays valid across SetDown.
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return "http://" + s.addr
}

// Close stops listening and drops open connections, in-flight streams included.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closeLocked()
}

func (s *Server) closeLocked() error {
	if s.httpSrv == nil {
		return nil
	}
	// Serve may not have registered the listener yet, and then http.Server.Close would miss it
	// and leave the port accepting connections for a moment. Closing it twice is harmless.
	_ = s.ln.Close()
	err := s.httpSrv.Close()
	s.httpSrv, s.ln = nil, nil
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

// SetDown(true) makes the server vanish: the listener and every connection are closed, so
// clients see connection refused or a dropped stream. SetDown(false) brings it back on the same
// address. Script, queued turns and recorded requests survive.
func (s *Server) SetDown(down bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.addr == "" {
		return errors.New("fakeollama: SetDown before Start")
	}
	if down {
		return s.closeLocked()
	}
	if s.httpSrv != nil {
		return nil
	}
	return s.listenLocked(s.addr)
}

// Enqueue adds turns after those already queued.
func (s *Server) Enqueue(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script.Turns = append(s.script.Turns, turns...)
}

// SetScript replaces the whole state: version, models, library and queued turns.
func (s *Server) SetScript(sc Script) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = sc.clone()
	s.holdPullsLocked(sc.PullHold)
}

// setScriptLocked makes sc the script, initial and live.
func (s *Server) setScriptLocked(sc Script) {
	s.initial, s.script = sc.clone(), sc.clone()
	s.holdPullsLocked(sc.PullHold)
}

func (s *Server) holdPullsLocked(hold bool) {
	s.pullGate = nil
	if hold {
		s.pullGate = make(chan struct{})
	}
}

// ReleasePulls lets the pulls held by Script.PullHold finish, and those started later run
// through.
func (s *Server) ReleasePulls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pullGate != nil {
		close(s.pullGate)
		s.pullGate = nil
	}
}

// Reset restores the script given to New, forgets recorded requests and loads, and empties
// the memory: every model is cold again.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setScriptLocked(s.initial)
	s.requests = nil
	s.resident = map[string]*resident{}
	s.loads = nil
	// Chats held for the last test answer now, and the next test's holds start closed.
	for name := range s.gates {
		s.releaseLocked(name)
	}
	s.gates, s.held = nil, map[string]int{}
}

// Requests returns every /api/chat request for an answer received so far (those with messages:
// loads and unloads are not), oldest first, including those that were answered with an error.
func (s *Server) Requests() []api.ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	methods, ok := s.routes[r.URL.Path]
	if !ok {
		writeText(w, http.StatusNotFound, "404 page not found")
		return
	}
	h, ok := methods[r.Method]
	if !ok {
		writeText(w, http.StatusMethodNotAllowed, "405 method not allowed")
		return
	}
	h(w, r)
}

func (s *Server) handleRoot(w http.ResponseWriter, _ *http.Request) {
	writeText(w, http.StatusOK, "Ollama is running")
}

func (s *Server) handleVersion(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	v := s.script.Version
	s.mu.Unlock()
	if v == "" {
		v = "0.17.4"
	}
	writeJSON(w, http.StatusOK, map[string]string{"version": v})
}

func (s *Server) handleSetScript(w http.ResponseWriter, r *http.Request) {
	var sc Script
	if !decodeControl(w, r, &sc) {
		return
	}
	s.SetScript(sc)
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleEnqueue(w http.ResponseWriter, r *http.Request) {
	var turns []Turn
	if !decodeControl(w, r, &turns) {
		return
	}
	s.Enqueue(turns...)
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleRequests(w http.ResponseWriter, _ *http.Request) {
	reqs := s.Requests()
	if reqs == nil {
		reqs = []api.ChatRequest{}
	}
	writeJSON(w, http.StatusOK, reqs)
}

func (s *Server) handleReset(w http.ResponseWriter, _ *http.Request) {
	s.Reset()
	w.WriteHeader(http.StatusNoContent)
}

func decodeControl(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "fakeollama: "+err.Error())
		return false
	}
	return true
}

// sleep waits d unless the request goes away first; it reports whether to carry on.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
