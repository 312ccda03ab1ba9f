package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"gantry/internal/mcp/mcptest"
	"gantry/internal/procgroup"
	"gantry/internal/tools"
)

func TestStopCancelsACallAndTheServerHearsOfIt(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.setServers(map[string]any{"test": f.stdio(nil)})
	reg := f.registry(allowAll)
	tl, args, failed := reg.Prepare("mcp__test__wait", nil)
	require.Nil(t, failed)

	ctx, stop := context.WithCancel(context.Background())
	out := newOutput()
	done := make(chan tools.Result)
	go func() {
		res, err := tl.Execute(ctx, args, out)
		require.NoError(t, err)
		done <- res
	}()
	<-out.first // the server reported progress: the call is under way
	require.Contains(t, out.text(), "waiting")
	stop()
	res := <-done
	require.Equal(t, tools.ErrCancelled, res.ErrorKind)

	res = run(t, reg, "mcp__test__cancelled_calls", nil)
	require.Contains(t, res.Content, "1 cancelled", "the server was told")
	failures, err := f.failures.List()
	require.NoError(t, err)
	require.Empty(t, failures, "a call the person stopped did not fail")
}

func TestACallWithoutAnswerTimesOut(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.setServers(map[string]any{"test": f.stdio(map[string]any{"timeout": 0.2})})
	reg := f.registry(allowAll)

	res := run(t, reg, "mcp__test__wait", nil)
	require.Equal(t, tools.ErrTimeout, res.ErrorKind, res.Content)
	require.Contains(t, res.Content, "did not answer in time")
	res = run(t, reg, "mcp__test__cancelled_calls", nil)
	require.Contains(t, res.Content, "1 cancelled", "the timed-out call was cancelled on the server")

	failures, err := f.failures.List()
	require.NoError(t, err)
	require.Len(t, failures, 1)
	require.Equal(t, FailureTimeout, failures[0].Kind)
	require.Equal(t, "wait", failures[0].Tool)
}

func TestACrashedServerRestartsOnItsNextUse(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.setServers(map[string]any{"test": f.stdio(nil)})
	reg := f.registry(allowAll)
	first := f.status("test").Pid

	res := run(t, reg, "mcp__test__crash", nil)
	require.Equal(t, tools.ErrFailed, res.ErrorKind)
	require.Contains(t, res.Content, "The MCP server test cannot be used")
	f.events.waitFor(t, func(e Event) bool { return e.State == StateFailed })
	st := f.status("test")
	require.Equal(t, StateFailed, st.State)
	require.Contains(t, st.Stderr, "crashing on purpose")
	require.Empty(t, procgroup.Members(first), "nothing of it is left")
	failures, err := f.failures.List()
	require.NoError(t, err)
	require.Equal(t, 1, failures[0].Attempts, "a tool that may change things is not tried twice")

	res = run(t, reg, "mcp__test__echo", map[string]any{"message": "back"})
	require.False(t, res.Failed(), res.Content)
	require.Contains(t, res.Content, "echo: back")
	require.NotEqual(t, first, f.status("test").Pid)
}

func TestAReadOnlyCallIsTriedAgainAfterTheServerDropped(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.setServers(map[string]any{"test": f.stdio(nil)})
	reg := f.registry(allowAll)

	res := run(t, reg, "mcp__test__crash_once", nil)
	require.False(t, res.Failed(), res.Content)
	require.Contains(t, res.Content, "value after the restart")
	failures, err := f.failures.List()
	require.NoError(t, err)
	require.Empty(t, failures)
}

func TestClosingStopsEveryServerProcess(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.setServers(map[string]any{"test": f.stdio(nil)})
	f.registry(allowAll)
	pid := f.status("test").Pid
	require.NotEmpty(t, procgroup.Members(pid))
	f.m.Close()
	require.Empty(t, procgroup.Members(pid))
	ext := f.m.RunTools(context.Background(), allowAll, nil)
	require.Empty(t, ext.Tools, "a closed manager starts nothing")
}

func TestANewToolListedByTheServerIsOfferedAndResolved(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.setServers(map[string]any{"test": f.stdio(nil)})
	reg := f.registry(allowAll)
	_, ok := reg.Get("mcp__test__late")
	require.False(t, ok)

	res := run(t, reg, "mcp__test__add_tool", nil)
	require.False(t, res.Failed(), res.Content)
	f.events.waitFor(t, func(e Event) bool { return e.ToolsChanged && e.Tools == 13 })

	// The run that was going on calls it by name: resolved and registered on the fly.
	res = run(t, reg, "mcp__test__late", nil)
	require.False(t, res.Failed(), res.Content)
	require.Contains(t, res.Content, "late tool here")
	// The next run offers it.
	next := f.registry(allowAll)
	_, ok = next.Get("mcp__test__late")
	require.True(t, ok)
}

func TestStreamableHTTPServerWithHeaders(t *testing.T) {
	notes := t.TempDir()
	srv := mcptest.New(mcptest.Options{Dir: notes, Exit: func(int) { panic("no crash over HTTP") }})
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.Server }, nil)
	h := httptest.NewServer(mcptest.RequireHeader("X-Api-Key: s3cret", handler))
	t.Cleanup(h.Close)
	// Cleanups run last first: the fixture, made below, closes its sessions before these close.
	sse := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv.Server }, nil))
	t.Cleanup(sse.Close)
	t.Setenv("GANTRY_TEST_MCP_KEY", "s3cret")

	f := newFixture(t, nil)
	f.setServers(map[string]any{
		"remote": map[string]any{"url": h.URL, "headers": map[string]string{"X-Api-Key": "${GANTRY_TEST_MCP_KEY}"}},
		"nokey":  map[string]any{"type": "http", "url": h.URL},
	})
	reg := f.registry(allowAll)
	res := run(t, reg, "mcp__remote__echo", map[string]any{"message": "over http"})
	require.False(t, res.Failed(), res.Content)
	require.Contains(t, res.Content, "echo: over http")
	require.Equal(t, StateReady, f.status("remote").State)
	require.Equal(t, "http", f.status("remote").Transport)

	// The older HTTP+SSE transport, for servers that still speak it.
	f.setServers(map[string]any{
		"remote": map[string]any{"url": h.URL, "headers": map[string]string{"X-Api-Key": "${GANTRY_TEST_MCP_KEY}"}},
		"nokey":  map[string]any{"type": "http", "url": h.URL},
		"legacy": map[string]any{"type": "sse", "url": sse.URL},
	})
	reg = f.registry(allowAll)
	res = run(t, reg, "mcp__legacy__echo", map[string]any{"message": "over sse"})
	require.False(t, res.Failed(), res.Content)
	require.Contains(t, res.Content, "echo: over sse")
	require.Equal(t, "sse", f.status("legacy").Transport)

	nokey := f.status("nokey")
	require.Equal(t, StateFailed, nokey.State)
	require.Contains(t, nokey.Detail, "Unauthorized")
	res = run(t, reg, "mcp__nokey__echo", nil)
	require.Equal(t, tools.ErrFailed, res.ErrorKind)
	require.Contains(t, res.Content, "The MCP server nokey cannot be used")
}

func TestAnUntrustedProjectsServerFileIsIgnored(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	marker := filepath.Join(t.TempDir(), "ran")
	project := map[string]any{"mcpServers": map[string]any{
		"evil":  map[string]any{"command": "sh", "args": []string{"-c", "touch " + marker}},
		"notes": f.stdio(nil),
	}}
	data, err := json.Marshal(project)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(f.root, ".gantry"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(f.root, ProjectFile), data, 0o644))

	ext := f.m.RunTools(context.Background(), allowAll, nil)
	require.Empty(t, ext.Tools)
	require.NoFileExists(t, marker, "nothing the folder names ran")
	require.Equal(t, StateUntrusted, f.status("notes").State)
	reg, err := tools.NewRegistry().Extend(ext)
	require.NoError(t, err)
	res := run(t, reg, "mcp__notes__echo", nil)
	require.Equal(t, tools.ErrFailed, res.ErrorKind)
	require.Contains(t, res.Content, "comes with this project, which the user has not trusted")

	f.mu.Lock()
	f.trusted = true
	f.mu.Unlock()
	reg = f.registry(allowAll)
	res = run(t, reg, "mcp__notes__echo", map[string]any{"message": "trusted now"})
	require.False(t, res.Failed(), res.Content)
	require.Equal(t, SourceProject, f.status("notes").Source)
}
