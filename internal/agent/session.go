package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strings"
	"time"

	"gantry/internal/checkpoint"
	"gantry/internal/ignore"
	"gantry/internal/safety"
	"gantry/internal/store"
	"gantry/internal/terminal"
	"gantry/internal/tools"
)

// SessionTools is what one session's runs share: the built-in tools over the workspace (with one
// terminal session, so `cd` carries over from run to run) and the checkpoints of its runs. The
// desktop app keeps one per open session; `gantry run` makes one for its single run.
type SessionTools struct {
	db          *store.DB
	sessionID   string
	Registry    *tools.Registry // every built-in tool, the disabled ones included
	Checkpoints *checkpoint.Manager

	env      *tools.Env
	terminal *terminal.Session
	opts     SessionOptions
	agents   *Subagents // nil until EnableSubagents
	density  TokenDensity
	mcp      ToolSource
}

// ToolSource adds tools that come and go while the app runs to each run: the person's MCP
// servers (*mcp.Manager).
type ToolSource interface {
	// RunTools are the tools to offer in a run, calling through approver. It may start servers
	// first and wait for them (ctx is the run's); status hears what it waits for.
	RunTools(ctx context.Context, approver tools.Approver, status func(string)) tools.Extension
}

// SessionOptions are the settings that shape a session's tools. The zero value is the built-in
// behaviour: the default file rules, every tool, the terminal's default timeout, no sandbox.
type SessionOptions struct {
	FileRules       []safety.FileRule // nil: safety.DefaultFileRules
	DisabledTools   []string          // not offered to the model; a call to one is refused
	TerminalTimeout time.Duration     // for a command that asks for none; 0: the terminal's default
	Sandbox         terminal.Sandbox  // how commands are confined; the zero value runs them as the user
	Code            tools.CodeIntel   // the workspace's language servers; nil: none
	MCP             ToolSource        // the MCP servers' tools; nil: none
	// Queue lines up the model requests of all runs that share the Ollama server (every
	// session's, their subagents'); nil sends each at once.
	Queue *ModelQueue
}

// NewSessionTools wires the built-in tools of session sessionID over root, asking approver
// before writes and commands.
func NewSessionTools(db *store.DB, sessionID, root string, approver tools.Approver, opts SessionOptions) (*SessionTools, error) {
	cps := checkpoint.New(db, sessionID)
	env := &tools.Env{
		Root: root, Ignore: ignore.New(root), Checkpoints: cps.Checkpointer(), Approver: approver,
		Tasks: sessionTasks{db: db, sessionID: sessionID},
	}
	term := terminal.NewSession(root)
	registry, err := tools.NewBuiltinRegistry(env, term)
	if err != nil {
		return nil, err
	}
	s := &SessionTools{db: db, sessionID: sessionID, Registry: registry, Checkpoints: cps, env: env, terminal: term}
	s.Apply(opts)
	return s, nil
}

// Apply changes the options for the session's next run (the settings were saved since the
// session began). It must not be called while a run of the session is going on.
func (s *SessionTools) Apply(opts SessionOptions) {
	rules := opts.FileRules
	if rules == nil {
		rules = safety.DefaultFileRules()
	}
	s.env.FileRules = rules
	s.env.Code = opts.Code
	s.terminal.SetDefaultTimeout(opts.TerminalTimeout)
	s.terminal.SetSandbox(opts.Sandbox)
	opts.DisabledTools = slices.Clone(opts.DisabledTools)
	s.opts = opts
	s.mcp = opts.MCP
}

// options are the session's settings, for its subagents' tools.
func (s *SessionTools) options() SessionOptions { return s.opts }

// EnableSubagents lets the session's runs start subagents (spawn_agent), which d runs: before
// it, the tool is not offered.
func (s *SessionTools) EnableSubagents(d Delegation) *Subagents {
	s.agents = newSubagents(s.db, s.sessionID, s, d)
	s.env.Agents = s.agents
	return s.agents
}

// Subagents are the session's subagents; nil when they are not enabled.
func (s *SessionTools) Subagents() *Subagents { return s.agents }

// Runner returns a runner over the session's enabled tools. It is cheap, so callers make one
// per run and a changed Ollama host takes effect at the next run.
func (s *SessionTools) Runner(model ChatModel, sink EventSink) *Runner {
	reg := s.Registry
	if len(s.opts.DisabledTools) > 0 {
		reg = reg.Without(s.opts.DisabledTools)
	}
	deps := Deps{
		LLM: model, Events: sink, Messages: s.db, Tools: reg, Checkpoints: s.Checkpoints,
		Subagents: s.agents, Density: &s.density, Queue: s.opts.Queue,
	}
	if src := s.mcp; src != nil {
		deps.Extra = func(ctx context.Context, status func(string)) tools.Extension {
			return src.RunTools(ctx, s.env.Approver, status)
		}
	}
	return NewRunner(deps)
}

// SessionTitle names a new session after the first line of its first message.
func SessionTitle(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	line = strings.TrimSpace(line)
	if r := []rune(line); len(r) > 60 {
		return strings.TrimSpace(string(r[:59])) + "…"
	}
	return line
}

// NewRunID returns a random run id.
func NewRunID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}
