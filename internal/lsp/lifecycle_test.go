package lsp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"gantry/internal/procgroup"

	"github.com/stretchr/testify/require"
)

// fakeServer builds testdata/fakeserver, a server that shakes hands and then answers nothing.
func fakeServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fakeserver")
	out, err := exec.Command("go", "build", "-o", bin, "./testdata/fakeserver").CombinedOutput()
	require.NoError(t, err, string(out))
	return bin
}

// groupAlive reports whether any process of pid's process group still exists.
func groupAlive(pid int) bool { return len(procgroup.Members(pid)) > 0 }

func TestACrashedServerRestartsOnceThenSaysWhy(t *testing.T) {
	t.Parallel()
	requireServer(t, "gopls")
	root := fixture(t, "goproj")
	m := newTestManager(t, root)
	ctx := context.Background()
	main := filepath.Join(root, "main.go")

	first, err := m.Client(ctx, main, trusted)
	require.NoError(t, err)
	require.NoError(t, syscall.Kill(first.Pid(), syscall.SIGKILL))
	<-first.exited

	second, err := m.Client(ctx, main, trusted)
	require.NoError(t, err, "restarted once")
	require.NotEqual(t, first.Pid(), second.Pid())
	_, err = second.Definition(ctx, main, Pos{Line: 10, Char: 14})
	require.NoError(t, err)

	require.NoError(t, syscall.Kill(second.Pid(), syscall.SIGKILL))
	<-second.exited
	_, err = m.Client(ctx, main, trusted)
	var ns *NoServer
	require.ErrorAs(t, err, &ns)
	require.Contains(t, ns.Reason, "gopls stopped again after a restart")
	require.Equal(t, "failed", statusOf(m, "go").State)
}

func statusOf(m *Manager, id string) Status {
	for _, s := range m.Statuses("") {
		if s.ID == id {
			return s
		}
	}
	return Status{}
}

func TestAHungRequestTimesOutOrEndsWithStop(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	file := filepath.Join(root, "main.go")
	require.NoError(t, os.WriteFile(file, []byte("package main\n"), 0o644))
	bin := fakeServer(t)

	// The server never answers: any bound is reached, however busy the machine.
	m := NewManager(Options{Root: root, Overrides: map[string]string{"go": bin}, RequestTimeout: 100 * time.Millisecond})
	t.Cleanup(m.Close)
	c, err := m.Client(context.Background(), file, trusted)
	require.NoError(t, err)
	_, err = c.Definition(context.Background(), file, Pos{Line: 1, Char: 1})
	require.ErrorIs(t, err, ErrTimeout)
	require.True(t, c.Alive(), "a slow answer is not a crash")

	// Stop ends a request the server would never answer, long before any timeout.
	slow := NewManager(Options{Root: root, Overrides: map[string]string{"go": bin}, RequestTimeout: time.Hour})
	t.Cleanup(slow.Close)
	c, err = slow.Client(context.Background(), file, trusted)
	require.NoError(t, err)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.Definition(ctx, file, Pos{Line: 1, Char: 1})
		done <- err
	}()
	stop()
	require.ErrorIs(t, <-done, context.Canceled)
}

func TestIndexingIsWaitedForUpToABound(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	file := filepath.Join(root, "main.go")
	require.NoError(t, os.WriteFile(file, []byte("package main\n"), 0o644))
	wrapper := filepath.Join(t.TempDir(), "indexing")
	require.NoError(t, os.WriteFile(wrapper, []byte("#!/bin/sh\nexec "+fakeServer(t)+" -indexing\n"), 0o755))
	m := NewManager(Options{Root: root, Overrides: map[string]string{"go": wrapper}})
	t.Cleanup(m.Close)
	c, err := m.Client(context.Background(), file, trusted)
	require.NoError(t, err)

	// Its indexing never ends: the wait gives up at the bound and says what was going on.
	for c.Indexing() == "" {
		c.mu.Lock()
		changed := c.changed
		c.mu.Unlock()
		<-changed
	}
	still, err := c.WaitIndexed(context.Background(), 50*time.Millisecond)
	require.NoError(t, err)
	require.Equal(t, "Indexing forever", still)

	ctx, stop := context.WithCancel(context.Background())
	stop()
	_, err = c.WaitIndexed(ctx, time.Hour)
	require.ErrorIs(t, err, context.Canceled, "Stop ends the wait")
}

func TestServersLeaveNoProcessBehind(t *testing.T) {
	t.Parallel()
	requireServer(t, "typescript-language-server")
	root := fixture(t, "tsproj")
	m := NewManager(Options{Root: root, ToolsDirs: []string{ToolsDir()}})
	ctx := context.Background()
	shapes := filepath.Join(root, "src", "shapes.ts")
	c, err := m.Client(ctx, shapes, trusted)
	require.NoError(t, err)
	_, err = c.DocumentSymbols(ctx, shapes) // tsserver is running now
	require.NoError(t, err)
	require.Positive(t, statusOf(m, "typescript").RSS)
	m.Close()
	require.False(t, groupAlive(c.Pid()), "the server and the tsserver processes it started are gone")
	_, err = m.Client(ctx, shapes, trusted)
	require.Error(t, err, "a closed manager starts nothing")
}

func TestAnIdleServerStopsAndStartsAgainOnDemand(t *testing.T) {
	t.Parallel()
	requireServer(t, "gopls")
	root := fixture(t, "goproj")
	events := make(chan string, 8)
	m := NewManager(Options{Root: root, ToolsDirs: []string{ToolsDir()}, IdleTimeout: 20 * time.Millisecond,
		Changed: func(id, state string) { events <- id + " " + state }})
	t.Cleanup(m.Close)
	main := filepath.Join(root, "main.go")
	c, err := m.Client(context.Background(), main, trusted)
	require.NoError(t, err)
	require.Equal(t, "go running", <-events)
	require.Equal(t, "go idle", <-events)
	require.False(t, groupAlive(c.Pid()))
	require.Equal(t, "found", statusOf(m, "go").State)

	again, err := m.Client(context.Background(), main, trusted)
	require.NoError(t, err)
	require.NotEqual(t, c.Pid(), again.Pid())
}

func TestUntrustedFoldersRunServersSafely(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	bin := fakeServer(t)
	for _, name := range []string{"main.go", "main.rs"} {
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte("x\n"), 0o644))
	}
	m := NewManager(Options{Root: root, Overrides: map[string]string{"go": bin, "rust": bin}})
	t.Cleanup(m.Close)
	ctx := context.Background()

	c, err := m.Client(ctx, filepath.Join(root, "main.go"), Caller{})
	require.NoError(t, err)
	require.Subset(t, c.launch.Env, []string{"GOTOOLCHAIN=local", "GOPROXY=off", "CGO_ENABLED=0"})

	// A server that runs the project's build scripts asks first, on the folder-code card.
	var asked []string
	deny := Caller{Approve: func(_ context.Context, command, why string) (bool, string, error) {
		asked = append(asked, command+": "+why)
		return false, "The user did not allow it.", nil
	}}
	_, err = m.Client(ctx, filepath.Join(root, "main.rs"), deny)
	var ns *NoServer
	require.ErrorAs(t, err, &ns)
	require.Contains(t, ns.Reason, "rust-analyzer was not started: The user did not allow it")
	require.Equal(t, []string{bin + ": runs the project's build scripts and procedural macros (rust-analyzer)"}, asked)

	allow := Caller{Approve: func(context.Context, string, string) (bool, string, error) { return true, "", nil }}
	_, err = m.Client(ctx, filepath.Join(root, "main.rs"), allow)
	require.NoError(t, err)

	// Trusted later: the Go server starts again the trusted way.
	trustedNow, err := m.Client(ctx, filepath.Join(root, "main.go"), trusted)
	require.NoError(t, err)
	require.NotEqual(t, c.Pid(), trustedNow.Pid())
	require.NotContains(t, trustedNow.launch.Env, "CGO_ENABLED=0")
}
