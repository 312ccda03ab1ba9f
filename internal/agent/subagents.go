package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"gantry/internal/checkpoint"
	"gantry/internal/events"
	"gantry/internal/store"
	"gantry/internal/terminal"
	"gantry/internal/tools"
)

// Subagents start and keep the subagents of one session's runs (reference 002): a subagent is a
// run of its own, with a fresh context, the mode's tools and its own history and checkpoint in a
// session under this one, over the same workspace; its events go into this session's log under
// its own run id, linked to the spawn_agent call that started it. In the foreground the calling
// run waits for its answer. In the background the call returns at once; when the subagent ends,
// a Notice goes into the conversation before the parent's next model call, or, when no run of
// the session is going on, Delegation.Idle starts one.
type Subagents struct {
	db        *store.DB
	sessionID string
	tools     *SessionTools
	deleg     Delegation

	mu      sync.Mutex
	tasks   map[string]*backgroundTask // running background tasks, by id
	ended   chan struct{}              // closed and replaced whenever a task ends
	pending []Notice                   // ended background tasks the parent's model was not told of yet
	wakers  int                        // how many of them should start a run to be told
	active  bool                       // a run of the session is going on
	waking  bool                       // Idle was asked to start one
	closed  bool
	nextID  int
}

var _ tools.Delegator = (*Subagents)(nil)

// Delegation is what a session's subagents need from whoever runs them (the app, gantry run).
type Delegation struct {
	// Approver decides a subagent's approvals, its events going to scope. A background subagent
	// cannot ask anyone: what would need a click is denied (reference 002's deny-by-default).
	// label names the subagent on its approval cards.
	Approver func(scope events.Scope, background bool, label string) tools.Approver
	// Idle starts a run of the session to hand the parent the notices of background tasks that
	// ended while none was going on. It reports whether one started; the run takes the
	// notices itself.
	Idle func() bool
}

// SubagentOf links a subagent's run to the run and the call that started it.
type SubagentOf struct {
	SessionID string `json:"-"`           // the parent's session: the subagent's events go to its log
	RunID     string `json:"parentRunId"` // the parent's run
	ActionID  string `json:"actionId"`    // the spawn_agent call's line in the parent's progress group
	// OwnSession is the subagent's own session (history, checkpoint): what its review names.
	OwnSession string `json:"sessionId"`
	TaskID     string `json:"taskId,omitempty"` // set when it runs in the background
	Task       string `json:"task"`             // the brief it was given
}

// backgroundTask is a background subagent while it runs.
type backgroundTask struct {
	id, runID, sessionID, brief string
	cancel                      context.CancelFunc
	cancelled                   bool
	started                     time.Time
}

// TaskStartedPayload is the taskStarted event: a background subagent began.
type TaskStartedPayload struct {
	TaskID      string `json:"taskId"`
	RunID       string `json:"runId"` // the subagent's run
	ParentRunID string `json:"parentRunId"`
	Task        string `json:"task"`
	Mode        Mode   `json:"mode"`
}

// subagentMaxSteps bounds a subagent's model calls: it has one part of the task.
const subagentMaxSteps = 15

func newSubagents(db *store.DB, sessionID string, st *SessionTools, d Delegation) *Subagents {
	return &Subagents{db: db, sessionID: sessionID, tools: st, deleg: d, tasks: map[string]*backgroundTask{}, ended: make(chan struct{})}
}

// parentRun is the run whose tool calls may start subagents, as their context carries it.
type parentRun struct {
	deps Deps
	req  RunRequest
}

type parentKey struct{}
type actionKey struct{}

func withParent(ctx context.Context, a *agentRun) context.Context {
	return context.WithValue(ctx, parentKey{}, parentRun{deps: a.shared, req: a.req})
}

// withAction marks a call's context with its line's id, so a subagent it starts is shown there.
func withAction(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, actionKey{}, id)
}

// Spawn starts a subagent for the run whose call ctx is.
func (s *Subagents) Spawn(ctx context.Context, sp tools.Spawn, _ tools.Output) (tools.Result, error) {
	parent, ok := ctx.Value(parentKey{}).(parentRun)
	if !ok || parent.req.Subagent != nil {
		// The tool is not offered inside a subagent; this catches a call that names it anyway.
		return tools.Fail(tools.ErrDenied, "A subagent cannot start subagents of its own: do the work with your own tools."), nil
	}
	mode := ModeExplore
	if sp.Mode == tools.SubagentAgent {
		mode = ModeAgent
	}
	if mode == ModeAgent && parent.req.Mode.ReadOnly() {
		return tools.Fail(tools.ErrDenied, "In this mode a subagent may only explore: use mode \"explore\"."), nil
	}
	action, _ := ctx.Value(actionKey{}).(string)
	child, err := s.prepare(ctx, parent, sp, mode, action)
	if err != nil {
		return tools.Result{}, err
	}
	if sp.Background {
		return s.startBackground(ctx, child)
	}
	out, err := child.runner.Run(ctx, child.req)
	if err != nil {
		return tools.Result{}, err
	}
	return foregroundResult(out), nil
}

// childRun is a subagent ready to run.
type childRun struct {
	runner *Runner
	req    RunRequest
}

// prepare makes the subagent's session, tools and runner. Nothing is registered yet: a failure
// here leaves no task behind.
func (s *Subagents) prepare(ctx context.Context, parent parentRun, sp tools.Spawn, mode Mode, action string) (childRun, error) {
	sess, err := s.db.CreateSession(ctx, store.Session{
		WorkspacePath: parent.req.Workspace, Title: SessionTitle(sp.Task), Mode: string(mode),
		Model: parent.req.Model, ParentID: s.sessionID,
	})
	if err != nil {
		return childRun{}, fmt.Errorf("starting a subagent: %w", err)
	}
	link := &SubagentOf{SessionID: s.sessionID, RunID: parent.req.RunID, ActionID: action, OwnSession: sess.ID, Task: sp.Task}
	runID := NewRunID()
	if sp.Background {
		link.TaskID = s.newTaskID()
	}
	scope := events.Scope{SessionID: s.sessionID, RunID: runID}
	approver := s.deleg.Approver(scope, sp.Background, clipRunes(sp.Task, 60))

	opts := s.tools.options()
	env := &tools.Env{
		Root: parent.req.Workspace, Ignore: s.tools.env.Ignore, Approver: approver,
		FileRules: s.tools.env.FileRules, Code: s.tools.env.Code, Checkpoints: tools.NoCheckpoints{},
	}
	deps := Deps{
		LLM: parent.deps.LLM, Events: parent.deps.Events, Messages: s.db, Now: parent.deps.Now,
		Throttle: parent.deps.Throttle, Density: parent.deps.Density, Queue: parent.deps.Queue,
	}
	if mode == ModeAgent {
		cps := checkpoint.New(s.db, sess.ID)
		env.Checkpoints, deps.Checkpoints = cps.Checkpointer(), cps
	}
	term := terminal.NewSession(parent.req.Workspace)
	term.SetDefaultTimeout(opts.TerminalTimeout)
	term.SetSandbox(opts.Sandbox)
	reg, err := tools.NewBuiltinRegistry(env, term)
	if err != nil {
		return childRun{}, err
	}
	if len(opts.DisabledTools) > 0 {
		reg = reg.Without(opts.DisabledTools)
	}
	if src := opts.MCP; src != nil {
		// The person's MCP servers serve subagents too, asking through the subagent's approver
		// so a card names who asks and a background one decides by the rules alone.
		deps.Extra = func(ctx context.Context, status func(string)) tools.Extension {
			return src.RunTools(ctx, approver, status)
		}
	}
	deps.Tools = reg.ForSubagent()
	return childRun{
		runner: NewRunner(deps),
		req: RunRequest{
			SessionID: sess.ID, RunID: runID, Workspace: parent.req.Workspace, Mode: mode, Model: parent.req.Model,
			Text: sp.Task, NumCtxCap: parent.req.NumCtxCap, MaxIterations: subagentMaxSteps, Subagent: link,
			ToolsAsText: parent.req.ToolsAsText,
		},
	}, nil
}

func (s *Subagents) newTaskID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	return fmt.Sprintf("bg%d-%s", s.nextID, NewRunID()[:6])
}

// foregroundResult is a finished subagent's answer as its caller's model reads it.
func foregroundResult(out RunResult) tools.Result {
	var b strings.Builder
	fmt.Fprintf(&b, "The subagent %s (%s).\n\n", statusVerb(out.Status), plural(out.ToolUses, "tool use"))
	b.WriteString(strings.TrimSpace(out.Message))
	res := tools.Result{Meta: tools.Meta{Changed: changedMeta(out.FilesChanged)}}
	if len(out.FilesChanged) > 0 {
		b.WriteString("\n\nFiles it changed: ")
		for i, f := range out.FilesChanged {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s (+%d −%d)", f.Path, f.Added, f.Removed)
		}
	}
	res.Content = b.String()
	if out.Status != StatusDone {
		res.ErrorKind = tools.ErrFailed
		if out.Status == StatusCancelled {
			res.ErrorKind = tools.ErrCancelled
		}
	}
	return res
}

func changedMeta(files []checkpoint.FileChange) []tools.FileChange {
	out := make([]tools.FileChange, 0, len(files))
	for _, f := range files {
		out = append(out, tools.FileChange{Path: f.Path, Added: f.Added, Removed: f.Removed})
	}
	return out
}

// startBackground runs child on its own, and registers it once it is under way: Stop on the
// parent does not end it, its own Cancel and Close do.
func (s *Subagents) startBackground(parentCtx context.Context, child childRun) (tools.Result, error) {
	link := child.req.Subagent
	ctx, cancel := context.WithCancel(context.WithoutCancel(parentCtx))
	task := &backgroundTask{
		id: link.TaskID, runID: child.req.RunID, sessionID: link.OwnSession, brief: link.Task,
		cancel: cancel, started: time.Now(),
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		cancel()
		return tools.Fail(tools.ErrDenied, "The session is closing, so no background task can start."), nil
	}
	s.tasks[task.id] = task
	s.mu.Unlock()

	emit := &runEmitter{sink: child.runner.deps.Events, scope: events.Scope{SessionID: s.sessionID, RunID: link.RunID}}
	emit.state(ctx, events.TaskStarted, TaskStartedPayload{
		TaskID: task.id, RunID: task.runID, ParentRunID: link.RunID, Task: task.brief, Mode: child.req.Mode,
	})
	go func() {
		out, err := child.runner.Run(ctx, child.req)
		if err != nil {
			out.Status, out.Message = StatusFailed, "The background task stopped: "+err.Error()
		}
		s.finish(task, out, emit)
	}()
	return tools.Result{Content: fmt.Sprintf("Started background task %s. It works on its own; its result will reach you as a "+
		"<task-notification> message when it ends. Go on with other work meanwhile, and do not wait for it or ask about it.", task.id)}, nil
}

// finish records how a background task ended and hands the notice on. A task that was cancelled
// reports so, whatever its run said as it stopped.
func (s *Subagents) finish(task *backgroundTask, out RunResult, emit *runEmitter) {
	s.mu.Lock()
	if task.cancelled && out.Status != StatusFailed {
		out.Status = StatusCancelled
		if strings.TrimSpace(out.Message) == "" || out.Message == "Stopped." {
			out.Message = "Cancelled before it finished."
		}
	}
	s.mu.Unlock()
	n := newNotice(task, out, out.ToolUses, time.Since(task.started))
	// The notice is stored before the task counts as ended: whoever waits for the tasks (Close,
	// gantry run) finds every notice recorded.
	emit.state(context.Background(), events.TaskNotification, n)
	// A task the person cancelled does not start a turn to say so; the next run hands it on.
	s.deliver(n, !task.cancelled)
	s.mu.Lock()
	delete(s.tasks, task.id)
	close(s.ended)
	s.ended = make(chan struct{})
	s.mu.Unlock()
}

// deliver queues n for the parent's model: the run going on takes it before its next model
// call; otherwise, when wake, Idle is asked to start one, which takes it when it starts.
func (s *Subagents) deliver(n Notice, wake bool) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.pending = append(s.pending, n)
	if wake {
		s.wakers++
	}
	wake = wake && !s.active && !s.waking && s.deleg.Idle != nil
	s.waking = s.waking || wake
	s.mu.Unlock()
	if wake {
		s.wake()
	}
}

// wake asks Idle for a run; when none can start, the notices wait for the next one.
func (s *Subagents) wake() {
	if s.deleg.Idle() {
		return
	}
	s.mu.Lock()
	s.waking = false
	s.mu.Unlock()
}

// runStarted marks a run of the session under way and hands it the notices waiting for it.
func (s *Subagents) runStarted() []Notice {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active, s.waking = true, false
	return s.takeLocked()
}

// take hands the run going on the notices that arrived since it last looked.
func (s *Subagents) take() []Notice {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.takeLocked()
}

func (s *Subagents) takeLocked() []Notice {
	out := s.pending
	s.pending, s.wakers = nil, 0
	return out
}

// runEnded marks the session idle; notices that came too late for the run start another.
func (s *Subagents) runEnded() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.active = false
	wake := s.wakers > 0 && !s.closed && !s.waking && s.deleg.Idle != nil
	s.waking = s.waking || wake
	s.mu.Unlock()
	if wake {
		go s.wake()
	}
}

// Running reports the background tasks still under way.
func (s *Subagents) Running() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tasks)
}

// RunningIDs are the ids of the background tasks still under way.
func (s *Subagents) RunningIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]string, 0, len(s.tasks))
	for id := range s.tasks {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Pending reports whether notices wait for a run of the parent to start for them.
func (s *Subagents) Pending() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.wakers > 0
}

// ErrNoTask is the error for a background task that is not running (it ended, or never was).
var ErrNoTask = errors.New("no such background task is running")

// Cancel stops one background task; it ends with a cancelled notice.
func (s *Subagents) Cancel(taskID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tasks[taskID]
	if t == nil {
		return ErrNoTask
	}
	t.cancelled = true
	t.cancel()
	return nil
}

// Close cancels every background task and waits, at most wait, until each has recorded its
// cancelled notice. No notice starts a run from then on. It reports whether all ended in time.
func (s *Subagents) Close(wait time.Duration) bool {
	s.mu.Lock()
	s.closed = true
	for _, t := range s.tasks {
		t.cancelled = true
		t.cancel()
	}
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	ended := s.Wait(ctx) == nil
	s.mu.Lock()
	s.pending, s.wakers = nil, 0
	s.mu.Unlock()
	return ended
}

// Wait blocks until no background task is running, or ctx ends.
func (s *Subagents) Wait(ctx context.Context) error {
	for {
		s.mu.Lock()
		running, ended := len(s.tasks), s.ended
		s.mu.Unlock()
		if running == 0 {
			return nil
		}
		select {
		case <-ended:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
