package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/events"
	"gantry/internal/git"
	"gantry/internal/llm/fakeollama"
)

func TestRunGitBranchFirstRunOnly(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, []fakeollama.Turn{textTurn("Hi."), textTurn("Hi again.")}, allowAll)
	gitInit(t, f.root)
	ctx := context.Background()
	for _, id := range []string{"r1", "r2"} {
		_, err := f.runner.Run(ctx, RunRequest{SessionID: f.sessionID, RunID: id, Workspace: f.root, Mode: ModeAgent, Model: "coder", Text: "say hi", GitBranch: true})
		require.NoError(t, err)
	}
	var started []RunStartedPayload
	for _, ev := range f.log() {
		if ev.Type == events.RunStarted {
			var p RunStartedPayload
			require.NoError(t, json.Unmarshal(ev.Payload, &p))
			started = append(started, p)
		}
	}
	require.Len(t, started, 2)
	require.NotNil(t, started[0].GitBranch)
	require.Equal(t, git.BranchCreated, started[0].GitBranch.Status)
	require.Equal(t, git.SessionBranchName(f.sessionID, "say hi"), started[0].GitBranch.Branch)
	require.Nil(t, started[1].GitBranch, "later runs leave the branch alone")
	require.Equal(t, started[0].GitBranch.Branch, currentBranch(t, f.root))
}

func currentBranch(t *testing.T, dir string) string {
	return strings.TrimSpace(runGit(t, dir, "symbolic-ref", "--short", "HEAD"))
}
