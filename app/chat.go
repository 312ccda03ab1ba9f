package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"gantry/internal/agent"
	"gantry/internal/approval"
	"gantry/internal/checkpoint"
	"gantry/internal/config"
	"gantry/internal/diff"
	"gantry/internal/events"
	"gantry/internal/llm"
	"gantry/internal/safety"
	"gantry/internal/store"
	"gantry/internal/terminal"
	"gantry/internal/tools"
	"gantry/internal/trust"
)

// SendRequest is one message of the person (mirrored in frontend/src/lib/types.ts).
type SendRequest struct {
	SessionID   string             `json:"sessionId"` // "" starts a new session in the open workspace
	Text        string             `json:"text"`
	Mode        string             `json:"mode"`  // agent, explore, plan or review; "" is agent
	Model       string             `json:"model"` // "" is the settings' default model
	Attachments []agent.Attachment `json:"attachments"`
	Plan        string             `json:"plan"` // an approved plan for this run to carry out
}

// SendResult names the run a message started; its events follow through the event stream.
type SendResult struct {
	SessionID string `json:"sessionId"`
	RunID     string `json:"runId"`
}

// ApprovalDetail is a waiting approval with the file contents the card's diff needs, which the
// approvalRequested event leaves out.
type ApprovalDetail struct {
	Card   approval.Card `json:"card"`
	Before string        `json:"before"`
	After  string        `json:"after"`
	// Hunks of the edit for the diff view; their IDs are the ones ApplyHunks (per-hunk accept)
	// takes. Empty for commands.
	Hunks []diff.Hunk `json:"hunks"`
	// Arguments are an MCP tool's arguments, whole (the card's event holds them cut).
	Arguments string `json:"arguments,omitempty"`
}

// runShutdownWait bounds how long closing the app waits for stopped runs to record their end.
const runShutdownWait = 2 * time.Second

// replayMaxPage bounds one page of Replay, so a long session loads in pieces.
const replayMaxPage = 5000

// ChatService runs the agent on the person's messages, in the background, one run at a time per
// session, and lists, renames, deletes and replays sessions.
type ChatService struct {
	db        *store.DB
	emitter   *events.Emitter
	settings  *config.Store
	workspace *WorkspaceService
	approvals *approval.Manager
	code      *codeServers
	mcp       *mcpServers
	runs      *runs
	// queue lines up the model requests of every session's runs and subagents: they share one
	// Ollama (the modelRequests setting).
	queue *agent.ModelQueue
	ctx   context.Context
	// runFailed is called after a run failed, or a message could not start one for want of a
	// model: that is often the first sign that Ollama went away (or came back), and the status
	// in the UI should not wait for the next periodic check.
	runFailed func()
	// textTools reports a model whose tool check found it writing its calls as text.
	textTools func(model string) bool
}

func newChatService(db *store.DB, emitter *events.Emitter, settings *config.Store, ws *WorkspaceService, rules approval.RuleStore, folders trust.Store) *ChatService {
	emit := func(ctx context.Context, scope events.Scope, typ events.Type, payload any) error {
		_, err := emitter.Emit(ctx, scope, typ, payload)
		return err
	}
	return &ChatService{
		db: db, emitter: emitter, settings: settings, workspace: ws,
		approvals: approval.NewManager(emit, rules, folders, PolicyOf(settings.Get())),
		runs:      newRuns(), queue: agent.NewModelQueue(settings.Get().ModelRequests), ctx: context.Background(),
	}
}

func (s *ChatService) start(ctx context.Context) { s.ctx = ctx }

// PolicyOf is the approval policy the settings choose (the app's chats and `gantry run` alike).
func PolicyOf(st config.Settings) approval.Policy {
	return approval.Policy{
		Mode: approval.Mode(st.PermissionMode), AutoApproveCommands: st.AutoApproveCommands,
		AutoApproveSensitiveEdits: st.AutoApproveSensitiveEdits,
	}
}

// SessionOptionsOf is what the settings choose for a session's tools (the app's chats and
// `gantry run` alike).
func SessionOptionsOf(st config.Settings) agent.SessionOptions {
	return agent.SessionOptions{
		FileRules:       safetyRules(st.FileRules),
		DisabledTools:   st.DisabledTools,
		TerminalTimeout: time.Duration(st.TerminalTimeout) * time.Second,
		Sandbox:         terminal.Sandbox{Enabled: st.Sandbox, Network: st.SandboxNetwork},
	}
}

// safetyRules turns the settings' file rules into the tools' own; nil stays nil (the defaults).
func safetyRules(rules []config.FileRule) []safety.FileRule {
	if rules == nil {
		return nil
	}
	out := make([]safety.FileRule, len(rules))
	for i, r := range rules {
		out[i] = safety.FileRule{Pattern: r.Pattern, AutoApprove: r.Action == config.FileAllow}
	}
	return out
}

// settingsSaved applies a new permission mode to the approvals decided from now on, including
// those of runs in progress, and a new number of model requests at once to the line.
func (s *ChatService) settingsSaved(st config.Settings) {
	s.approvals.SetPolicy(PolicyOf(st))
	s.queue.SetCapacity(st.ModelRequests)
}

// Send starts a run on the message and returns at once; the run's events follow through the
// emitter.
func (s *ChatService) Send(req SendRequest) (SendResult, error) {
	ws := s.workspace.Current()
	if ws == nil {
		return SendResult{}, errors.New("open a project folder first")
	}
	text := strings.TrimSpace(req.Text)
	if text == "" && strings.TrimSpace(req.Plan) == "" {
		return SendResult{}, errors.New("the message is empty")
	}
	mode := agent.ModeAgent
	if req.Mode != "" {
		m, err := agent.ParseMode(req.Mode)
		if err != nil {
			return SendResult{}, err
		}
		mode = m
	}
	st := s.settings.Get()
	model := strings.TrimSpace(req.Model)
	if model == "" {
		model = st.DefaultModel
	}
	if model == "" {
		// Often there is none to pick because Ollama went away: let the status say so now.
		if s.runFailed != nil {
			s.runFailed()
		}
		return SendResult{}, errors.New("no model chosen: pick one in the chat or set a default model in Settings")
	}
	host, err := llm.ResolveHost(st.OllamaHost)
	if err != nil {
		return SendResult{}, err
	}

	sess, err := s.sessionFor(req.SessionID, ws.Path, text, mode, model)
	if err != nil {
		return SendResult{}, err
	}
	runID, err := s.startRun(sess, agent.RunRequest{
		Mode: mode, Model: model, Text: text, Attachments: req.Attachments, Plan: req.Plan,
	}, host)
	if err != nil {
		return SendResult{}, err
	}
	return SendResult{SessionID: sess.ID, RunID: runID}, nil
}

// startRun runs req in sess in the background, with the settings as they are now.
func (s *ChatService) startRun(sess store.Session, req agent.RunRequest, host *url.URL) (string, error) {
	st := s.settings.Get()
	opts := SessionOptionsOf(st)
	opts.Code = s.code.For(sess.WorkspacePath)
	opts.MCP = s.mcp.For(sess.WorkspacePath)
	opts.Queue = s.queue
	cs, run, ctx, err := s.runs.begin(s.ctx, sess.ID, func(approver *runApprover) (*agent.SessionTools, error) {
		st, err := agent.NewSessionTools(s.db, sess.ID, sess.WorkspacePath, approver, opts)
		if err != nil {
			return nil, err
		}
		st.EnableSubagents(s.delegation(sess))
		return st, nil
	})
	if err != nil {
		return "", err
	}
	// The session's tools outlive its runs; settings saved since apply from this run on.
	cs.tools.Apply(opts)
	s.approvals.SetPolicy(PolicyOf(st))
	cs.approver.gate.Store(s.approvals.Gate(approval.GateOptions{
		Scope: events.Scope{SessionID: sess.ID, RunID: run.id}, Workspace: sess.WorkspacePath,
	}))
	runner := cs.tools.Runner(llm.NewClient(host, http.DefaultClient), s.emitter)
	req.SessionID, req.RunID, req.Workspace = sess.ID, run.id, sess.WorkspacePath
	req.NumCtxCap, req.MaxIterations, req.GitBranch = st.NumCtxCap, st.MaxIterations, st.GitBranch
	req.ToolsAsText = s.textTools != nil && s.textTools(req.Model)
	go func() {
		defer s.runs.end(run)
		res, err := runner.Run(ctx, req)
		if err != nil {
			slog.Error("agent run", "session", sess.ID, "run", run.id, "err", err)
		}
		if res.Status == agent.StatusFailed && s.runFailed != nil {
			s.runFailed()
		}
	}()
	return run.id, nil
}

// delegation is how a session's subagents ask for approval (a background one asks nobody) and
// how the notices of background tasks that end while the session is idle reach its model: a
// turn of its own, with the mode and model the session used last.
func (s *ChatService) delegation(sess store.Session) agent.Delegation {
	return agent.Delegation{
		Approver: func(scope events.Scope, background bool, label string) tools.Approver {
			return s.approvals.Gate(approval.GateOptions{
				Scope: scope, Workspace: sess.WorkspacePath, Background: background, Subagent: label,
			})
		},
		Idle: func() bool {
			latest, err := s.db.GetSession(s.ctx, sess.ID)
			if err != nil {
				return false
			}
			host, err := llm.ResolveHost(s.settings.Get().OllamaHost)
			if err != nil {
				return false
			}
			mode, err := agent.ParseMode(latest.Mode)
			if err != nil {
				mode = agent.ModeAgent
			}
			_, err = s.startRun(latest, agent.RunRequest{Mode: mode, Model: latest.Model}, host)
			return err == nil
		},
	}
}

// sessionFor returns the session a message goes to: the given one, which must belong to the
// open workspace, or a new one named after the message.
func (s *ChatService) sessionFor(id, workspace, text string, mode agent.Mode, model string) (store.Session, error) {
	if id == "" {
		title := agent.SessionTitle(text)
		if title == "" {
			title = "Carry out the plan"
		}
		return s.db.CreateSession(s.ctx, store.Session{WorkspacePath: workspace, Title: title, Mode: string(mode), Model: model})
	}
	sess, err := s.db.GetSession(s.ctx, id)
	if err != nil {
		return store.Session{}, err
	}
	if sess.WorkspacePath != workspace {
		return store.Session{}, errors.New("this session belongs to another project; open that project to continue it")
	}
	if s.runs.running(id) != "" {
		return store.Session{}, ErrRunInProgress
	}
	if err := s.db.TouchSession(s.ctx, id, string(mode), model); err != nil {
		return store.Session{}, err
	}
	return sess, nil
}

// Stop cancels a run; it ends as cancelled, which its runFinished event says. Stopping a run that
// already ended does nothing.
func (s *ChatService) Stop(runID string) error {
	s.runs.stop(runID)
	return nil
}

// ActiveRun is the id of the session's run in progress, or "".
func (s *ChatService) ActiveRun(sessionID string) (string, error) {
	return s.runs.running(sessionID), nil
}

// CancelTask stops one of the session's background tasks; it ends with a cancelled notice.
func (s *ChatService) CancelTask(sessionID, taskID string) error {
	a := s.runs.subagents(sessionID)
	if a == nil {
		return agent.ErrNoTask
	}
	return a.Cancel(taskID)
}

// RunningTasks are the ids of the session's background tasks still under way: a task the log
// shows started and never ended, and that is not among them, ended when Gantry last closed.
func (s *ChatService) RunningTasks(sessionID string) ([]string, error) {
	a := s.runs.subagents(sessionID)
	if a == nil {
		return []string{}, nil
	}
	return a.RunningIDs(), nil
}

// Sessions lists the open workspace's sessions, the most recently active first (none when no
// workspace is open).
func (s *ChatService) Sessions() ([]store.Session, error) {
	ws := s.workspace.Current()
	if ws == nil {
		return []store.Session{}, nil
	}
	return s.db.ListSessions(s.ctx, ws.Path)
}

// RenameSession sets a session's title.
func (s *ChatService) RenameSession(id, title string) error {
	title = strings.TrimSpace(title)
	if title == "" {
		return errors.New("the title is empty")
	}
	if r := []rune(title); len(r) > 200 {
		title = string(r[:200])
	}
	return s.db.RenameSession(s.ctx, id, title)
}

// DeleteSession removes a session with its history and checkpoints; the files in the workspace
// stay as they are. A session with a run in progress is refused.
func (s *ChatService) DeleteSession(id string) error {
	if err := s.runs.forget(id); err != nil {
		return err
	}
	if err := s.db.DeleteSession(s.ctx, id); err != nil {
		return err
	}
	// The deleted checkpoints' stashed files go too.
	if err := checkpoint.SweepStash(s.ctx, s.db); err != nil {
		slog.Warn("sweeping the checkpoint stash", "err", err)
	}
	return nil
}

// Replay returns up to limit of a session's events after afterSeq, as they were shown live.
func (s *ChatService) Replay(sessionID string, afterSeq int64, limit int) ([]events.Event, error) {
	if limit <= 0 || limit > replayMaxPage {
		limit = replayMaxPage
	}
	return s.emitter.Replay(s.ctx, sessionID, afterSeq, limit)
}

// RespondApproval answers a waiting approval. It is the only way an approval is answered: the
// answer must come from the person, never from the model.
func (s *ChatService) RespondApproval(id string, d approval.Decision) error {
	return s.approvals.Respond(id, d)
}

// Approval returns a waiting approval with the file contents for the card's diff.
func (s *ChatService) Approval(id string) (ApprovalDetail, error) {
	req, ok := s.approvals.Pending(id)
	if !ok {
		return ApprovalDetail{}, fmt.Errorf("approval %s: %w", id, approval.ErrUnknown)
	}
	detail := ApprovalDetail{Card: req.Card, Before: req.Before, After: req.After, Hunks: []diff.Hunk{}, Arguments: req.Arguments}
	if req.Card.Kind == approval.KindEdit {
		detail.Hunks = diff.Hunks(req.Before, req.After, diff.DefaultContext)
	}
	return detail, nil
}

// shutdown stops the runs and waits briefly for them to record how they ended.
func (s *ChatService) shutdown() {
	if !s.runs.shutdown(runShutdownWait) {
		slog.Warn("agent runs still finishing at shutdown", "waited", runShutdownWait)
	}
}
