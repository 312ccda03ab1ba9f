package tools

import (
	"context"

	"gantry/internal/ignore"
	"gantry/internal/safety"
)

// Env is what the built-in tools work against: one workspace and the hooks through which a
// person approves and the checkpoint records. It is shared by all calls of a session.
type Env struct {
	Root        string          // absolute workspace root
	Ignore      *ignore.Matcher // .gitignore rules of Root
	Approver    Approver
	Checkpoints Checkpointer
	FileRules   []safety.FileRule // sensitivity rules, last match wins
	// Code is the workspace's language servers; nil when there are none to ask.
	Code CodeIntel
	// Tasks is the session's task list; nil where none is kept (the task tools are not offered).
	Tasks Tasks
	// Agents starts subagents; nil inside a subagent, which may not start its own.
	Agents Delegator
}

// CommandApproval asks whether a command may run. Analysis.FolderCode says when it runs code
// the folder supplies, which in a folder the person has not trusted asks whatever the mode.
type CommandApproval struct {
	Command  string
	Cwd      string // absolute
	Analysis safety.CommandAnalysis
	// Sandboxed: it will run in the terminal's sandbox (the card says so).
	Sandboxed bool
}

// EditApproval asks whether a file may be written. Before and After are the whole contents so
// the approval card can show a diff and the person can change After before accepting.
type EditApproval struct {
	Path      string // workspace-relative slash path
	Existed   bool
	Before    string
	After     string
	Sensitive bool   // the file rules say ask
	Rule      string // the pattern that made it sensitive, for the card
}

// FolderCodeApproval asks whether a program the opened folder supplies may run when a tool
// (not the model's command) would run it: get_diagnostics with the project's own tsc, say. In
// a trusted folder it runs; otherwise the person is asked on a command card (SPEC §8).
type FolderCodeApproval struct {
	Command string // exactly what would run, as the card shows it
	Cwd     string // absolute
	Why     string // what it does, as a verb phrase: "runs the project's own TypeScript compiler (…)"
}

// MCPApproval asks whether a tool of an MCP server may run with these arguments. The card
// shows the server, the tool and the arguments as the model wrote them.
type MCPApproval struct {
	Server string
	// Source is where the server is configured: "settings" (the person's own) or "project"
	// (the trusted project's file); an "always allow" holds for that scope.
	Source    string
	Tool      string // the server's name for it
	Title     string // its title for a person
	Summary   string // the first sentence of its description (the server's words)
	Arguments map[string]any
	// ReadOnly: its annotations say it changes nothing, which may run unasked in the default mode.
	ReadOnly bool
}

// Decision is the answer to an approval.
type Decision struct {
	Allowed      bool
	AutoApproved bool   // allowed by policy without asking a person
	Message      string // the person's words to the model (why not, what instead)
	// NotAsked: no person was asked (nobody could answer, or they declined it already); Message
	// says why, in words for the model.
	NotAsked bool
	// Content replaces EditApproval.After when the person edited the proposal before accepting.
	Content *string
}

// Approver decides approvals: by policy, or by asking a person and waiting. It returns an error
// only when it cannot decide (ctx cancelled, the app closing).
type Approver interface {
	ApproveCommand(ctx context.Context, req CommandApproval) (Decision, error)
	ApproveEdit(ctx context.Context, req EditApproval) (Decision, error)
	ApproveFolderCode(ctx context.Context, req FolderCodeApproval) (Decision, error)
	ApproveMCP(ctx context.Context, req MCPApproval) (Decision, error)
	// FolderTrusted reports whether the person trusts the workspace to run its own code.
	FolderTrusted() bool
}

// Checkpointer records files before and after the agent changes them, so each change can be
// kept or undone.
type Checkpointer interface {
	// BeforeEdit stores the prior state of path the first time the run touches it.
	BeforeEdit(ctx context.Context, path string) error
	// AfterEdit stores what the agent wrote.
	AfterEdit(ctx context.Context, path string) error
	// UndoFile restores one file of the current run and says what happened.
	UndoFile(ctx context.Context, path string) (UndoReport, error)
	// UndoTurn restores every file the current run changed.
	UndoTurn(ctx context.Context) (UndoReport, error)
}

// PolicyApprover answers without asking anyone: for headless runs and tests.
type PolicyApprover struct {
	AllowCommands bool
	AllowEdits    bool
	// TrustFolder trusts the workspace: its own programs run, commands that run them included.
	TrustFolder bool
}

func (p PolicyApprover) ApproveCommand(_ context.Context, req CommandApproval) (Decision, error) {
	if !p.AllowCommands || req.Analysis.Severity == safety.SeverityCritical {
		return Decision{Message: "Commands are not allowed in this run.", NotAsked: true}, nil
	}
	if req.Analysis.FolderCode != "" && !p.TrustFolder {
		return Decision{Message: "This folder is not trusted, so its own programs do not run.", NotAsked: true}, nil
	}
	return Decision{Allowed: true, AutoApproved: true}, nil
}

func (p PolicyApprover) ApproveEdit(context.Context, EditApproval) (Decision, error) {
	if !p.AllowEdits {
		return Decision{Message: "File changes are not allowed in this run.", NotAsked: true}, nil
	}
	return Decision{Allowed: true, AutoApproved: true}, nil
}

func (p PolicyApprover) ApproveFolderCode(context.Context, FolderCodeApproval) (Decision, error) {
	if !p.TrustFolder {
		return Decision{Message: "This folder is not trusted, so its own programs do not run.", NotAsked: true}, nil
	}
	return Decision{Allowed: true, AutoApproved: true}, nil
}

// ApproveMCP allows what commands may do, and read-only tools always.
func (p PolicyApprover) ApproveMCP(_ context.Context, req MCPApproval) (Decision, error) {
	if !p.AllowCommands && !req.ReadOnly {
		return Decision{Message: "MCP tools that may change things are not allowed in this run.", NotAsked: true}, nil
	}
	return Decision{Allowed: true, AutoApproved: true}, nil
}

func (p PolicyApprover) FolderTrusted() bool { return p.TrustFolder }

// NoCheckpoints records nothing; undo reports that there is nothing to undo.
type NoCheckpoints struct{}

func (NoCheckpoints) BeforeEdit(context.Context, string) error { return nil }
func (NoCheckpoints) AfterEdit(context.Context, string) error  { return nil }
func (NoCheckpoints) UndoFile(context.Context, string) (UndoReport, error) {
	return UndoReport{Text: "Checkpoints are not enabled in this run, so there is nothing to undo."}, nil
}
func (NoCheckpoints) UndoTurn(context.Context) (UndoReport, error) {
	return UndoReport{Text: "Checkpoints are not enabled in this run, so there is nothing to undo."}, nil
}
