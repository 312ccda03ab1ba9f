package agent

import (
	"context"

	"gantry/internal/git"
)

// sessionBranch moves a session onto its branch at its first run (no stored messages yet), when
// the request asks for it. Nil when there is nothing to say. A failure to read the history is
// left for loadHistory to report.
func (a *agentRun) sessionBranch(ctx context.Context) *git.BranchOutcome {
	if !a.req.GitBranch {
		return nil
	}
	if msgs, err := a.deps.Messages.Messages(ctx, a.req.SessionID); err != nil || len(msgs) > 0 {
		return nil
	}
	out := git.EnterSessionBranch(ctx, a.req.Workspace, git.SessionBranchName(a.req.SessionID, a.req.Text))
	return &out
}
