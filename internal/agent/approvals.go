package agent

import (
	"context"

	"gantry/internal/approval"
	"gantry/internal/events"
	"gantry/internal/tools"
)

// A call that waits for a person shows it in its line of the progress group (SPEC §9): the tool
// runner gives each call a context carrying an approval.Waiter, which the approval manager tells
// when it asks and when it was answered. So the log reads toolAction "pending", approvalRequested,
// approvalResolved, toolAction "running" (when allowed), then the call's success or error.
// Approvers that never ask a person never call it, and the call goes straight from running to
// its result.

var _ tools.CallContexter = (*batchEvents)(nil)

// CallContext lets call i's approvals announce themselves on its line.
// Its line's id goes with it too, so a subagent the call starts shows inside that line.
func (b *batchEvents) CallContext(ctx context.Context, i int) context.Context {
	return withAction(approval.WithWaiter(ctx, callApproval{batch: b, index: i}), b.actionID(i))
}

// callApproval is the approval.Waiter of one call of a batch.
type callApproval struct {
	batch *batchEvents
	index int
}

func (w callApproval) Waiting(context.Context) { w.emit(ActionPending) }

// Answered resumes the line when allowed; a denial or a stop shows in the call's result, which
// follows at once.
func (w callApproval) Answered(_ context.Context, allowed bool) {
	if allowed {
		w.emit(ActionRunning)
	}
}

// emit uses the batch's context: state events are stored even after a stop.
func (w callApproval) emit(status string) {
	c := w.batch.calls[w.index]
	v := w.batch.view(c)
	w.batch.emit.state(w.batch.ctx, events.ToolAction, ToolActionPayload{
		GroupID: w.batch.groupID, ActionID: w.batch.actionID(w.index), Tool: c.Name, Status: status,
		Title: v.Running, Path: v.Path, Command: v.Command, Server: v.Server,
	})
}
