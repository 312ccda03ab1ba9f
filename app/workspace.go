package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"unicode/utf8"

	"gantry/internal/events"
	"gantry/internal/ignore"
	"gantry/internal/store"
	"gantry/internal/tools"
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
	// closed is told when a folder stops being the open workspace (its language servers stop).
	closed func(root string)
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
	previous := s.current
	s.current = &info
	s.matcher = ignore.New(info.Path)
	m := s.matcher
	s.mu.Unlock()
	if previous != nil && previous.Path != info.Path && s.closed != nil {
		s.closed(previous.Path)
	}
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
	previous := s.current
	s.current, s.matcher = nil, nil
	s.mu.Unlock()
	if previous != nil && s.closed != nil {
		s.closed(previous.Path)
	}
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

// viewerMaxBytes bounds what the read-only viewer loads: past it, a file is too big to be worth
// scrolling through in the app, and would only cost memory in the webview.
const viewerMaxBytes = 2 << 20

// FileContent is one file of the open workspace for the read-only viewer (mirrored in
// frontend/src/lib/types.ts).
type FileContent struct {
	Path   string `json:"path"` // workspace-relative, with slashes
	Text   string `json:"text"` // "" when binary
	Size   int64  `json:"size"`
	Binary bool   `json:"binary"`
}

// ReadFile reads a file of the open workspace for the viewer. The path is confined to the
// workspace the same way the agent's tools are (no .., no links out of it).
func (s *WorkspaceService) ReadFile(rel string) (FileContent, error) {
	ws := s.Current()
	if ws == nil {
		return FileContent{}, errors.New("no project is open")
	}
	abs, err := tools.ResolveWorkspacePath(ws.Path, rel)
	if err != nil {
		return FileContent{}, err
	}
	shown, err := filepath.Rel(ws.Path, abs)
	if err != nil {
		return FileContent{}, err
	}
	out := FileContent{Path: filepath.ToSlash(shown)}
	// Stat before opening: opening a named pipe would block.
	fi, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return FileContent{}, fmt.Errorf("%s does not exist (any more)", out.Path)
		}
		return FileContent{}, err
	}
	if fi.IsDir() {
		return FileContent{}, fmt.Errorf("%s is a folder", out.Path)
	}
	if !fi.Mode().IsRegular() {
		return FileContent{}, fmt.Errorf("%s is not a regular file", out.Path)
	}
	out.Size = fi.Size()
	if fi.Size() > viewerMaxBytes {
		return FileContent{}, fmt.Errorf("%s is %.1f MB; the viewer shows files up to %d MB", out.Path, float64(fi.Size())/(1<<20), viewerMaxBytes>>20)
	}
	f, err := os.Open(abs)
	if err != nil {
		return FileContent{}, err
	}
	defer f.Close()
	// The file may have grown since the stat; one byte more than the cap tells.
	data, err := io.ReadAll(io.LimitReader(f, viewerMaxBytes+1))
	if err != nil {
		return FileContent{}, fmt.Errorf("reading %s: %w", out.Path, err)
	}
	if len(data) > viewerMaxBytes {
		return FileContent{}, fmt.Errorf("%s is larger than the %d MB the viewer shows", out.Path, viewerMaxBytes>>20)
	}
	out.Size = int64(len(data))
	if isBinary(data) {
		out.Binary = true
		return out, nil
	}
	out.Text = string(data)
	return out, nil
}

// isBinary says a file is not text: a NUL byte early on, or bytes that are not UTF-8.
func isBinary(data []byte) bool {
	head := data[:min(len(data), 8<<10)]
	return bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(data)
}

func (s *WorkspaceService) recentChanged() {
	if _, err := s.emitter.Emit(s.ctx, events.Scope{}, events.RecentChanged, struct{}{}); err != nil {
		slog.Warn("emitting recentChanged", "err", err)
	}
}
