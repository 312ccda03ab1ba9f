package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"gantry/internal/procgroup"
	"gantry/internal/tools"
)

// State is where a server stands, as Settings shows it.
type State string

const (
	StateIdle      State = "idle"      // not started yet: servers start when first needed
	StateStarting  State = "starting"  // starting, or shaking hands
	StateReady     State = "ready"     // its tools are listed
	StateFailed    State = "failed"    // did not start, or stopped; the next use starts it again
	StateDisabled  State = "disabled"  // turned off in Settings
	StateUntrusted State = "untrusted" // the project's own server, in a folder not trusted
	StateInvalid   State = "invalid"   // the entry cannot be used (Detail says why)
)

// Retry with backoff: a start or a call that failed for a reason that may pass (a connection
// refused or dropped, a server busy) is tried again, up to retryAttempts times in all.
const (
	retryAttempts = 3
	retryFirst    = 250 * time.Millisecond
)

// server is one configured server over time: its live connection, its last tool listing
// (kept while it is down, so its tools stay offered and a call can restart it), and the
// schemas its tools' first calls loaded.
type server struct {
	m      *Manager
	cfg    Config // as written; expanded at each start
	stderr *procgroup.Tail

	mu       sync.Mutex
	state    State
	detail   string
	conn     *conn
	listing  []*sdk.Tool
	loaded   map[string]loadedSchema // by the server's tool name
	starting chan struct{}           // closed when the start under way ends
	retired  bool                    // no longer configured (or the project closed): whatever it starts is stopped
	progress map[string]func(progress, total float64, message string)
}

// loadedSchema is a tool's parameter schema as its first call registered it, and the server's
// schema it came from (a changed listing makes it load again).
type loadedSchema struct {
	params *tools.Schema
	from   string
}

var progressTokens atomic.Uint64

func newServer(m *Manager, cfg Config) *server {
	s := &server{m: m, cfg: cfg, stderr: &procgroup.Tail{Limit: stderrKeep}, loaded: map[string]loadedSchema{},
		progress: map[string]func(float64, float64, string){}}
	switch {
	case cfg.Err != nil:
		s.state, s.detail = StateInvalid, cfg.Err.Error()
	case cfg.Disabled:
		s.state = StateDisabled
	default:
		s.state = StateIdle
	}
	return s
}

// runnable reports whether the server may be started.
func (s *server) runnable() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state != StateDisabled && s.state != StateInvalid && s.state != StateUntrusted
}

// session returns the live connection, starting the server when it is not running (the first
// use, or the next one after a crash). Callers waiting on a start share it; the start itself
// is bound to the manager, not to one caller, so a run stopped meanwhile does not cut short the
// start that Settings waits for too.
func (s *server) session(ctx context.Context) (*conn, error) {
	for {
		s.mu.Lock()
		switch {
		case s.conn != nil && s.conn.alive():
			c := s.conn
			s.mu.Unlock()
			return c, nil
		case s.retired || s.state == StateDisabled || s.state == StateInvalid || s.state == StateUntrusted:
			err := s.unusable()
			s.mu.Unlock()
			return nil, err
		case s.starting != nil:
			ch := s.starting
			s.mu.Unlock()
			select {
			case <-ch:
				s.mu.Lock()
				failed := s.conn == nil
				detail := s.detail
				s.mu.Unlock()
				if failed {
					return nil, errors.New(detail)
				}
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		ch := make(chan struct{})
		s.starting = ch
		s.state, s.detail = StateStarting, ""
		s.mu.Unlock()
		s.m.changed(Event{Server: s.cfg.Name, State: StateStarting})
		go s.start(ch)
	}
}

// unusable says why a server that may not run does not (mu held).
func (s *server) unusable() error {
	if s.retired {
		return fmt.Errorf("the MCP server %s was changed or removed in Gantry's settings, or the project closed", s.cfg.Name)
	}
	switch s.state {
	case StateDisabled:
		return fmt.Errorf("the MCP server %s is turned off in Gantry's settings", s.cfg.Name)
	case StateUntrusted:
		return fmt.Errorf("the MCP server %s comes with this project, which is not trusted, so it does not run", s.cfg.Name)
	}
	return fmt.Errorf("the MCP server %s cannot be used: %s", s.cfg.Name, s.detail)
}

// start connects and lists the tools, trying again with backoff while the failure may pass.
func (s *server) start(done chan struct{}) {
	ctx, cancel := context.WithTimeout(s.m.ctx, startTimeout)
	defer cancel()
	var (
		c       *conn
		listing []*sdk.Tool
		err     error
	)
	for attempt := 1; ; attempt++ {
		c, listing, err = s.connect(ctx)
		if err == nil || !transient(err) || attempt == retryAttempts || !sleep(ctx, backoff(attempt)) {
			break
		}
	}
	s.mu.Lock()
	s.starting = nil
	gone := s.retired || s.m.ctx.Err() != nil
	switch {
	case err == nil && gone:
		// Removed from the settings, or the project closed, while it started: it must not
		// live on unseen.
		defer c.close()
		err = errors.New("it was stopped while it started")
		s.state, s.detail = StateIdle, "It was stopped while it started."
	case err != nil:
		s.state, s.detail = StateFailed, sentence(err)
	default:
		s.conn, s.listing, s.state, s.detail = c, listing, StateReady, ""
		s.forgetChangedSchemas(listing)
	}
	state, n := s.state, len(s.listing)
	s.mu.Unlock()
	close(done)
	if err == nil {
		go s.watch(c)
	}
	s.m.changed(Event{Server: s.cfg.Name, State: state, Tools: n})
}

func (s *server) connect(ctx context.Context) (*conn, []*sdk.Tool, error) {
	cfg, err := s.cfg.expanded(s.m.opts.Root)
	if err != nil {
		return nil, nil, permanent(err)
	}
	s.stderr.Reset()
	c, err := dial(s.m.ctx, cfg, workDir(cfg, s.m.opts.Root), s.stderr, handlers{
		toolsChanged: func() { go s.relist() },
		progress:     s.onProgress,
	}, s.m.opts.Version)
	if err != nil {
		return nil, nil, err
	}
	listing, err := list(ctx, c.session)
	if err != nil {
		c.close()
		return nil, nil, fmt.Errorf("listing its tools: %w", err)
	}
	return c, listing, nil
}

// list reads every page of the server's tools.
func list(ctx context.Context, cs *sdk.ClientSession) ([]*sdk.Tool, error) {
	out := []*sdk.Tool{}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// watch notices the server going away by itself (a crash, the HTTP session ended): its tools
// stay listed and the next use starts it again.
func (s *server) watch(c *conn) {
	<-c.exited
	s.lost(c)
}

// lost records that c is gone, once, whoever noticed first.
func (s *server) lost(c *conn) {
	s.mu.Lock()
	if s.conn != c {
		s.mu.Unlock()
		return // stopped on purpose, or already recorded
	}
	s.conn = nil
	s.state, s.detail = StateFailed, fmt.Sprintf("Stopped (%v).", exitText(c.exitErr))
	s.mu.Unlock()
	c.close()
	s.m.changed(Event{Server: s.cfg.Name, State: StateFailed})
}

func exitText(err error) any {
	if err == nil {
		return "exit status 0"
	}
	return err
}

// sentence words an error as a sentence of its own, for Settings (its stderr is shown apart).
func sentence(err error) string {
	msg := strings.TrimSpace(err.Error())
	if msg == "" {
		return "It failed."
	}
	msg = strings.ToUpper(msg[:1]) + msg[1:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// relist reads the tools again after the server said they changed.
func (s *server) relist() {
	s.mu.Lock()
	c := s.conn
	s.mu.Unlock()
	if c == nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.m.ctx, startTimeout)
	defer cancel()
	listing, err := list(ctx, c.session)
	if err != nil {
		return // a server that cannot list keeps its last listing; a call will tell
	}
	s.mu.Lock()
	if s.conn == c {
		s.listing = listing
		s.forgetChangedSchemas(listing)
	}
	s.mu.Unlock()
	s.m.changed(Event{Server: s.cfg.Name, State: StateReady, Tools: len(listing), ToolsChanged: true})
}

// forgetChangedSchemas drops loaded schemas of tools that are gone or were changed, so their
// next call loads them again (mu held).
func (s *server) forgetChangedSchemas(listing []*sdk.Tool) {
	for name := range s.loaded {
		t := findTool(listing, name)
		if t == nil || schemaText(t.InputSchema) != s.loaded[name].from {
			delete(s.loaded, name)
		}
	}
}

func findTool(listing []*sdk.Tool, name string) *sdk.Tool {
	for _, t := range listing {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// retire stops the server for good (its entry changed or went, or the project closed): a start
// under way stops what it started.
func (s *server) retire() {
	s.mu.Lock()
	s.retired = true
	s.mu.Unlock()
	s.stop(StateIdle)
}

// stop ends the connection, if any, and leaves the server in state.
func (s *server) stop(state State) {
	s.mu.Lock()
	c := s.conn
	s.conn = nil
	if s.state != StateInvalid {
		s.state, s.detail = state, ""
	}
	s.mu.Unlock()
	if c != nil {
		c.close()
	}
}

// snapshot is where the server stands: its state, why, its last listing and its pid (0 when
// not running).
func (s *server) snapshot() (State, string, []*sdk.Tool, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pid := 0
	if s.conn != nil {
		pid = s.conn.pid()
	}
	return s.state, s.detail, s.listing, pid
}

// onProgress passes a progress notification to the call that asked for it.
func (s *server) onProgress(token any, progress, total float64, message string) {
	s.mu.Lock()
	f := s.progress[fmt.Sprint(token)]
	s.mu.Unlock()
	if f != nil {
		f(progress, total, message)
	}
}

// watchProgress routes progress for a new token to f until the returned func is called.
func (s *server) watchProgress(f func(progress, total float64, message string)) (string, func()) {
	token := fmt.Sprintf("gantry-%d", progressTokens.Add(1))
	s.mu.Lock()
	s.progress[token] = f
	s.mu.Unlock()
	return token, func() {
		s.mu.Lock()
		delete(s.progress, token)
		s.mu.Unlock()
	}
}

// backoff is the wait before attempt+1: 250 ms, then 1 s.
func backoff(attempt int) time.Duration {
	return retryFirst << (2 * (attempt - 1))
}

// sleep waits d, or less when ctx ends first (then false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
