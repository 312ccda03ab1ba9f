package fakeollama

import (
	"context"
	"net/http"
)

// A turn with Hold waits, before it answers, until the test releases that name: a test can keep
// one conversation waiting on the model (a background subagent) while another goes on, and
// choose the moment it answers by an event it saw rather than by a clock.

// Release lets every turn held on name answer, now and later.
func (s *Server) Release(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.releaseLocked(name)
}

func (s *Server) releaseLocked(name string) {
	g := s.gateLocked(name)
	select {
	case <-g:
	default:
		close(g)
	}
}

// Held reports how many chats are waiting on name right now.
func (s *Server) Held(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held[name]
}

// WaitHeld blocks until n chats wait on name, or ctx ends.
func (s *Server) WaitHeld(ctx context.Context, name string, n int) error {
	for {
		s.mu.Lock()
		count, changed := s.held[name], s.heldChangedLocked()
		s.mu.Unlock()
		if count >= n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// heldChangedLocked is closed at the next change of the held counts.
func (s *Server) heldChangedLocked() chan struct{} {
	if s.heldChanged == nil {
		s.heldChanged = make(chan struct{})
	}
	return s.heldChanged
}

func (s *Server) noteHeldLocked(name string, delta int) {
	s.held[name] += delta
	if s.heldChanged != nil {
		close(s.heldChanged)
		s.heldChanged = nil
	}
}

func (s *Server) gateLocked(name string) chan struct{} {
	if s.gates == nil {
		s.gates = map[string]chan struct{}{}
		s.held = map[string]int{}
	}
	g, ok := s.gates[name]
	if !ok {
		g = make(chan struct{})
		s.gates[name] = g
	}
	return g
}

// hold waits until name is released; it reports false when the chat went away first.
func (s *Server) hold(ctx context.Context, name string) bool {
	if name == "" {
		return true
	}
	s.mu.Lock()
	g := s.gateLocked(name)
	s.noteHeldLocked(name, 1)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.noteHeldLocked(name, -1)
		s.mu.Unlock()
	}()
	select {
	case <-g:
		return true
	case <-ctx.Done():
		return false
	}
}

func (s *Server) handleRelease(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Name string `json:"name"`
	}
	if !decodeControl(w, r, &body) {
		return
	}
	s.Release(body.Name)
	w.WriteHeader(http.StatusNoContent)
}
