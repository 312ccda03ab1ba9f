// Package approval holds the approvals waiting for a person and decides, by permission mode and
// stored "always allow" rules, which ones need a person at all. A waiting approval is a blocking
// call with a context: Request publishes it and waits; Respond, called only from the app's bound
// method, answers it; the first answer wins and a cancelled context denies it.
package approval

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"gantry/internal/diff"
	"gantry/internal/events"
	"gantry/internal/safety"
	"gantry/internal/trust"
)

// Event types this package emits, with payloads Card and ResolvedPayload.
const (
	EventRequested = events.ApprovalRequested
	EventResolved  = events.ApprovalResolved
)

// EmitFunc stores and posts one event. The app passes the emitter's Emit, dropping the Event:
//
//	func(ctx context.Context, s events.Scope, t events.Type, p any) error { _, err := em.Emit(ctx, s, t, p); return err }
type EmitFunc func(ctx context.Context, scope events.Scope, typ events.Type, payload any) error

var (
	ErrUnknown         = errors.New("no such approval")
	ErrAlreadyResolved = errors.New("the approval was already answered")
)

// Kind is what an approval is about.
type Kind string

const (
	KindCommand Kind = "command"
	KindEdit    Kind = "edit"
	KindMCP     Kind = "mcp" // a tool of an MCP server
)

// Card is what the approval card shows at once, and the approvalRequested payload: small, so
// without file contents.
type Card struct {
	ID   string `json:"id"` // set by Request
	Kind Kind   `json:"kind"`

	Command  string          `json:"command,omitempty"`
	Cwd      string          `json:"cwd,omitempty"`
	Severity safety.Severity `json:"severity,omitempty"`
	Reason   string          `json:"reason,omitempty"`
	// Sandboxed: the command will run in the terminal's sandbox.
	Sandboxed bool `json:"sandboxed,omitempty"`

	// FolderCode says, as a verb phrase ("runs a program from this folder: ./build.sh"), how the
	// command runs code the opened folder supplies, which the folder is not trusted to run: the
	// card then offers to trust the folder (SPEC §8).
	FolderCode string `json:"folderCode,omitempty"`

	Path      string `json:"path,omitempty"`
	Existed   bool   `json:"existed,omitempty"`
	Sensitive bool   `json:"sensitive,omitempty"`
	Rule      string `json:"rule,omitempty"` // the sensitivity pattern that made it ask

	// Subagent names the subagent that asks (its brief, shortened); "" for the run itself.
	Subagent string `json:"subagent,omitempty"`

	// An MCP tool: its server, where the server is configured ("settings" or "project"), the
	// server's name for the tool, its title and summary (the server's words), and the
	// arguments as the model wrote them, as indented JSON cut to a card's length (Request
	// holds them whole).
	Server       string `json:"server,omitempty"`
	ServerSource string `json:"serverSource,omitempty"`
	Tool         string `json:"tool,omitempty"`
	ToolTitle    string `json:"toolTitle,omitempty"`
	ToolSummary  string `json:"toolSummary,omitempty"`
	Arguments    string `json:"arguments,omitempty"`
	ArgumentsCut bool   `json:"argumentsCut,omitempty"`
	ReadOnlyHint bool   `json:"readOnlyHint,omitempty"`
}

// Request is one approval. Before and After are whole file contents; they stay out of the event,
// and the approval card fetches them with Pending.
type Request struct {
	Card
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// Arguments are an MCP tool's arguments, whole, as indented JSON.
	Arguments string `json:"arguments,omitempty"`

	Scope events.Scope `json:"-"`
	// Workspace is the absolute root the request comes from; "always allow" for this project
	// stores it in the rule.
	Workspace string `json:"-"`
}

// Decision is a person's answer to a Request.
type Decision struct {
	Allowed bool `json:"allowed"`
	// Always also allows matching requests from now on, in RuleScope (the project when empty).
	Always    bool      `json:"always,omitempty"`
	RuleScope RuleScope `json:"ruleScope,omitempty"`
	Message   string    `json:"message,omitempty"` // the person's words to the model
	// Content replaces an edit's After with the person's own text. AcceptedHunks keeps only
	// those hunks (IDs of diff.Hunks with diff.DefaultContext); Request returns the result in
	// Content.
	Content       *string `json:"content,omitempty"`
	AcceptedHunks []int   `json:"acceptedHunks,omitempty"`
	// TrustFolder allows a request to run the folder's own code and trusts the request's
	// workspace from now on (the card's "Trust this folder").
	TrustFolder bool `json:"trustFolder,omitempty"`
}

// Outcome is how an approval ended, as the approvalResolved event tells it.
type Outcome string

const (
	OutcomeAllowed       Outcome = "allowed"
	OutcomeAlwaysAllowed Outcome = "alwaysAllowed"
	OutcomeTrusted       Outcome = "trusted" // allowed, and the folder is trusted from now on
	OutcomeDenied        Outcome = "denied"
	OutcomeCancelled     Outcome = "cancelled"
)

// ResolvedPayload is the approvalResolved event.
type ResolvedPayload struct {
	ID      string  `json:"id"`
	Outcome Outcome `json:"outcome"`
	Edited  bool    `json:"edited,omitempty"` // the person changed the proposed file before accepting
	Message string  `json:"message,omitempty"`
}

// cancelledMessage is the Decision.Message of an approval ended by its context.
const cancelledMessage = "cancelled"

// resolveTimeout bounds storing approvalResolved once the request's own context is gone.
const resolveTimeout = 5 * time.Second

// Manager holds the approvals waiting for an answer. It is safe for concurrent use.
type Manager struct {
	emit    EmitFunc
	rules   RuleStore
	folders trust.Store

	mu       sync.Mutex
	policy   Policy
	pending  map[string]*waiting
	answered map[string]bool // resolved IDs, so a late answer is told so rather than "unknown"
}

type waiting struct {
	req    Request
	answer chan Decision // buffered: whoever resolves sends once without blocking
}

// NewManager returns a manager that emits through emit, keeps "always allow" rules in rules and
// the trusted folders in folders, and decides by policy until SetPolicy changes it.
func NewManager(emit EmitFunc, rules RuleStore, folders trust.Store, policy Policy) *Manager {
	return &Manager{
		emit:     emit,
		rules:    rules,
		folders:  folders,
		policy:   policy,
		pending:  make(map[string]*waiting),
		answered: make(map[string]bool),
	}
}

// Request asks a person and waits for Respond or for ctx to end. It always asks: whether to ask
// at all is the Gate's business. A cancelled ctx denies with Message "cancelled" and returns
// ctx's error. approvalResolved follows approvalRequested exactly once, whoever resolves.
func (m *Manager) Request(ctx context.Context, req Request) (Decision, error) {
	if err := ctx.Err(); err != nil {
		return Decision{Message: cancelledMessage}, err
	}
	req.ID = newApprovalID()
	w := &waiting{req: req, answer: make(chan Decision, 1)}
	m.mu.Lock()
	m.pending[req.ID] = w
	m.mu.Unlock()

	waiter := waiterOf(ctx)
	waiter.Waiting(ctx)
	// Registered before the event goes out: the UI may answer before Emit returns.
	if err := m.emit(ctx, req.Scope, EventRequested, req.Card); err != nil {
		m.mu.Lock()
		delete(m.pending, req.ID)
		m.mu.Unlock()
		waiter.Answered(ctx, false)
		return Decision{Message: cancelledMessage}, fmt.Errorf("publishing the approval: %w", err)
	}

	var d Decision
	cancelled := false
	select {
	case d = <-w.answer:
	case <-ctx.Done():
		if cancelled = m.claim(req.ID) != nil; cancelled {
			d = Decision{Message: cancelledMessage}
		} else {
			// Respond claimed it first and its answer is on the way.
			d = <-w.answer
		}
	}

	// The event is stored even when ctx is gone: the log must show how the approval ended.
	emitCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), resolveTimeout)
	defer cancel()
	if err := m.emit(emitCtx, req.Scope, EventResolved, resolvedPayload(req, d, cancelled)); err != nil {
		waiter.Answered(emitCtx, false)
		return Decision{Message: cancelledMessage}, fmt.Errorf("recording the approval's answer: %w", err)
	}
	waiter.Answered(emitCtx, d.Allowed && !cancelled)
	if cancelled {
		return d, ctx.Err()
	}
	return d, nil
}

// Pending returns a waiting approval with its file contents, for the approval card.
func (m *Manager) Pending(id string) (Request, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	w, ok := m.pending[id]
	if !ok {
		return Request{}, false
	}
	return w.req, true
}

// Respond answers a waiting approval. Only the app's bound method may call it: an answer must
// come from a person, never from anything the model wrote. The first answer wins; later ones get
// ErrAlreadyResolved. An answer that cannot apply (hunks of another change, edited text for a
// command) is refused and the approval keeps waiting.
//
// With Always, the rule is stored once the answer has won; if that fails the request is still
// allowed once and the error says the rule was not saved.
func (m *Manager) Respond(id string, d Decision) error {
	req, ok := m.Pending(id)
	if !ok {
		return m.notPending(id)
	}
	d, err := completeDecision(req, d)
	if err != nil {
		return err
	}
	w := m.claim(id)
	if w == nil {
		return m.notPending(id)
	}
	// The rule (or trust) is in place before the run goes on, so its next request finds it.
	var ruleErr error
	if d.TrustFolder {
		if err := m.folders.Trust(req.Workspace); err != nil {
			ruleErr = fmt.Errorf("allowed this once, but the folder could not be marked as trusted: %w", err)
		}
	}
	if d.Always {
		scope := d.RuleScope
		if scope == "" {
			scope = ScopeProject
		}
		if err := m.rules.AddRule(ruleFor(req, scope, req.Workspace)); err != nil {
			ruleErr = fmt.Errorf("allowed this once, but the rule to always allow it was not saved: %w", err)
		}
	}
	w.answer <- d // cannot block: the channel holds one answer and only the claimer sends
	return ruleErr
}

// claim takes id out of the pending set; only the one caller that gets it may answer it.
func (m *Manager) claim(id string) *waiting {
	m.mu.Lock()
	defer m.mu.Unlock()
	w, ok := m.pending[id]
	if !ok {
		return nil
	}
	delete(m.pending, id)
	m.answered[id] = true
	return w
}

func (m *Manager) notPending(id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.answered[id] {
		return ErrAlreadyResolved
	}
	return ErrUnknown
}

// completeDecision checks d against req and turns accepted hunks into content.
func completeDecision(req Request, d Decision) (Decision, error) {
	edits := d.Content != nil || d.AcceptedHunks != nil
	switch {
	case d.Always && !d.Allowed:
		return d, errors.New("a denial cannot be \"always\"")
	case d.RuleScope != "" && d.RuleScope != ScopeProject && d.RuleScope != ScopeUser:
		return d, fmt.Errorf("unknown rule scope %q", d.RuleScope)
	case edits && (req.Kind != KindEdit || !d.Allowed):
		return d, errors.New("changed content can only accept a file edit")
	case d.Content != nil && d.AcceptedHunks != nil:
		return d, errors.New("give either edited content or accepted hunks, not both")
	case d.Always && d.RuleScope == ScopeProject && req.Workspace == "":
		return d, errors.New("this approval has no project to store a rule for")
	case d.TrustFolder && (!d.Allowed || d.Always || req.Card.FolderCode == "" || req.Workspace == ""):
		return d, errors.New("only an allowed request to run the folder's own code can trust the folder")
	case d.Always && req.Card.FolderCode != "":
		return d, errors.New("a program of a folder that is not trusted cannot be always allowed; trust the folder instead")
	case d.Always && req.Card.Kind == KindMCP && d.RuleScope == ScopeUser && req.Card.ServerSource != mcpFromSettings:
		// A project's own server is the project's; allowing its tool everywhere would let
		// another project with a server of that name inherit the rule.
		return d, errors.New("a tool of this project's own MCP server can only be always allowed in this project")
	case d.Always && req.Card.Kind == KindEdit && req.Card.Sensitive:
		// A sensitive file asks every time by design (the file rules); a card cannot undo that.
		return d, errors.New("edits to a sensitive file cannot be always allowed; change the file rules in Settings instead")
	}
	if d.AcceptedHunks != nil {
		content, err := diff.ApplyHunks(req.Before, req.After, d.AcceptedHunks)
		if err != nil {
			return d, fmt.Errorf("applying the accepted hunks: %w", err)
		}
		d.Content, d.AcceptedHunks = &content, nil
	}
	return d, nil
}

func resolvedPayload(r Request, d Decision, cancelled bool) ResolvedPayload {
	p := ResolvedPayload{ID: r.ID, Outcome: OutcomeDenied, Message: d.Message}
	switch {
	case cancelled:
		p.Outcome, p.Message = OutcomeCancelled, ""
	case d.Allowed && d.TrustFolder:
		p.Outcome = OutcomeTrusted
	case d.Allowed && d.Always:
		p.Outcome = OutcomeAlwaysAllowed
	case d.Allowed:
		p.Outcome = OutcomeAllowed
	}
	p.Edited = d.Content != nil && *d.Content != r.After
	return p
}

func newApprovalID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}
