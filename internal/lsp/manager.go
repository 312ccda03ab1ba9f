package lsp

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"gantry/internal/ignore"
	"gantry/internal/procgroup"
)

// IdleTimeout stops a server nobody asked anything for this long; it starts again on demand.
const IdleTimeout = 10 * time.Minute

// Options configure a workspace's servers.
type Options struct {
	Root string
	// ToolsDirs are Gantry's own tools folders, searched after PATH.
	ToolsDirs []string
	// Overrides are programs the person chose in Settings, by Spec.ID.
	Overrides map[string]string
	// RequestTimeout bounds each request (0: RequestTimeout); IdleTimeout stops idle servers
	// (0: IdleTimeout).
	RequestTimeout, IdleTimeout time.Duration
	// Changed is told when a server starts or stops (Settings shows their state live); it must
	// not block.
	Changed func(id, state string)
}

// Caller is who asks for a server: whether the folder is trusted now, and how to ask the person
// before a server that cannot be made safe runs in an untrusted folder.
type Caller struct {
	Trusted bool
	Approve func(ctx context.Context, command, why string) (allowed bool, message string, err error)
}

// NoServer says there is no server for a file, in words for the model and the person.
type NoServer struct {
	Spec   Spec // zero when no server is known for the language
	Reason string
}

func (e *NoServer) Error() string { return e.Reason }

// Manager keeps one server per language for one workspace, started on first use.
type Manager struct {
	opts  Options
	specs []Spec

	mu       sync.Mutex
	servers  map[string]*server
	closed   bool
	langs    []string // spec IDs of the languages found in the workspace, once scanned
	scanOnce sync.Once
}

// server is one language's server over time: the running client, and what became of it.
type server struct {
	spec     Spec
	mu       sync.Mutex // held while starting, so two calls start one process
	client   *Client
	trusted  bool // the launch was the trusted one
	restarts int
	failed   error // why it cannot run (crashed twice, did not start)
	lastUsed time.Time
	idle     *time.Timer
}

// NewManager returns a manager for the workspace at opts.Root; nothing starts until asked.
func NewManager(opts Options) *Manager {
	if opts.RequestTimeout == 0 {
		opts.RequestTimeout = RequestTimeout
	}
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = IdleTimeout
	}
	m := &Manager{opts: opts, specs: Specs(), servers: map[string]*server{}}
	for _, s := range m.specs {
		m.servers[s.ID] = &server{spec: s}
	}
	return m
}

// Root is the workspace the manager serves.
func (m *Manager) Root() string { return m.opts.Root }

// Client returns the running server for file, starting it (or restarting it once after a crash)
// when needed. The error is a *NoServer when there is none to run.
func (m *Manager) Client(ctx context.Context, file string, caller Caller) (*Client, error) {
	spec, ok := SpecFor(m.specs, file)
	if !ok {
		ext := filepath.Ext(file)
		if ext == "" {
			ext = filepath.Base(file)
		}
		return nil, &NoServer{Reason: fmt.Sprintf("no language server knows %s files", ext)}
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, &NoServer{Spec: spec, Reason: "the workspace was closed"}
	}
	s := m.servers[spec.ID]
	m.mu.Unlock()
	return m.ensure(ctx, s, caller)
}

// ClientFor is Client by language (a Spec.ID) rather than by file: for questions about the
// whole workspace (find a symbol by name).
func (m *Manager) ClientFor(ctx context.Context, id string, caller Caller) (*Client, error) {
	m.mu.Lock()
	s, ok := m.servers[id]
	closed := m.closed
	m.mu.Unlock()
	switch {
	case !ok:
		return nil, &NoServer{Reason: "no language server " + id}
	case closed:
		return nil, &NoServer{Spec: s.spec, Reason: "the workspace was closed"}
	}
	return m.ensure(ctx, s, caller)
}

func (m *Manager) ensure(ctx context.Context, s *server, caller Caller) (*Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastUsed = time.Now()
	m.touch(s)
	if s.client != nil && s.client.Alive() {
		if caller.Trusted && !s.trusted {
			// Trusted since it started: start again the way a trusted folder runs it.
			s.client.shutdown()
			s.client = nil
		} else {
			return s.client, nil
		}
	}
	if s.client != nil {
		// It crashed: once more, then it stays down with its reason.
		if s.restarts >= 1 {
			s.failed = fmt.Errorf("%s stopped again after a restart: %w", s.spec.Name, s.client.stoppedErr())
			s.client = nil
		} else {
			s.restarts++
			s.client = nil
		}
	}
	if s.failed != nil {
		return nil, &NoServer{Spec: s.spec, Reason: s.failed.Error()}
	}
	launch, err := m.launch(ctx, s.spec, caller)
	if err != nil {
		return nil, err
	}
	c, err := start(ctx, s.spec, m.opts.Root, launch)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		s.failed = err
		return nil, &NoServer{Spec: s.spec, Reason: err.Error()}
	}
	c.timeout = m.opts.RequestTimeout
	s.client, s.trusted = c, caller.Trusted
	m.changed(s.spec.ID, "running")
	return c, nil
}

func (m *Manager) changed(id, state string) {
	if m.opts.Changed != nil {
		m.opts.Changed(id, state)
	}
}

// launch works out how to start spec's server for caller, asking the person first where a
// server cannot be made safe in an untrusted folder.
func (m *Manager) launch(ctx context.Context, spec Spec, caller Caller) (Launch, error) {
	program := m.find(spec)
	if program == "" {
		reason := fmt.Sprintf("%s (for %s files) is not installed", spec.Name, spec.Label)
		if o := m.opts.Overrides[spec.ID]; o != "" {
			reason = fmt.Sprintf("the %s chosen in Settings (%s) cannot be run", spec.Name, o)
		}
		return Launch{}, &NoServer{Spec: spec, Reason: reason}
	}
	l := Launch{Program: program, Args: slices.Clone(spec.Args), Settings: spec.Settings}
	if spec.ID == "typescript" {
		// The syntax server answers while the project loads, with aliases unresolved (a
		// definition lands on the import): every request goes to the semantic one.
		l.InitOpts = map[string]any{"hostInfo": "gantry", "tsserver": map[string]any{"useSyntaxServer": "never"}}
	}
	if caller.Trusted {
		return l, nil
	}
	l.Env = append(l.Env, "PATH="+cleanPath(m.opts.Root))
	if spec.NeedsTrust != "" {
		if caller.Approve == nil {
			return Launch{}, &NoServer{Spec: spec, Reason: fmt.Sprintf("%s %s, and the folder is not trusted", spec.Name, spec.NeedsTrust)}
		}
		ok, msg, err := caller.Approve(ctx, program, spec.NeedsTrust)
		if err != nil {
			return Launch{}, err
		}
		if !ok {
			return Launch{}, &NoServer{Spec: spec, Reason: fmt.Sprintf("%s was not started: %s", spec.Name, strings.TrimSuffix(msg, "."))}
		}
		return l, nil
	}
	if spec.ID == "typescript" {
		if err := m.untrustedTypeScript(&l); err != nil {
			return Launch{}, err
		}
	}
	if spec.Untrusted != nil {
		spec.Untrusted(&l)
	}
	return l, nil
}

// untrustedTypeScript points typescript-language-server at a tsserver that does not come from
// the folder (its own, next to it): the project's node_modules/typescript would run the
// project's code, and a tsserver loads the plugins a tsconfig names from beside itself.
func (m *Manager) untrustedTypeScript(l *Launch) error {
	real, err := filepath.EvalSymlinks(l.Program)
	if err != nil {
		real = l.Program
	}
	// typescript-language-server/lib/cli.mjs → …/node_modules/typescript/lib/tsserver.js
	for dir := filepath.Dir(real); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		candidate := filepath.Join(dir, "node_modules", "typescript", "lib", "tsserver.js")
		if _, err := os.Stat(candidate); err == nil && !inside(m.opts.Root, candidate) {
			l.InitOpts["tsserver"].(map[string]any)["path"] = candidate
			l.InitOpts["disableAutomaticTypingAcquisition"] = true
			l.InitOpts["plugins"] = []any{}
			return nil
		}
	}
	return &NoServer{Spec: Spec{ID: "typescript", Name: "typescript-language-server"},
		Reason: "no TypeScript outside this folder was found next to typescript-language-server, and the project's own tsserver does not run in a folder that is not trusted"}
}

// touch restarts the idle timer of s; the caller holds s.mu.
func (m *Manager) touch(s *server) {
	if s.idle != nil {
		s.idle.Stop()
	}
	s.idle = time.AfterFunc(m.opts.IdleTimeout, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.client != nil && time.Since(s.lastUsed) >= m.opts.IdleTimeout {
			s.client.shutdown()
			s.client = nil
			m.changed(s.spec.ID, "idle")
		}
	})
}

// Close stops every server; the manager answers nothing after.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	servers := slices.Collect(maps.Values(m.servers))
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.idle != nil {
				s.idle.Stop()
			}
			if s.client != nil {
				s.client.shutdown()
				s.client = nil
			}
		}()
	}
	wg.Wait()
}

// Status is one language's server as Settings shows it.
type Status struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Label   string `json:"label"`
	State   string `json:"state"` // "running", "found", "not found", "failed"
	Program string `json:"program,omitempty"`
	Install string `json:"install"`
	Detail  string `json:"detail,omitempty"` // why it failed, or what it is doing
	Pid     int    `json:"pid,omitempty"`
	RSS     int64  `json:"rss,omitempty"` // resident memory of the server and its children, bytes
	InUse   bool   `json:"inUse"`         // the workspace has files of its languages
}

// Statuses reports every known server. tools is the folder the install commands name.
func (m *Manager) Statuses(tools string) []Status {
	langs := m.Languages()
	out := make([]Status, 0, len(m.specs))
	for _, spec := range m.specs {
		st := Status{ID: spec.ID, Name: spec.Name, Label: spec.Label, Install: spec.InstallCommand(tools), InUse: slices.Contains(langs, spec.ID)}
		m.mu.Lock()
		s := m.servers[spec.ID]
		m.mu.Unlock()
		s.mu.Lock()
		switch {
		case s.client != nil && s.client.Alive():
			st.State, st.Pid, st.Program = "running", s.client.Pid(), s.client.launch.Program
			st.RSS = procgroup.RSS(st.Pid)
			st.Detail = s.client.Indexing()
		case s.failed != nil:
			st.State, st.Detail = "failed", s.failed.Error()
		default:
			st.Program = m.find(spec)
			st.State = "not found"
			if st.Program != "" {
				st.State = "found"
			} else {
				st.Detail = probeFailure(Find(spec.Program, m.opts.Overrides[spec.ID], m.opts.Root, m.opts.ToolsDirs))
			}
		}
		s.mu.Unlock()
		out = append(out, st)
	}
	return out
}

// Available are the Spec IDs of the workspace's languages that have a server to run, in Specs
// order: the code intelligence tools are offered only when there is one. It never waits for a
// server that is starting.
func (m *Manager) Available() []string {
	var out []string
	for _, id := range m.Languages() {
		for _, spec := range m.specs {
			if spec.ID == id && m.find(spec) != "" {
				out = append(out, id)
			}
		}
	}
	return out
}

// Languages are the Spec IDs of the languages the workspace has files of, found by a bounded
// walk that skips ignored and dependency folders; scanned once.
func (m *Manager) Languages() []string {
	m.scanOnce.Do(func() {
		found := map[string]bool{}
		matcher := ignore.New(m.opts.Root)
		seen := 0
		_ = filepath.WalkDir(m.opts.Root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			rel, _ := filepath.Rel(m.opts.Root, p)
			if d.IsDir() {
				name := d.Name()
				if p != m.opts.Root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor" || matcher.Ignored(rel, true)) {
					return filepath.SkipDir
				}
				return nil
			}
			if seen++; seen > 20000 || len(found) == len(m.specs) {
				return filepath.SkipAll
			}
			if spec, ok := SpecFor(m.specs, p); ok && !matcher.Ignored(rel, false) {
				found[spec.ID] = true
			}
			return nil
		})
		for _, s := range m.specs {
			if found[s.ID] {
				m.langs = append(m.langs, s.ID)
			}
		}
	})
	return m.langs
}

// find is spec's program, or "" when there is none or it is only a stand-in (see Spec.Probe).
// A program the person chose in Settings is taken as it is: if it cannot start, starting it
// says so.
func (m *Manager) find(spec Spec) string {
	program := Find(spec.Program, m.opts.Overrides[spec.ID], m.opts.Root, m.opts.ToolsDirs)
	if program == "" || len(spec.Probe) == 0 || m.opts.Overrides[spec.ID] != "" {
		return program
	}
	if probed(program, spec.Probe) {
		return program
	}
	return ""
}

var (
	probeMu       sync.Mutex
	probeResults  = map[string]bool{}
	probeFailures = map[string]string{} // what a failed probe printed, by program
)

// probed runs program with args once per process, and reports whether it succeeded.
func probed(program string, args []string) bool {
	probeMu.Lock()
	defer probeMu.Unlock()
	if ok, seen := probeResults[program]; seen {
		return ok
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, program, args...).CombinedOutput()
	probeResults[program] = err == nil
	if err != nil {
		probeFailures[program] = strings.TrimSpace(procgroup.LastLines(string(out), 2))
	}
	return err == nil
}

// probeFailure is what program printed when its probe failed, or "".
func probeFailure(program string) string {
	probeMu.Lock()
	defer probeMu.Unlock()
	return probeFailures[program]
}
