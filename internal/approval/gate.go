package approval

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"

	"gantry/internal/events"
	"gantry/internal/safety"
	"gantry/internal/tools"
)

// Mode is the permission mode (SPEC §8).
type Mode string

const (
	// ModeAsk asks before every write and command, unless an "always allow" rule matches.
	ModeAsk Mode = "ask"
	// ModeDefault writes files that are not sensitive and, with AutoApproveCommands, runs
	// commands that are not critical; anything else asks unless a rule matches. "" means this.
	ModeDefault Mode = "default"
	// ModeFull allows everything but critical commands without asking.
	ModeFull Mode = "full"
)

// Policy is how much the agent may do without asking a person.
type Policy struct {
	Mode Mode
	// AutoApproveCommands is the "auto-approve commands" setting, used in the default mode.
	AutoApproveCommands bool
	// AutoApproveSensitiveEdits writes files the file rules call sensitive without asking, in
	// the default mode (the setting of the same name).
	AutoApproveSensitiveEdits bool
	// AllowCritical allows even critical commands without asking: only `gantry run
	// --yes-critical` sets it, never a setting of the app.
	AllowCritical bool
}

// HeadlessPolicy is the policy of `gantry run`: --yes allows all but critical commands, as the
// full mode does; --yes-critical allows those too. Without either, base decides (and its
// questions are denied, as nobody is there to answer).
func HeadlessPolicy(base Policy, yes, yesCritical bool) Policy {
	if yes || yesCritical {
		base.Mode = ModeFull
	}
	base.AllowCritical = yesCritical
	return base
}

// SetPolicy changes the policy for the approvals decided from now on (a setting was saved).
func (m *Manager) SetPolicy(p Policy) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.policy = p
}

func (m *Manager) currentPolicy() Policy {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.policy
}

// GateOptions says whom a Gate's approvals belong to.
type GateOptions struct {
	Scope     events.Scope // the session and run the events go to
	Workspace string       // absolute root; project rules are kept per root
	// Unattended means nobody can answer (`gantry run`): whatever would ask is denied, and the
	// model is told how a person can allow it.
	Unattended bool
	// Background is a background subagent's gate: it applies the same policy and rules, and
	// denies what would need a click, telling its model to leave that to the main agent.
	Background bool
	// Subagent names the subagent on its cards ("" for the run itself).
	Subagent string
}

// Gate is the tools.Approver of one run: it allows by policy and rules, and asks the Manager's
// person for the rest.
type Gate struct {
	m    *Manager
	opts GateOptions

	mu       sync.Mutex
	declined map[string]bool // folder programs the person declined in this run, by cwd and command
}

var _ tools.Approver = (*Gate)(nil)

// Gate returns the approver for one run.
func (m *Manager) Gate(opts GateOptions) *Gate {
	opts.Workspace = filepath.Clean(opts.Workspace)
	return &Gate{m: m, opts: opts, declined: map[string]bool{}}
}

// FolderTrusted reports whether the person trusts the run's workspace to run its own code.
func (g *Gate) FolderTrusted() bool { return g.m.folders.Trusted(g.opts.Workspace) }

// ApproveCommand asks for critical commands whatever the mode and rules (unless
// AllowCritical); the rest by mode: full allows, a matching rule allows, default with
// AutoApproveCommands allows per safety.DecideTerminal, and everything else asks.
func (g *Gate) ApproveCommand(ctx context.Context, c tools.CommandApproval) (tools.Decision, error) {
	req := Request{
		Card: Card{
			Kind:    KindCommand,
			Command: c.Command, Cwd: c.Cwd, Severity: c.Analysis.Severity, Reason: c.Analysis.Reason,
			Sandboxed: c.Sandboxed,
		},
		Scope: g.opts.Scope, Workspace: g.opts.Workspace,
	}
	if c.Analysis.FolderCode != "" && !g.FolderTrusted() {
		// No mode, setting or rule runs a folder's own code before the person trusts it.
		req.Card.FolderCode = c.Analysis.FolderCode
		return g.askFolderCode(ctx, req)
	}
	p := g.m.currentPolicy()
	critical := c.Analysis.Severity.Rank() >= safety.SeverityCritical.Rank()
	var auto bool
	switch {
	case critical:
		auto = p.AllowCritical
	case p.Mode == ModeFull || g.ruleAllows(req):
		auto = true
	case p.Mode == ModeDefault || p.Mode == "":
		auto = safety.DecideTerminal(c.Analysis, p.AutoApproveCommands).AutoApproved
	}
	if auto {
		return tools.Decision{Allowed: true, AutoApproved: true}, nil
	}
	if g.opts.Background {
		return backgroundDenial(fmt.Sprintf("Running `%s`", c.Command)), nil
	}
	if g.opts.Unattended {
		flag := "--yes"
		if critical {
			flag = "--yes-critical"
		}
		return tools.Decision{Message: fmt.Sprintf("Running `%s` needs your approval, and nobody can give it in this run; run again with %s to allow it.", c.Command, flag), NotAsked: true}, nil
	}
	return g.ask(ctx, req)
}

// ApproveEdit allows every edit in full mode, edits of files that are not sensitive (or all,
// with AutoApproveSensitiveEdits) in the default mode, and edits a rule matches in any mode; the rest ask.
func (g *Gate) ApproveEdit(ctx context.Context, e tools.EditApproval) (tools.Decision, error) {
	req := Request{
		Card:   Card{Kind: KindEdit, Path: e.Path, Existed: e.Existed, Sensitive: e.Sensitive, Rule: e.Rule},
		Before: e.Before, After: e.After,
		Scope: g.opts.Scope, Workspace: g.opts.Workspace,
	}
	p := g.m.currentPolicy()
	defaultMode := p.Mode == ModeDefault || p.Mode == ""
	if p.Mode == ModeFull || (defaultMode && (!e.Sensitive || p.AutoApproveSensitiveEdits)) || g.ruleAllows(req) {
		return tools.Decision{Allowed: true, AutoApproved: true}, nil
	}
	if g.opts.Background {
		return backgroundDenial("Writing " + e.Path), nil
	}
	if g.opts.Unattended {
		return tools.Decision{Message: fmt.Sprintf("Writing %s needs your approval, and nobody can give it in this run; run again with --yes to allow it.", e.Path), NotAsked: true}, nil
	}
	return g.ask(ctx, req)
}

// ApproveMCP allows an MCP server's tool in full mode, when a rule covers it, and in the
// default mode when its annotations say it changes nothing; everything else asks, showing the
// server, the tool and the arguments.
func (g *Gate) ApproveMCP(ctx context.Context, m tools.MCPApproval) (tools.Decision, error) {
	whole, card, cut := mcpArguments(m.Arguments)
	req := Request{
		Card: Card{
			Kind: KindMCP, Server: m.Server, ServerSource: m.Source, Tool: m.Tool, ToolTitle: m.Title,
			ToolSummary: m.Summary, Arguments: card, ArgumentsCut: cut, ReadOnlyHint: m.ReadOnly,
		},
		Arguments: whole,
		Scope:     g.opts.Scope, Workspace: g.opts.Workspace,
	}
	p := g.m.currentPolicy()
	defaultMode := p.Mode == ModeDefault || p.Mode == ""
	if p.Mode == ModeFull || (defaultMode && m.ReadOnly) || g.ruleAllows(req) {
		return tools.Decision{Allowed: true, AutoApproved: true}, nil
	}
	if g.opts.Unattended {
		return tools.Decision{Message: fmt.Sprintf("Using %s of the MCP server %s needs your approval, and nobody can give it in this run; run again with --yes to allow it.", m.Tool, m.Server), NotAsked: true}, nil
	}
	return g.ask(ctx, req)
}

// mcpCardArguments bounds the arguments an approval card carries in its event; the card
// fetches the whole of them with the approval.
const mcpCardArguments = 4000

// mcpArguments renders arguments as indented JSON, whole and cut for the card.
func mcpArguments(args map[string]any) (whole, card string, cut bool) {
	if args == nil {
		args = map[string]any{}
	}
	b, err := json.MarshalIndent(args, "", "  ")
	if err != nil {
		b = []byte(fmt.Sprint(args))
	}
	whole = string(b)
	if r := []rune(whole); len(r) > mcpCardArguments {
		return whole, string(r[:mcpCardArguments]) + "…", true
	}
	return whole, whole, false
}

// ApproveFolderCode runs a program the folder supplies that a tool would run itself (a checker)
// when the folder is trusted, and otherwise asks on a command card that offers to trust it.
func (g *Gate) ApproveFolderCode(ctx context.Context, f tools.FolderCodeApproval) (tools.Decision, error) {
	if g.FolderTrusted() {
		return tools.Decision{Allowed: true, AutoApproved: true}, nil
	}
	return g.askFolderCode(ctx, Request{
		Card:  Card{Kind: KindCommand, Command: f.Command, Cwd: f.Cwd, Severity: safety.SeverityNone, FolderCode: f.Why},
		Scope: g.opts.Scope, Workspace: g.opts.Workspace,
	})
}

// askFolderCode asks the person to run the folder's own code, once per program and run: after
// a "no", the model's retries do not bring the card back.
func (g *Gate) askFolderCode(ctx context.Context, req Request) (tools.Decision, error) {
	if g.opts.Background {
		return backgroundDenial(fmt.Sprintf("Running `%s`, which %s in a folder that is not trusted,", req.Command, req.FolderCode)), nil
	}
	if g.opts.Unattended {
		return tools.Decision{Message: fmt.Sprintf("Not run: `%s` %s, and the folder is not trusted. "+
			"Nobody can trust it in this run; a person who trusts this folder's authors can run again with --trust.", req.Command, req.FolderCode), NotAsked: true}, nil
	}
	key := req.Cwd + "\x00" + req.Command
	g.mu.Lock()
	declined := g.declined[key]
	g.mu.Unlock()
	if declined {
		return tools.Decision{Message: "Not run: the user already declined running this program from the folder in this run; do not ask again.", NotAsked: true}, nil
	}
	d, err := g.ask(ctx, req)
	if err == nil && !d.Allowed {
		g.mu.Lock()
		g.declined[key] = true
		g.mu.Unlock()
	}
	return d, err
}

// backgroundDenial is the answer a background subagent gets for what would need a person.
func backgroundDenial(what string) tools.Decision {
	return tools.Decision{NotAsked: true, Message: what + " needs the user's approval, which a background task cannot ask for. " +
		"Do not try it again: finish what you can without it, and say in your final answer what is left for the main agent to do with the user."}
}

func (g *Gate) ruleAllows(req Request) bool {
	for _, r := range g.m.rules.Rules() {
		if r.allows(req, g.opts.Workspace) {
			return true
		}
	}
	return false
}

func (g *Gate) ask(ctx context.Context, req Request) (tools.Decision, error) {
	req.Subagent = g.opts.Subagent
	d, err := g.m.Request(ctx, req)
	if err != nil {
		return tools.Decision{Message: d.Message}, err
	}
	return tools.Decision{Allowed: d.Allowed, Message: d.Message, Content: d.Content}, nil
}
