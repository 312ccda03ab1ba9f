package app

import (
	"log/slog"
	"path"
	"sync"

	"gantry/internal/events"
	"gantry/internal/ignore"
	"gantry/internal/watch"
)

// maxChangedEntries caps each list in a workspaceChanged event: a checkout touching 50,000 files
// must not become a 5 MB event; past the cap the frontend reloads what it shows.
const maxChangedEntries = 200

// WorkspaceChangedPayload is the workspaceChanged event (mirrored in frontend/src/lib/events.ts).
type WorkspaceChangedPayload struct {
	Root     string   `json:"root"`  // the workspace it is about, so a late event for another is dropped
	Dirs     []string `json:"dirs"`  // folders whose listing changed; "" is the root
	Paths    []string `json:"paths"` // files and folders that changed
	More     bool     `json:"more"`  // a list was cut at maxChangedEntries
	Overflow bool     `json:"overflow"`
	Note     string   `json:"note,omitempty"` // not every folder is watched, and why
}

// workspaceWatch runs the file watcher of the open workspace. gen tells a watcher's callbacks,
// and a watcher still starting, whether their workspace is still the open one.
type workspaceWatch struct {
	mu  sync.Mutex
	gen int
	w   *watch.Watcher
}

// watchWorkspace replaces the running watcher with one for root ("" only stops it). The first
// scan of a large tree takes a while, so the new watcher starts in the background.
func (s *WorkspaceService) watchWorkspace(root string, m *ignore.Matcher) {
	ww := &s.watcher
	ww.mu.Lock()
	ww.gen++
	gen, old := ww.gen, ww.w
	ww.w = nil
	ww.mu.Unlock()
	if old != nil {
		if err := old.Close(); err != nil {
			slog.Warn("stopping the file watcher", "err", err)
		}
	}
	if root == "" {
		return
	}
	go func() {
		w, err := watch.New(root, m, watch.Options{OnChange: func(c watch.Change) {
			if ww.current(gen) {
				s.workspaceChanged(root, c)
			}
		}})
		if err != nil {
			slog.Warn("watching the workspace", "root", root, "err", err)
			return
		}
		ww.mu.Lock()
		if ww.gen != gen {
			ww.mu.Unlock()
			_ = w.Close()
			return
		}
		ww.w = w
		ww.mu.Unlock()
		if st := w.Status(); st.Limited {
			s.workspaceChanged(root, watch.Change{Limited: true, Note: st.Note})
		}
	}()
}

// stopWatching stops the watcher: the project closed, or the app is shutting down.
func (s *WorkspaceService) stopWatching() { s.watchWorkspace("", nil) }

// watching reports whether a watcher is running (tests wait for it before touching files).
func (s *WorkspaceService) watching() bool {
	s.watcher.mu.Lock()
	defer s.watcher.mu.Unlock()
	return s.watcher.w != nil
}

func (ww *workspaceWatch) current(gen int) bool {
	ww.mu.Lock()
	defer ww.mu.Unlock()
	return ww.gen == gen
}

// workspaceChanged posts a Change as an app-wide event (it belongs to no session).
func (s *WorkspaceService) workspaceChanged(root string, c watch.Change) {
	p := WorkspaceChangedPayload{Root: root, Overflow: c.Overflow, Note: c.Note}
	p.Dirs, p.More = capList(c.Dirs, p.More)
	p.Paths, p.More = capList(c.Paths, p.More)
	if s.ignoreRulesChanged(root, c.Paths) {
		// Entries may have appeared or vanished anywhere: the tree reloads all it shows.
		p.Overflow = true
	}
	if _, err := s.emitter.Emit(s.ctx, events.Scope{}, events.WorkspaceChanged, p); err != nil {
		slog.Warn("emitting workspaceChanged", "err", err)
	}
}

// ignoreRulesChanged gives the file tree a fresh ignore.Matcher when a .gitignore changed, since
// a Matcher keeps the rules it read. The watcher keeps its own until the workspace is reopened.
func (s *WorkspaceService) ignoreRulesChanged(root string, paths []string) bool {
	for _, p := range paths {
		if path.Base(p) == ".gitignore" {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.current != nil && s.current.Path == root {
				s.matcher = ignore.New(root)
			}
			return true
		}
	}
	return false
}

func capList(list []string, more bool) ([]string, bool) {
	if list == nil {
		return []string{}, more // the frontend expects arrays
	}
	if len(list) > maxChangedEntries {
		return list[:maxChangedEntries], true
	}
	return list, more
}
