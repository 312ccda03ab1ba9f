package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"gantry/internal/approval"
	"gantry/internal/events"
	"gantry/internal/llm/fakeollama"
	"gantry/internal/mcp"
	"gantry/internal/mcp/mcptest"
	"gantry/internal/procgroup"
)

// A broken entry in settings.json costs nothing else: the app opens with the other settings,
// and Settings names the entry and says what is wrong with it.
func TestABrokenMCPEntryIsReportedAndTheAppStillOpens(t *testing.T) {
	t.Parallel()
	dataDir, configDir := t.TempDir(), t.TempDir()
	settingsPath := filepath.Join(configDir, "settings.json")
	require.NoError(t, os.WriteFile(settingsPath, []byte(`{"defaultModel": "qwen3:4b", "mcpServers": {
		"broken": {"command": "npx", "args": "-y server"},
		"both": {"command": "x", "url": "http://localhost:1"},
		"fine": {"command": "/bin/true"}}}`), 0o644))
	a, err := New(context.Background(), Options{DataDir: dataDir, SettingsPath: settingsPath, Mode: ModeBrowser, Version: "test"})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, a.Shutdown()) })

	view := a.Settings.Get()
	require.Empty(t, view.Problem)
	require.Equal(t, "qwen3:4b", view.Settings.DefaultModel)
	servers := a.Settings.MCP().Servers
	require.Len(t, servers, 3)
	byName := map[string]mcp.Status{}
	for _, s := range servers {
		byName[s.Name] = s
	}
	require.Equal(t, mcp.StateInvalid, byName["broken"].State)
	require.Equal(t, `"args" must be a list of strings`, byName["broken"].Detail)
	require.Contains(t, byName["both"].Detail, "not both")
	require.Equal(t, mcp.StateIdle, byName["fine"].State, "nothing starts without a project")

	// Not an object at all.
	_, err = a.Settings.AddMCPServers(`{"x": {"command": 5}}`)
	require.ErrorContains(t, err, `server "x": "command" must be a string`)
}

func TestAServerAddedInSettingsIsUsedByTheNextRun(t *testing.T) {
	t.Parallel()
	notes := t.TempDir()
	write := call("mcp__notes__write_note", map[string]any{"name": "todo.txt", "text": "buy milk"})
	f := startChat(t, "default", write, done("Noted."))
	entry, err := json.Marshal(map[string]any{"notes": map[string]any{"command": mcptest.Build(t), "args": []string{"--dir", notes}}})
	require.NoError(t, err)
	evs := openEvents(t, f.testServer)

	// Pasted the way READMEs show it, without the outer braces.
	view, err := f.app.Settings.AddMCPServers(`"notes": ` + string(entry[len(`{"notes":`):len(entry)-1]))
	require.NoError(t, err)
	require.Len(t, view.Servers, 1)
	require.Equal(t, f.root, view.Project)
	_, err = f.app.Settings.AddMCPServers(string(entry))
	require.ErrorContains(t, err, `already a server named "notes"`)
	// Settings showed it, so it starts.
	for {
		e := next(t, evs, string(events.MCPServers))
		if e["payload"].(map[string]any)["state"] == string(mcp.StateReady) {
			break
		}
	}
	st := f.app.Settings.MCP().Servers[0]
	require.Equal(t, mcp.StateReady, st.State)
	require.Len(t, st.Tools, 12)

	// A save of another setting from a screen whose copy of the servers is older keeps them.
	stale := f.app.Settings.Get().Settings
	stale.MCPServers = nil
	_, err = f.app.Settings.Save(stale)
	require.NoError(t, err)
	require.Len(t, f.app.Settings.MCP().Servers, 1)

	res, err := f.app.Chat.Send(SendRequest{Text: "note: buy milk"})
	require.NoError(t, err)
	card := next(t, evs, string(events.ApprovalRequested))["payload"].(map[string]any)
	require.Equal(t, "mcp", card["kind"])
	require.Equal(t, "notes", card["server"])
	require.Equal(t, "write_note", card["tool"])
	require.Contains(t, card["arguments"], `"text": "buy milk"`)
	require.NoError(t, f.app.Chat.RespondApproval(card["id"].(string), approval.Decision{Allowed: true}))
	next(t, evs, string(events.RunFinished))
	data, err := os.ReadFile(filepath.Join(notes, "todo.txt"))
	require.NoError(t, err)
	require.Equal(t, "buy milk", string(data))
	require.Contains(t, lastToolResult(f.fake), "wrote todo.txt")

	// Turned off in Settings: not offered, and a call says why.
	_, err = f.app.Settings.SetMCPToolEnabled("notes", "settings", "write_note", false)
	require.NoError(t, err)
	require.Contains(t, string(f.app.settings.Get().MCPServers), `"disabledTools":["write_note"]`)
	f.waitIdle(t, res.SessionID, 10*time.Second)
	f.fake.Enqueue(write, done("Could not."))
	res, err = f.app.Chat.Send(SendRequest{SessionID: res.SessionID, Text: "again"})
	require.NoError(t, err)
	next(t, evs, string(events.RunFinished))
	require.Contains(t, lastToolResult(f.fake), "turned off in Gantry's settings")
	require.NotContains(t, toolNames(f.fake.Requests()[len(f.fake.Requests())-1]), "mcp__notes__write_note")

	// Quitting stops the server's whole process group.
	pid := f.app.Settings.MCP().Servers[0].Pid
	require.NotZero(t, pid)
	f.app.mcp.CloseAll()
	require.Empty(t, procgroup.Members(pid))
}

func lastToolResult(fake *fakeollama.Server) string {
	reqs := fake.Requests()
	msgs := reqs[len(reqs)-1].Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "tool" {
			return msgs[i].Content
		}
	}
	return ""
}

// Stop ends a call under way on the server too, and the run ends as stopped.
func TestStopEndsAnMCPCallOnTheServer(t *testing.T) {
	t.Parallel()
	wait := call("mcp__notes__wait", map[string]any{})
	f := startChat(t, "default", wait)
	entry, err := json.Marshal(map[string]any{"notes": map[string]any{"command": mcptest.Build(t), "args": []string{"--dir", t.TempDir()}}})
	require.NoError(t, err)
	_, err = f.app.Settings.AddMCPServers(string(entry))
	require.NoError(t, err)
	evs := openEvents(t, f.testServer)

	res, err := f.app.Chat.Send(SendRequest{Text: "wait"})
	require.NoError(t, err)
	// The server reported progress: the call is under way on it.
	out := next(t, evs, string(events.CommandOutput))["payload"].(map[string]any)
	require.Contains(t, out["chunk"], "waiting")
	require.NoError(t, f.app.Chat.Stop(res.RunID))
	finished := next(t, evs, string(events.RunFinished))["payload"].(map[string]any)
	require.Equal(t, "cancelled", finished["status"])
	// runFinished is stored just before the session takes a new message.
	f.waitIdle(t, res.SessionID, 10*time.Second)

	// The server was told: its next call answers how many calls were cancelled.
	f.fake.Enqueue(call("mcp__notes__cancelled_calls", map[string]any{}), done("One was cancelled."))
	res, err = f.app.Chat.Send(SendRequest{SessionID: res.SessionID, Text: "how many?"})
	require.NoError(t, err)
	next(t, evs, string(events.RunFinished))
	require.Contains(t, lastToolResult(f.fake), "1 cancelled")
	failures, err := f.app.Settings.MCPFailures()
	require.NoError(t, err)
	require.Empty(t, failures, "a call the person stopped did not fail")
}
