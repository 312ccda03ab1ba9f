package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"gantry/internal/agent"
	"gantry/internal/approval"
	"gantry/internal/config"
	"gantry/internal/events"
	"gantry/internal/terminal"
)

// The command writes inside the project and outside it; only the sandbox refuses the second.
const sandboxProbe = `touch inside.txt; touch "$HOME/gantry-app-sandbox-probe"; echo "sandbox=$GANTRY_SANDBOX"`

func TestSandboxSettingReachesTheTerminal(t *testing.T) {
	if support := terminal.SandboxAvailable(); !support.Available {
		t.Skipf("sandbox test skipped: %s", support.Reason)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the project's sandbox cache
	home, err := os.UserHomeDir()
	require.NoError(t, err)
	probe := filepath.Join(home, "gantry-app-sandbox-probe")
	t.Cleanup(func() { os.Remove(probe) })

	cmd := call("run_terminal_command", map[string]any{"command": sandboxProbe})
	f := startChat(t, config.PermissionAsk, cmd, done("Sandboxed."), cmd, done("Unconfined."))
	view := f.app.Settings.Get()
	require.True(t, view.Sandbox.Available)
	require.False(t, view.Settings.Sandbox, "off by default")
	f.save(t, func(s *config.Settings) { s.Sandbox = true })

	res, err := f.app.Chat.Send(SendRequest{Text: "probe"})
	require.NoError(t, err)
	var card approval.Card
	require.NoError(t, json.Unmarshal(f.waitEvent(t, res.SessionID, events.ApprovalRequested).Payload, &card))
	require.True(t, card.Sandboxed, "the approval card says where the command will run")
	require.NoError(t, f.app.Chat.RespondApproval(card.ID, approval.Decision{Allowed: true}))
	f.waitIdle(t, res.SessionID, 10*time.Second)

	require.FileExists(t, filepath.Join(f.root, "inside.txt"))
	require.NoFileExists(t, probe, "the sandbox kept the write outside the project out")
	reqs := f.fake.Requests()
	last := reqs[len(reqs)-1].Messages
	result := last[len(last)-1].Content
	require.Contains(t, result, "sandbox=1")
	require.Contains(t, result, "Read-only file system")
	require.Contains(t, result, "[this command ran in Gantry's sandbox (read-only outside the project, no network)")

	var action agent.ToolActionPayload
	for _, ev := range f.replay(t, res.SessionID) {
		if ev.Type == events.ToolAction {
			require.NoError(t, json.Unmarshal(ev.Payload, &action))
		}
	}
	require.Equal(t, "run_terminal_command", action.Tool)
	require.True(t, action.Sandboxed, "the finished action row shows the badge")

	// Turned off, the next run's command runs as the user again.
	f.save(t, func(s *config.Settings) { s.Sandbox = false; s.PermissionMode = config.PermissionFull })
	res, err = f.app.Chat.Send(SendRequest{Text: "probe again", SessionID: res.SessionID})
	require.NoError(t, err)
	f.waitIdle(t, res.SessionID, 10*time.Second)
	require.FileExists(t, probe)
}
