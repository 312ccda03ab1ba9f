package app

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"gantry/internal/agent"
	"gantry/internal/approval"
	"gantry/internal/tools"
)

// ErrRunInProgress refuses a second message while the session's agent is still working: two runs
// would interleave their edits and their history.
var ErrRunInProgress = errors.New("a run is already in progress in this session")

var errClosing = errors.New("Gantry is closing; the run was not started")

// chatSession is what an open chat keeps while the app runs: its tools, whose terminal keeps the
// working directory from one run to the next, and the run in progress, if any.
type chatSession struct {
	tools    *agent.SessionTools
	approver *runApprover
	run      *activeRun
}

// activeRun is a run working in the background.
type activeRun struct {
	id        string
	sessionID string
	cancel    context.CancelFunc
}

// runApprover is the tools' approver for a whole session; it hands each request to the gate of
// the run in progress, so approval events carry that run's id.
type runApprover struct{ gate atomic.Pointer[approval.Gate] }

var _ tools.Approver = (*runApprover)(nil)

func (a *runApprover) ApproveCommand(ctx context.Context, c tools.CommandApproval) (tools.Decision, error) {
	return a.gate.Load().ApproveCommand(ctx, c)
}

func (a *runApprover) ApproveEdit(ctx context.Context, e tools.EditApproval) (tools.Decision, error) {
	return a.gate.Load().ApproveEdit(ctx, e)
}

func (a *runApprover) ApproveFolderCode(ctx context.Context, f tools.FolderCodeApproval) (tools.Decision, error) {
	return a.gate.Load().ApproveFolderCode(ctx, f)
}

func (a *runApprover) ApproveMCP(ctx context.Context, m tools.MCPApproval) (tools.Decision, error) {
	return a.gate.Load().ApproveMCP(ctx, m)
}

func (a *runApprover) FolderTrusted() bool { return a.gate.Load().FolderTrusted() }

// runs tracks the chat sessions and their runs. One run at a time per session.
type runs struct {
	mu       sync.Mutex
	sessions map[string]*chatSession
	active   map[string]*activeRun // by run id
	closed   bool
	wg       sync.WaitGroup
}

func newRuns() *runs {
	return &runs{sessions: map[string]*chatSession{}, active: map[string]*activeRun{}}
}

// begin registers a new run of sessionID, building the session's tools with build the first
// time. The caller must start the run and call end when it is over.
func (r *runs) begin(parent context.Context, sessionID string, build func(*runApprover) (*agent.SessionTools, error)) (*chatSession, *activeRun, context.Context, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, nil, nil, errClosing
	}
	cs := r.sessions[sessionID]
	if cs != nil && cs.run != nil {
		return nil, nil, nil, ErrRunInProgress
	}
	if cs == nil {
		approver := &runApprover{}
		st, err := build(approver)
		if err != nil {
			return nil, nil, nil, err
		}
		cs = &chatSession{tools: st, approver: approver}
		r.sessions[sessionID] = cs
	}
	ctx, cancel := context.WithCancel(parent)
	run := &activeRun{id: agent.NewRunID(), sessionID: sessionID, cancel: cancel}
	cs.run = run
	r.active[run.id] = run
	r.wg.Add(1)
	return cs, run, ctx, nil
}

// end marks run as over, so the session takes a new message.
func (r *runs) end(run *activeRun) {
	r.mu.Lock()
	if cs := r.sessions[run.sessionID]; cs != nil && cs.run == run {
		cs.run = nil
	}
	delete(r.active, run.id)
	r.mu.Unlock()
	run.cancel()
	r.wg.Done()
}

// stop cancels a run; the run itself records that it was stopped. A run that already ended is
// not an error: the Stop button can race with the end of the run.
func (r *runs) stop(runID string) {
	r.mu.Lock()
	run := r.active[runID]
	r.mu.Unlock()
	if run != nil {
		run.cancel()
	}
}

// running returns the id of sessionID's run in progress, or "".
func (r *runs) running(sessionID string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cs := r.sessions[sessionID]; cs != nil && cs.run != nil {
		return cs.run.id
	}
	return ""
}

// subagents are sessionID's subagents, or nil when the session has had no run since Gantry
// started.
func (r *runs) subagents(sessionID string) *agent.Subagents {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cs := r.sessions[sessionID]; cs != nil {
		return cs.tools.Subagents()
	}
	return nil
}

// forget drops an idle session's tools (it is being deleted), cancelling its background tasks;
// a session with a run is refused.
func (r *runs) forget(sessionID string) error {
	r.mu.Lock()
	cs := r.sessions[sessionID]
	if cs != nil && cs.run != nil {
		r.mu.Unlock()
		return errors.New("stop the run in progress before deleting this session")
	}
	delete(r.sessions, sessionID)
	r.mu.Unlock()
	if cs != nil && cs.tools.Subagents() != nil {
		cs.tools.Subagents().Close(subagentCloseWait)
	}
	return nil
}

// subagentCloseWait bounds how long closing a session waits for its background tasks to record
// that they were cancelled.
const subagentCloseWait = 2 * time.Second

// shutdown refuses new runs, cancels the running ones and the background tasks, and waits for
// them to record how they ended, at most wait: a run stuck past that must not keep the window from closing.
func (r *runs) shutdown(wait time.Duration) bool {
	r.mu.Lock()
	r.closed = true
	for _, run := range r.active {
		run.cancel()
	}
	var agents []*agent.Subagents
	for _, cs := range r.sessions {
		if a := cs.tools.Subagents(); a != nil {
			agents = append(agents, a)
		}
	}
	r.mu.Unlock()
	done := make(chan struct{})
	go func() {
		// Every background task ends with its cancelled notice recorded, in parallel.
		var closing sync.WaitGroup
		for _, a := range agents {
			closing.Go(func() { a.Close(wait) })
		}
		closing.Wait()
		r.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(wait):
		return false
	}
}
