package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"

	"gantry/internal/config"
	"gantry/internal/events"
	"gantry/internal/mcp"
	"gantry/internal/trust"
)

// mcpServers keeps the MCP servers of each workspace the app has open: one mcp.Manager per
// folder, made on first use, closed when the folder closes or the app quits.
type mcpServers struct {
	perProject[*mcp.Manager]
	failures *mcp.FailureLog
}

// FailureLogPath is where the MCP calls that failed for good are kept: the data folder.
func FailureLogPath(dataDir string) string { return filepath.Join(dataDir, "mcp-failures.jsonl") }

func newMCPServers(dataDir, version string, settings *config.Store, folders trust.Checker, emitter *events.Emitter) *mcpServers {
	c := &mcpServers{failures: mcp.OpenFailureLog(FailureLogPath(dataDir))}
	changed := func(e mcp.Event) {
		// News for Settings only; it must not hold the server that sent it.
		go func() {
			if _, err := emitter.Emit(context.Background(), events.Scope{}, events.MCPServers, e); err != nil {
				slog.Warn("mcp server event", "err", err)
			}
		}()
	}
	c.perProject = newPerProject(func(root string) *mcp.Manager {
		opts := MCPOptions(root, settings.Get, folders, c.failures, version)
		opts.Changed = changed
		return mcp.NewManager(opts)
	})
	return c
}

// MCPOptions are what a workspace's MCP manager works with, in the app and in `gantry run`.
func MCPOptions(root string, settings func() config.Settings, folders trust.Checker, failures *mcp.FailureLog, version string) mcp.Options {
	return mcp.Options{
		Root: root, Version: version, Failures: failures,
		Settings: func() json.RawMessage { return settings().MCPServers },
		Trusted:  func() bool { return root != "" && folders.Trusted(root) },
	}
}

// MCPView is Settings → Tools' MCP servers (mirrored in frontend/src/lib/types.ts).
type MCPView struct {
	Project        string       `json:"project"`        // the open project, "" when none
	ProjectFile    string       `json:"projectFile"`    // its server file, "" when it has none
	ProjectTrusted bool         `json:"projectTrusted"` // its server file is used
	Problem        string       `json:"problem"`        // settings' mcpServers cannot be read
	ProjectProblem string       `json:"projectProblem"` // the project's file cannot be read
	Servers        []mcp.Status `json:"servers"`
}

// MCP lists the MCP servers and where each stands for the open project, and starts, in the
// background, those never started yet (the screen shows them): their tools appear as they come.
func (s *SettingsService) MCP() MCPView {
	view := MCPView{Servers: []mcp.Status{}}
	var m *mcp.Manager
	if ws := s.workspace.Current(); ws != nil {
		view.Project = ws.Path
		m = s.mcp.For(ws.Path)
		m.StartIdle()
		view.ProjectTrusted = s.folders.Trusted(ws.Path)
		if m.HasProjectFile() {
			view.ProjectFile = filepath.Join(ws.Path, mcp.ProjectFile)
		}
	} else {
		// No project: what is configured, without starting anything.
		m = mcp.NewManager(MCPOptions("", s.store.Get, s.folders, nil, ""))
		defer m.Close()
	}
	servers, problem, projectProblem := m.Statuses()
	if servers != nil {
		view.Servers = servers
	}
	view.Problem, view.ProjectProblem = problem, projectProblem
	return view
}

// AddMCPServers adds the servers a person pasted, in any of the shapes READMEs show them.
func (s *SettingsService) AddMCPServers(text string) (MCPView, error) {
	entries, err := mcp.ParsePaste(text)
	if err != nil {
		return MCPView{}, err
	}
	next := s.store.Get()
	current, err := mcp.ParseServers(next.MCPServers, mcp.SourceSettings)
	if err != nil {
		return MCPView{}, fmt.Errorf("%v; fix settings.json first", err)
	}
	raw := next.MCPServers
	for name, entry := range entries {
		for _, c := range current {
			if c.Name == name {
				return MCPView{}, fmt.Errorf("there is already a server named %q: edit it, or give the new one another name", name)
			}
		}
		if raw, err = mcp.SetEntry(raw, name, entry); err != nil {
			return MCPView{}, err
		}
	}
	return s.saveMCP(raw)
}

// SaveMCPServer replaces the person's server name with the pasted entry (Edit), which may
// rename it.
func (s *SettingsService) SaveMCPServer(name, text string) (MCPView, error) {
	entries, err := mcp.ParsePaste(text)
	if err != nil {
		return MCPView{}, err
	}
	if len(entries) != 1 {
		return MCPView{}, errors.New("give exactly one server")
	}
	raw := s.store.Get().MCPServers
	for newName, entry := range entries {
		if newName != name {
			if others, _ := mcp.ParseServers(raw, mcp.SourceSettings); hasServer(others, newName) {
				return MCPView{}, fmt.Errorf("there is already a server named %q", newName)
			}
			if raw, err = mcp.SetEntry(raw, name, nil); err != nil {
				return MCPView{}, err
			}
		}
		if raw, err = mcp.SetEntry(raw, newName, entry); err != nil {
			return MCPView{}, err
		}
	}
	return s.saveMCP(raw)
}

func hasServer(servers []mcp.Config, name string) bool {
	for _, c := range servers {
		if c.Name == name {
			return true
		}
	}
	return false
}

// RemoveMCPServer deletes one of the person's servers; it stops.
func (s *SettingsService) RemoveMCPServer(name string) (MCPView, error) {
	raw, err := mcp.SetEntry(s.store.Get().MCPServers, name, nil)
	if err != nil {
		return MCPView{}, err
	}
	return s.saveMCP(raw)
}

// SetMCPServerEnabled turns a server on or off: the person's in settings.json, a trusted
// project's in its own file.
func (s *SettingsService) SetMCPServerEnabled(name, source string, on bool) (MCPView, error) {
	return s.editMCP(name, source, mcp.SetServerEnabled(on))
}

// SetMCPToolEnabled turns one tool of a server on or off.
func (s *SettingsService) SetMCPToolEnabled(server, source, tool string, on bool) (MCPView, error) {
	return s.editMCP(server, source, mcp.SetToolEnabled(tool, on))
}

// RestartMCPServer stops a server and starts it again.
func (s *SettingsService) RestartMCPServer(name string) (MCPView, error) {
	ws := s.workspace.Current()
	if ws == nil {
		return MCPView{}, errors.New("open a project first: servers run for the open project")
	}
	if err := s.mcp.For(ws.Path).Restart(name); err != nil {
		return MCPView{}, err
	}
	return s.MCP(), nil
}

// MCPFailures are the MCP calls that failed for good, newest first.
func (s *SettingsService) MCPFailures() ([]mcp.Failure, error) { return s.mcp.failures.List() }

// ClearMCPFailures forgets them.
func (s *SettingsService) ClearMCPFailures() ([]mcp.Failure, error) {
	if err := s.mcp.failures.Clear(); err != nil {
		return nil, err
	}
	return []mcp.Failure{}, nil
}

func (s *SettingsService) editMCP(name, source string, edit func(map[string]any)) (MCPView, error) {
	if mcp.Source(source) == mcp.SourceProject {
		ws := s.workspace.Current()
		if ws == nil || !s.folders.Trusted(ws.Path) {
			return MCPView{}, errors.New("this project's servers are used only once you trust the folder")
		}
		err := mcp.EditProjectFile(ws.Path, func(raw json.RawMessage) (json.RawMessage, error) { return mcp.EditEntry(raw, name, edit) })
		if err != nil {
			return MCPView{}, err
		}
		return s.MCP(), nil
	}
	raw, err := mcp.EditEntry(s.store.Get().MCPServers, name, edit)
	if err != nil {
		return MCPView{}, err
	}
	return s.saveMCP(raw)
}

// saveMCP stores the person's servers; the managers pick the change up at their next use.
func (s *SettingsService) saveMCP(raw json.RawMessage) (MCPView, error) {
	next := s.store.Get()
	next.MCPServers = raw
	if err := s.store.Save(next); err != nil {
		return MCPView{}, err
	}
	return s.MCP(), nil
}
