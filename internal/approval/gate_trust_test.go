package approval

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/safety"
	"gantry/internal/tools"
	"gantry/internal/trust"
)

func folderCommand(cmd string) tools.CommandApproval {
	return tools.CommandApproval{Command: cmd, Cwd: "/ws", Analysis: safety.AnalyzeCommandIn(cmd, "/ws")}
}

func TestFolderCodeAsksInEveryModeUntilTheFolderIsTrusted(t *testing.T) {
	t.Parallel()
	rec := newRecorder()
	folders := &trust.Memory{}
	m := NewManager(rec.emit, &MemoryRuleStore{}, folders, Policy{Mode: ModeFull, AutoApproveCommands: true})
	g := m.Gate(GateOptions{Workspace: "/ws"})

	d, err := g.ApproveCommand(t.Context(), folderCommand("ls -la"))
	require.NoError(t, err)
	require.True(t, d.AutoApproved, "a command that runs nothing of the folder's follows the mode")
	rec.requireNoRequest(t)

	done := approveAsync(t.Context(), func(ctx context.Context) (tools.Decision, error) {
		return g.ApproveCommand(ctx, folderCommand("./gradlew build"))
	})
	card := rec.nextRequest(t)
	require.Equal(t, KindCommand, card.Kind)
	require.Contains(t, card.FolderCode, "runs a program from this folder")
	require.Error(t, m.Respond(card.ID, Decision{Allowed: true, Always: true}), "a folder's program cannot be always allowed before the folder is trusted")
	require.NoError(t, m.Respond(card.ID, Decision{Allowed: true, TrustFolder: true}))
	r := waitGate(t, done)
	require.NoError(t, r.err)
	require.True(t, r.d.Allowed)
	require.Equal(t, []ResolvedPayload{{ID: card.ID, Outcome: OutcomeTrusted}}, rec.resolved(card.ID))
	require.True(t, folders.Trusted("/ws/sub"), "trust covers the folders inside")

	d, err = g.ApproveCommand(t.Context(), folderCommand("./gradlew test"))
	require.NoError(t, err)
	require.True(t, d.Allowed && d.AutoApproved, "a trusted folder's programs follow the mode")
	rec.requireNoRequest(t)
}

func TestADeclinedFolderProgramIsNotAskedAgainInTheSameRun(t *testing.T) {
	t.Parallel()
	rec := newRecorder()
	m := NewManager(rec.emit, &MemoryRuleStore{}, &trust.Memory{}, Policy{})
	g := m.Gate(GateOptions{Workspace: "/ws"})
	vet := tools.FolderCodeApproval{Command: "go vet .", Cwd: "/ws/pkg", Why: "go vet builds this package"}

	done := approveAsync(t.Context(), func(ctx context.Context) (tools.Decision, error) { return g.ApproveFolderCode(ctx, vet) })
	card := rec.nextRequest(t)
	require.Equal(t, "go vet .", card.Command)
	require.Equal(t, "go vet builds this package", card.FolderCode)
	require.Error(t, m.Respond(card.ID, Decision{TrustFolder: true}), "trust comes with allowing")
	require.NoError(t, m.Respond(card.ID, Decision{Allowed: false}))
	require.False(t, waitGate(t, done).d.Allowed)

	d, err := g.ApproveFolderCode(t.Context(), vet)
	require.NoError(t, err)
	require.False(t, d.Allowed)
	require.Contains(t, d.Message, "already declined")
	rec.requireNoRequest(t)

	// The next run asks again.
	next := m.Gate(GateOptions{Workspace: "/ws"})
	done = approveAsync(t.Context(), func(ctx context.Context) (tools.Decision, error) { return next.ApproveFolderCode(ctx, vet) })
	card = rec.nextRequest(t)
	require.NoError(t, m.Respond(card.ID, Decision{Allowed: true}))
	require.True(t, waitGate(t, done).d.Allowed)
}

func TestUnattendedRunsNeverRunAnUntrustedFoldersCode(t *testing.T) {
	t.Parallel()
	rec := newRecorder()
	folders := trust.Trusting("/trusted")
	m := NewManager(rec.emit, &MemoryRuleStore{}, folders, HeadlessPolicy(Policy{}, true, true))

	g := m.Gate(GateOptions{Workspace: "/ws", Unattended: true})
	d, err := g.ApproveCommand(t.Context(), folderCommand("npm test"))
	require.NoError(t, err)
	require.False(t, d.Allowed, "--yes does not trust the folder")
	require.Contains(t, d.Message, "--trust")
	d, err = g.ApproveFolderCode(t.Context(), tools.FolderCodeApproval{Command: "node_modules/.bin/tsc", Cwd: "/ws", Why: "the project's tsc"})
	require.NoError(t, err)
	require.False(t, d.Allowed)
	require.False(t, g.FolderTrusted())

	trusted := m.Gate(GateOptions{Workspace: "/trusted", Unattended: true})
	require.True(t, trusted.FolderTrusted())
	d, err = trusted.ApproveCommand(t.Context(), tools.CommandApproval{Command: "npm test", Cwd: "/trusted", Analysis: safety.AnalyzeCommandIn("npm test", "/trusted")})
	require.NoError(t, err)
	require.True(t, d.Allowed)
	rec.requireNoRequest(t)
}
