package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"

	"gantry/internal/events"
	"gantry/internal/ignore"
	"gantry/internal/store"
	"gantry/internal/workspace"
)

const recentLimit = 30

// ErrNoDialog is returned in browser mode, where the server cannot show a native dialog.
var ErrNoDialog = errors.New("the folder dialog is only available in the desktop app; type the folder path instead")

// RecentProject is a row of the welcome screen (mirrored in frontend/src/lib/types.ts).
type RecentProject struct {
	store.Workspace
	Missing bool `json:"missing"`
}

// WorkspaceService opens project folders and lists their files for the tree.
type WorkspaceService struct {
	db      *store.DB
	emitter *events.Emitter

	ctx    context.Context
	window Window // nil in browser mode

	mu      sync.Mutex
	current *workspace.Info
	matcher *ignore.Matcher

	watcher workspaceWatch
}

func newWorkspaceService(db *store.DB, emitter *events.Emitter) *WorkspaceService {
	return &WorkspaceService{db: db, emitter: emitter, ctx: context.Background()}
}

func (s *WorkspaceService) start(ctx context.Context, window Window) {
	s.ctx, s.window = ctx, window
}

// setTitle names the open project in the title bar, as desktop apps do.
func (s *WorkspaceService) setTitle(project string) {
	if s.window == nil {
		return
	}
	if project == "" {
		s.window.SetTitle("Gantry")
		return
	}
	s.window.SetTitle("Gantry — " + project)
}

// Recent lists recently opened folders, newest first, marking the ones that are gone.
func (s *WorkspaceService) Recent() ([]RecentProject, error) {
	list, err := s.db.RecentWorkspaces(s.ctx, recentLimit)
	if err != nil {
		return nil, err
	}
	out := make([]RecentProject, 0, len(list))
	for _, w := range list {
		fi, err := os.Stat(w.Path)
		out = append(out, RecentProject{Workspace: w, Missing: err != nil || !fi.IsDir()})
	}
	return out, nil
}

// Open makes path the open workspace and records it as recent.
func (s *WorkspaceService) Open(path string) (workspace.Info, error) {
	info, err := workspace.Inspect(path)
	if err != nil {
		return workspace.Info{}, err
	}
	return s.open(info)
}

// OpenDropped opens the one folder dropped on the window.
func (s *WorkspaceService) OpenDropped(paths []string) (workspace.Info, error) {
	info, err := workspace.FromDrop(paths)
	if err != nil {
		return workspace.Info{}, err
	}
	return s.open(info)
}

func (s *WorkspaceService) open(info workspace.Info) (workspace.Info, error) {
	if _, err := s.db.TouchWorkspace(s.ctx, info.Path, info.Name); err != nil {
		return workspace.Info{}, err
	}
	s.mu.Lock()
	s.current = &info
	s.matcher = ignore.New(info.Path)
	m := s.matcher
	s.mu.Unlock()
	s.watchWorkspace(info.Path, m)
	s.setTitle(info.Name)
	s.recentChanged()
	return info, nil
}

// ChooseFolder shows the native folder dialog; "" means the user cancelled.
func (s *WorkspaceService) ChooseFolder() (string, error) {
	if s.window == nil {
		return "", ErrNoDialog
	}
	return s.window.ChooseDirectory(s.ctx, "Open a project folder")
}

// Remove forgets a recent project; the folder on disk is not touched.
func (s *WorkspaceService) Remove(id int64) error {
	if err := s.db.RemoveWorkspace(s.ctx, id); err != nil {
		return err
	}
	s.recentChanged()
	return nil
}

// Current is the open workspace, or nil on the welcome screen.
func (s *WorkspaceService) Current() *workspace.Info {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.current
}

// Close returns to the welcome screen.
func (s *WorkspaceService) Close() {
	s.mu.Lock()
	s.current, s.matcher = nil, nil
	s.mu.Unlock()
	s.stopWatching()
	s.setTitle("")
}

// ListDir lists one directory of the open workspace ("" is its root).
func (s *WorkspaceService) ListDir(rel string) (workspace.Listing, error) {
	s.mu.Lock()
	m := s.matcher
	s.mu.Unlock()
	if m == nil {
		return workspace.Listing{}, fmt.Errorf("no project is open")
	}
	return workspace.ListDir(m, rel)
}

func (s *WorkspaceService) recentChanged() {
	if _, err := s.emitter.Emit(s.ctx, events.Scope{}, events.RecentChanged, struct{}{}); err != nil {
		slog.Warn("emitting recentChanged", "err", err)
	}
}
