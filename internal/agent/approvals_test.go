package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"gantry/internal/approval"
	"gantry/internal/events"
	"gantry/internal/llm/fakeollama"
	"gantry/internal/tools"
	"gantry/internal/trust"
)

// approvalFixture is a run fixture whose approvals go through a real approval.Manager and Gate.
// The manager emits through a forwarding sink that hands each approvalRequested card to the
// test, which answers it from another goroutine as the app's bound method would.
type approvalFixture struct {
	*runFixture
	mgr       *approval.Manager
	rules     *approval.MemoryRuleStore
	requested chan approval.Card
}

func newApprovalFixture(t *testing.T, turns []fakeollama.Turn, policy approval.Policy) *approvalFixture {
	t.Helper()
	// The approver is installed per run by runAs, as the app does.
	f := &approvalFixture{runFixture: newRunFixture(t, turns, nil), rules: &approval.MemoryRuleStore{}, requested: make(chan approval.Card, 8)}
	f.mgr = approval.NewManager(func(ctx context.Context, s events.Scope, typ events.Type, p any) error {
		_, err := f.emitter.Emit(ctx, s, typ, p)
		if err == nil && typ == approval.EventRequested {
			f.requested <- p.(approval.Card)
		}
		return err
	}, f.rules, &trust.Memory{}, policy)
	return f
}

// runAs runs text as runID with that run's Gate, as the app does for each run.
func (f *approvalFixture) runAs(ctx context.Context, runID, text string) RunResult {
	f.t.Helper()
	scope := events.Scope{SessionID: f.sessionID, RunID: runID}
	f.env.Approver = f.mgr.Gate(approval.GateOptions{Scope: scope, Workspace: f.root})
	res, err := f.runner.Run(ctx, RunRequest{SessionID: f.sessionID, RunID: runID, Workspace: f.root, Mode: ModeAgent, Model: "coder", Text: text})
	require.NoError(f.t, err)
	return res
}

// answer responds to the next approval with d from another goroutine; the channel reports how
// Respond went.
func (f *approvalFixture) answer(d approval.Decision) <-chan error {
	errc := make(chan error, 1)
	go func() {
		select {
		case card := <-f.requested:
			errc <- f.mgr.Respond(card.ID, d)
		case <-time.After(10 * time.Second):
			errc <- context.DeadlineExceeded
		}
	}()
	return errc
}

// approvalTrail is how call actionID and the approvals went in the log, in order:
// "toolAction:<status>", "approvalRequested", "approvalResolved:<outcome>".
func (f *approvalFixture) approvalTrail(runID, actionID string) []string {
	var trail []string
	for _, ev := range f.log() {
		if ev.RunID != runID {
			continue
		}
		switch ev.Type {
		case events.ToolAction:
			var p ToolActionPayload
			require.NoError(f.t, json.Unmarshal(ev.Payload, &p))
			if p.ActionID == actionID {
				trail = append(trail, "toolAction:"+p.Status)
			}
		case events.ApprovalRequested:
			trail = append(trail, string(ev.Type))
		case events.ApprovalResolved:
			var p approval.ResolvedPayload
			require.NoError(f.t, json.Unmarshal(ev.Payload, &p))
			trail = append(trail, string(ev.Type)+":"+string(p.Outcome))
		}
	}
	return trail
}

// lastToolMessage is what the model was told last in its request number i.
func (f *approvalFixture) lastToolMessage(i int) string {
	reqs := f.fake.Requests()
	require.Greater(f.t, len(reqs), i)
	msgs := reqs[i].Messages
	return msgs[len(msgs)-1].Content
}

var askPolicy = approval.Policy{Mode: approval.ModeAsk}

// asked is the trail of a call a person allowed: it starts, waits, goes on once allowed, ends.
var asked = []string{
	"toolAction:running", "toolAction:pending", "approvalRequested", "approvalResolved:allowed",
	"toolAction:running", "toolAction:success",
}

func TestApprovalSequenceEdit(t *testing.T) {
	t.Parallel()
	f := newApprovalFixture(t, []fakeollama.Turn{
		{Chunks: []fakeollama.Chunk{call("edit_file", map[string]any{"path": "main.go", "old": `"helo"`, "new": `"hello"`})}},
		textTurn("Fixed. [TASK_COMPLETE]"),
	}, askPolicy)

	answered := f.answer(approval.Decision{Allowed: true})
	res := f.runAs(context.Background(), "run-1", "fix the typo in main.go")
	require.NoError(t, <-answered)
	require.Equal(t, StatusDone, res.Status, res.Message)
	require.Contains(t, f.file("main.go"), `"hello"`)
	require.Equal(t, asked, f.approvalTrail("run-1", "g1.0"))
}

func TestApprovalSequenceCommand(t *testing.T) {
	t.Parallel()
	f := newApprovalFixture(t, []fakeollama.Turn{
		{Chunks: []fakeollama.Chunk{call("run_terminal_command", map[string]any{"command": "echo ok"})}},
		textTurn("It printed ok. [TASK_COMPLETE]"),
	}, askPolicy)

	answered := f.answer(approval.Decision{Allowed: true})
	res := f.runAs(context.Background(), "run-1", "run echo ok")
	require.NoError(t, <-answered)
	require.Equal(t, StatusDone, res.Status, res.Message)
	require.Equal(t, asked, f.approvalTrail("run-1", "g1.0"))
	require.Contains(t, f.lastToolMessage(1), "ok")
}

func TestApprovalDeniedCommand(t *testing.T) {
	t.Parallel()
	f := newApprovalFixture(t, []fakeollama.Turn{
		{Chunks: []fakeollama.Chunk{call("run_terminal_command", map[string]any{"command": "echo ok"})}},
		textTurn("I was not allowed to; use make instead. [TASK_COMPLETE]"),
	}, askPolicy)

	answered := f.answer(approval.Decision{Message: "use make instead"})
	res := f.runAs(context.Background(), "run-1", "run echo ok")
	require.NoError(t, <-answered)
	require.Equal(t, StatusDone, res.Status, "a denial is the model's to handle, not the end of the run")
	require.Equal(t, []string{
		"toolAction:running", "toolAction:pending", "approvalRequested", "approvalResolved:denied", "toolAction:error",
	}, f.approvalTrail("run-1", "g1.0"))
	acts := f.actions()
	require.Equal(t, string(tools.ErrDenied), acts[len(acts)-1].ErrorKind)
	told := f.lastToolMessage(1)
	require.Contains(t, told, "denied")
	require.Contains(t, told, "use make instead")
}

func TestApprovalAlwaysAllow(t *testing.T) {
	t.Parallel()
	run := fakeollama.Turn{Chunks: []fakeollama.Chunk{call("run_terminal_command", map[string]any{"command": "echo ok"})}}
	f := newApprovalFixture(t, []fakeollama.Turn{run, textTurn("Done. [TASK_COMPLETE]"), run, textTurn("Done again. [TASK_COMPLETE]")}, askPolicy)

	answered := f.answer(approval.Decision{Allowed: true, Always: true})
	require.Equal(t, StatusDone, f.runAs(context.Background(), "run-1", "run echo ok").Status)
	require.NoError(t, <-answered)
	require.Len(t, f.rules.Rules(), 1)
	require.Equal(t, []string{
		"toolAction:running", "toolAction:pending", "approvalRequested", "approvalResolved:alwaysAllowed",
		"toolAction:running", "toolAction:success",
	}, f.approvalTrail("run-1", "g1.0"))

	// Nobody answers now: the rule must allow it without asking.
	require.Equal(t, StatusDone, f.runAs(context.Background(), "run-2", "run echo ok again").Status)
	require.Equal(t, []string{"toolAction:running", "toolAction:success"}, f.approvalTrail("run-2", "g1.0"))
	require.Empty(t, f.requested)
}

func TestApprovalCriticalAsksInFullMode(t *testing.T) {
	t.Parallel()
	f := newApprovalFixture(t, []fakeollama.Turn{
		{Chunks: []fakeollama.Chunk{call("run_terminal_command", map[string]any{"command": "mkfs.ext4 /nonexistent/disk.img"})}},
		textTurn("Not allowed. [TASK_COMPLETE]"),
	}, approval.Policy{Mode: approval.ModeFull, AutoApproveCommands: true})

	answered := f.answer(approval.Decision{})
	require.Equal(t, StatusDone, f.runAs(context.Background(), "run-1", "format the disk").Status)
	require.NoError(t, <-answered)
	require.Equal(t, []string{
		"toolAction:running", "toolAction:pending", "approvalRequested", "approvalResolved:denied", "toolAction:error",
	}, f.approvalTrail("run-1", "g1.0"))
}

func TestApprovalCancelWhilePending(t *testing.T) {
	t.Parallel()
	f := newApprovalFixture(t, []fakeollama.Turn{
		{Chunks: []fakeollama.Chunk{call("run_terminal_command", map[string]any{"command": "echo ok"})}},
	}, askPolicy)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-f.requested
		cancel()
	}()
	// Nobody answers the card: only the stop can end this run.
	res := f.runAs(ctx, "run-1", "run echo ok")
	require.Equal(t, StatusCancelled, res.Status)
	require.Equal(t, StatusCancelled, f.finished().Status)
	require.Equal(t, []string{
		"toolAction:running", "toolAction:pending", "approvalRequested", "approvalResolved:cancelled", "toolAction:error",
	}, f.approvalTrail("run-1", "g1.0"))
	acts := f.actions()
	require.Equal(t, string(tools.ErrCancelled), acts[len(acts)-1].ErrorKind)
}

func TestApprovalAcceptWithChanges(t *testing.T) {
	t.Parallel()
	f := newApprovalFixture(t, []fakeollama.Turn{
		{Chunks: []fakeollama.Chunk{call("edit_file", map[string]any{"path": "main.go", "old": `"helo"`, "new": `"hello"`})}},
		textTurn("Kept your wording. [TASK_COMPLETE]"),
	}, askPolicy)

	mine := strings.Replace(runMainGo, `"helo"`, `"hello, world"`, 1)
	answered := f.answer(approval.Decision{Allowed: true, Content: &mine})
	res := f.runAs(context.Background(), "run-1", "fix the typo in main.go")
	require.NoError(t, <-answered)
	require.Equal(t, StatusDone, res.Status, res.Message)
	require.Equal(t, mine, f.file("main.go"), "the person's text is what is written")

	var resolved approval.ResolvedPayload
	for _, ev := range f.log() {
		if ev.Type == events.ApprovalResolved {
			require.NoError(t, json.Unmarshal(ev.Payload, &resolved))
		}
	}
	require.True(t, resolved.Edited)
	told := f.lastToolMessage(1)
	require.Contains(t, told, "The user changed your proposal")
	require.Contains(t, told, `+func greet() string { return "hello, world" }`)
	require.Contains(t, told, `-func greet() string { return "hello" }`)
}

// A stop reaches even a command that ignores SIGTERM (the terminal's short grace before SIGKILL
// is the only wait on the way; its tests check that it fits in a second).
func TestRunStopReachesStubbornCommand(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, []fakeollama.Turn{
		{Chunks: []fakeollama.Chunk{call("run_terminal_command", map[string]any{"command": "trap '' TERM INT; echo waiting; sleep 1000"})}},
	}, allowAll)
	runCancelledOn(t, f, "wait a while", commandSaid("waiting"))
	msgs := f.messages()
	require.Contains(t, msgs[len(msgs)-1].Content, "cancelled by the user", "the stop ended the command, not its timeout")
}
