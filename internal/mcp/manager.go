// Package mcp brings the tools of the person's Model Context Protocol servers to the agent
// (reference 003's lazily loaded MCP tools). Servers are configured as other clients configure
// them (settings.json's mcpServers, and a project's own file in a trusted folder), start when a
// run or Settings first needs them, and stop with the project or the app. The model sees each
// tool as mcp__<server>__<tool> with a one-line summary; the first call loads its real
// parameters. The client is the official Go SDK: stdio servers in their own process group,
// streamable HTTP (and SSE) servers with their headers.
package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"gantry/internal/procgroup"
	"gantry/internal/tools"
)

// Options configure one project's servers.
type Options struct {
	Root string // the project's folder
	// Settings is settings.json's mcpServers as it is now.
	Settings func() json.RawMessage
	// Trusted reports whether the project is trusted now: only then is its ProjectFile used.
	Trusted func() bool
	// Changed is told when a server starts, stops or lists new tools, and when a tool's first
	// call registers its parameters (Settings shows them live). It must not block.
	Changed func(Event)
	// Failures keeps the calls that failed for good; nil keeps none.
	Failures *FailureLog
	Version  string // Gantry's, told to servers in the handshake
}

// Event is the mcpServers event: a server's state changed, its tools changed, or a tool's
// first call registered its parameters.
type Event struct {
	Server       string `json:"server"`
	State        State  `json:"state,omitempty"`
	Tools        int    `json:"tools,omitempty"`
	ToolsChanged bool   `json:"toolsChanged,omitempty"`
	Registered   string `json:"registered,omitempty"` // the tool, by the server's name for it
}

// Manager keeps one project's servers. Nothing starts until a run or Settings asks.
type Manager struct {
	opts   Options
	ctx    context.Context // ends at Close: starts and calls stop with it
	cancel context.CancelFunc

	mu      sync.Mutex
	servers map[string]*server // by name
	closed  bool
	problem string // settings' mcpServers cannot be read at all
	project string // the project's file cannot be read
}

// NewManager returns the manager of opts.Root's servers.
func NewManager(opts Options) *Manager {
	if opts.Settings == nil {
		opts.Settings = func() json.RawMessage { return nil }
	}
	if opts.Trusted == nil {
		opts.Trusted = func() bool { return false }
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{opts: opts, ctx: ctx, cancel: cancel, servers: map[string]*server{}}
}

// Root is the project the manager serves.
func (m *Manager) Root() string { return m.opts.Root }

func (m *Manager) changed(e Event) {
	if m.opts.Changed != nil {
		m.opts.Changed(e)
	}
}

// configs reads what is configured now: the person's servers, then the project's (used only in
// a trusted folder; one that takes a name the person's use is refused).
func (m *Manager) configs() (cfgs []Config, problem, projectProblem string) {
	own, err := ParseServers(m.opts.Settings(), SourceSettings)
	if err != nil {
		problem = "settings.json: " + err.Error()
	}
	var raw json.RawMessage
	if m.opts.Root != "" {
		raw, err = readProjectFile(m.opts.Root)
		if err != nil {
			projectProblem = err.Error()
		}
	}
	project, err := ParseServers(raw, SourceProject)
	if err != nil && projectProblem == "" {
		projectProblem = ProjectFile + ": " + err.Error()
	}
	for i, p := range project {
		if slices.ContainsFunc(own, func(c Config) bool { return c.Name == p.Name }) {
			project[i].Err = fmt.Errorf("your settings already have a server named %q; rename this one in %s", p.Name, ProjectFile)
		}
	}
	return append(own, project...), problem, projectProblem
}

// sync brings the servers in line with the configuration: new entries are added (idle),
// removed or changed ones stop, and a project's servers stop when its trust is taken back.
func (m *Manager) sync() []*server {
	cfgs, problem, projectProblem := m.configs()
	trusted := m.opts.Trusted()
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.problem, m.project = problem, projectProblem
	var stale []*server
	next := map[string]*server{}
	var out []*server
	for _, cfg := range cfgs {
		old := m.servers[cfg.Name]
		untrusted := cfg.Source == SourceProject && !trusted
		s := old
		if old == nil || !old.cfg.same(cfg) || untrusted != (old.currentState() == StateUntrusted) {
			if old != nil {
				stale = append(stale, old)
			}
			s = newServer(m, cfg)
			if untrusted && cfg.Err == nil {
				s.state = StateUntrusted
			}
		}
		next[cfg.Name] = s
		out = append(out, s)
	}
	for name, s := range m.servers {
		if next[name] == nil {
			stale = append(stale, s)
		}
	}
	m.servers = next
	m.mu.Unlock()
	for _, s := range stale {
		s.retire()
		m.changed(Event{Server: s.cfg.Name, State: StateIdle})
	}
	return out
}

func (s *server) currentState() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// startAll starts the servers that may run and are not running, and waits for them (or ctx).
// status hears which servers it is waiting for.
func startAll(ctx context.Context, servers []*server, which func(*server) bool, status func(string)) {
	var wg sync.WaitGroup
	for _, s := range servers {
		if !s.runnable() || !which(s) {
			continue
		}
		if status != nil && s.currentState() != StateReady {
			status(fmt.Sprintf("Starting MCP server %s…", s.cfg.Name))
		}
		wg.Go(func() { _, _ = s.session(ctx) })
	}
	wg.Wait()
}

// StartIdle starts, in the background, the servers never started yet (Settings shows them):
// a server that failed waits for a run or the Restart button, so an open Settings screen does
// not start a broken one over and over.
func (m *Manager) StartIdle() {
	servers := m.sync()
	go startAll(m.ctx, servers, func(s *server) bool { return s.currentState() == StateIdle }, nil)
}

// Restart stops a server and starts it again (Settings' Restart).
func (m *Manager) Restart(name string) error {
	var target *server
	for _, s := range m.sync() {
		if s.cfg.Name == name {
			target = s
		}
	}
	if target == nil {
		return fmt.Errorf("there is no MCP server named %q", name)
	}
	if !target.runnable() {
		target.mu.Lock()
		err := target.unusable()
		target.mu.Unlock()
		return err
	}
	target.stop(StateIdle)
	go func() { _, _ = target.session(m.ctx) }()
	return nil
}

// Close stops every server; the manager starts nothing after it.
func (m *Manager) Close() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	servers := m.servers
	m.mu.Unlock()
	m.cancel()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(s.retire)
	}
	wg.Wait()
}

// RunTools are the tools of every server for one run, calling through approver: the servers
// that may run are started first (the first run that needs them) and waited for; status hears
// which. The resolver answers a call to a tool the run does not offer: one listed since, or why
// not (its server is down or off, the person turned the tool off).
func (m *Manager) RunTools(ctx context.Context, approver tools.Approver, status func(string)) tools.Extension {
	servers := m.sync()
	// A server slow to start (a first `npx -y` downloads its package) holds the run up for
	// runStartWait at most: it goes on starting, and once it is ready the resolver finds its
	// tools by name and the next run offers them.
	wait, cancel := context.WithTimeout(ctx, runStartWait)
	defer cancel()
	startAll(wait, servers, func(*server) bool { return true }, status)
	b := &binding{m: m, approver: approver}
	var out []tools.Tool
	for _, t := range b.all(servers) {
		if t.offered() {
			out = append(out, t)
		}
	}
	return tools.Extension{Tools: out, Resolve: b.resolve}
}

// runStartWait bounds how long a run waits for its servers to start.
const runStartWait = 20 * time.Second

// binding makes a run's tools out of the servers' listings, with names unique across them.
type binding struct {
	m        *Manager
	approver tools.Approver
}

func (b *binding) all(servers []*server) []*tool {
	var out []*tool
	seen := map[string]bool{}
	for _, s := range servers {
		_, _, listing, _ := s.snapshot()
		for _, remote := range listing {
			name := ToolName(s.cfg.Name, remote.Name)
			for n := 2; seen[name]; n++ {
				name = ToolName(s.cfg.Name, fmt.Sprintf("%s_%d", remote.Name, n))
			}
			seen[name] = true
			out = append(out, &tool{srv: s, remote: remote, name: name, approver: b.approver})
		}
	}
	return out
}

// resolve finds a tool by the model's name in the servers as they are now.
func (b *binding) resolve(name string) (tools.Tool, *tools.Result) {
	servers := b.m.sync()
	for _, t := range b.all(servers) {
		if t.name != name {
			continue
		}
		if !t.offered() {
			res := tools.Fail(tools.ErrDenied, "The tool %s is turned off in Gantry's settings (MCP server %s), so it cannot be used. Do the task with the other tools, or tell the user that it needs %s.", name, t.srv.cfg.Name, t.remote.Name)
			return nil, &res
		}
		return t, nil
	}
	for _, s := range servers {
		if len(name) > len("mcp__") && name[:len("mcp__")] == "mcp__" && hasServerPart(name, s.cfg.Name) {
			state, detail, _, _ := s.snapshot()
			res := tools.Fail(tools.ErrFailed, "%s", downMessage(s.cfg.Name, state, detail))
			return nil, &res
		}
	}
	return nil, nil
}

func hasServerPart(name, server string) bool {
	prefix := "mcp__" + namePart(server) + "__"
	return len(name) > len(prefix) && name[:len(prefix)] == prefix
}

// downMessage tells the model why a server's tools cannot be used now.
func downMessage(server string, state State, detail string) string {
	switch state {
	case StateDisabled:
		return fmt.Sprintf("The MCP server %s is turned off in Gantry's settings, so its tools cannot be used. Do the task without it, or tell the user that it needs %s.", server, server)
	case StateUntrusted:
		return fmt.Sprintf("The MCP server %s comes with this project, which the user has not trusted, so it does not run. Do the task without it, or tell the user.", server)
	case StateReady:
		return fmt.Sprintf("The MCP server %s has no such tool.", server)
	case StateStarting:
		return fmt.Sprintf("The MCP server %s is still starting. Do other parts of the task first, then try again.", server)
	}
	if detail == "" {
		detail = "It is not running."
	}
	return fmt.Sprintf("The MCP server %s cannot be used: %s Do the task without it, or tell the user what went wrong.", server, firstLineOf(detail))
}

// Status is a server as Settings shows it.
type Status struct {
	Name      string       `json:"name"`
	Source    Source       `json:"source"`
	Transport string       `json:"transport"`
	Target    string       `json:"target"` // its command line or URL
	EnvKeys   []string     `json:"envKeys,omitempty"`
	State     State        `json:"state"`
	Detail    string       `json:"detail,omitempty"` // why it failed or cannot be used
	Stderr    string       `json:"stderr,omitempty"` // the end of its stderr
	Pid       int          `json:"pid,omitempty"`
	RSS       int64        `json:"rss,omitempty"` // its process group's memory, bytes
	Tools     []ToolStatus `json:"tools"`
	// Entry is the server's JSON as written, for editing (a person's own servers only).
	Entry json.RawMessage `json:"entry,omitempty"`
}

// ToolStatus is one tool of a server as Settings lists it.
type ToolStatus struct {
	Name      string `json:"name"`      // the server's name for it
	ModelName string `json:"modelName"` // mcp__server__tool
	Title     string `json:"title,omitempty"`
	Summary   string `json:"summary,omitempty"`
	ReadOnly  bool   `json:"readOnly"`
	Enabled   bool   `json:"enabled"`
	// Loaded: a first call registered its parameters (the model now sees them).
	Loaded bool `json:"loaded"`
}

// Statuses lists the servers, the person's first, each by name; problem and projectProblem say
// why settings' mcpServers or the project's file cannot be read at all.
func (m *Manager) Statuses() (out []Status, problem, projectProblem string) {
	servers := m.sync()
	raw := m.opts.Settings()
	entries, _ := entriesOf(raw)
	b := &binding{m: m}
	all := b.all(servers)
	for _, s := range servers {
		state, detail, _, pid := s.snapshot()
		st := Status{
			Name: s.cfg.Name, Source: s.cfg.Source, Transport: s.cfg.Transport(), Target: s.cfg.Target(),
			State: state, Detail: detail, Pid: pid, Tools: []ToolStatus{},
		}
		for k := range s.cfg.Env {
			st.EnvKeys = append(st.EnvKeys, k)
		}
		slices.Sort(st.EnvKeys)
		if pid != 0 {
			st.RSS = procgroup.RSS(pid)
		}
		if state == StateFailed {
			st.Stderr = procgroup.LastLines(strings.TrimSpace(s.stderr.String()), 40)
		}
		if s.cfg.Source == SourceSettings {
			st.Entry = entries[s.cfg.Name]
		}
		for _, t := range all {
			if t.srv == s {
				st.Tools = append(st.Tools, t.status())
			}
		}
		out = append(out, st)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return out, m.problem, m.project
}

// HasProjectFile reports whether the project has its own server file.
func (m *Manager) HasProjectFile() bool {
	if m.opts.Root == "" {
		return false
	}
	raw, err := readProjectFile(m.opts.Root)
	return raw != nil || err != nil
}
