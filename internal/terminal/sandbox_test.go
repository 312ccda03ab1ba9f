package terminal

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// newSandboxSession is newTestSession with the sandbox on; the test is skipped, saying why, when
// this machine cannot sandbox.
func newSandboxSession(t *testing.T, sb Sandbox) (*Session, string) {
	t.Helper()
	if support := SandboxAvailable(); !support.Available {
		t.Skipf("sandbox tests skipped: %s", support.Reason)
	}
	// The project cache goes under the user cache dir; keep it out of the real one.
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	s, root := newTestSession(t)
	sb.Enabled = true
	s.SetSandbox(sb)
	return s, root
}

func TestSandboxWorkspaceIsWritableTheRestReadOnly(t *testing.T) {
	s, root := newSandboxSession(t, Sandbox{})
	res := run(t, s, "echo hi > made.txt && mkdir -p sub/deeper && echo deep > sub/deeper/x", "")
	require.Equal(t, 0, res.ExitCode, res.ForModel)
	require.True(t, res.Sandboxed)
	got, err := os.ReadFile(filepath.Join(root, "made.txt"))
	require.NoError(t, err)
	require.Equal(t, "hi\n", string(got))
	require.FileExists(t, filepath.Join(root, "sub", "deeper", "x"))
	require.NotContains(t, res.ForModel, "sandbox", "no note when the sandbox was not in the way")

	home, err := os.UserHomeDir()
	require.NoError(t, err)
	outside := filepath.Join(home, fmt.Sprintf("gantry-sandbox-test-%d", time.Now().UnixNano()))
	res = run(t, s, "touch "+shellQuote(outside), "")
	require.Equal(t, 1, res.ExitCode, res.ForModel)
	require.Contains(t, res.ForModel, "Read-only file system")
	require.NoFileExists(t, outside)
	require.Contains(t, res.ForModel, "[this command ran in Gantry's sandbox (read-only outside the project, no network)")

	// The workspace's parent is outside too. (Here it lies in the sandbox's private /tmp, so
	// the write may succeed in there; it must not reach the host.)
	run(t, s, "touch ../sibling", "")
	require.NoFileExists(t, filepath.Join(filepath.Dir(root), "sibling"))
}

func TestSandboxTmpIsPrivate(t *testing.T) {
	s, _ := newSandboxSession(t, Sandbox{})
	name := fmt.Sprintf("gantry-private-%d", time.Now().UnixNano())
	res := run(t, s, "echo x > /tmp/"+name+" && cat /tmp/"+name, "")
	require.Equal(t, 0, res.ExitCode, res.ForModel)
	require.NoFileExists(t, filepath.Join("/tmp", name), "the sandbox's /tmp is its own")

	// A file in the host's /tmp is not visible inside.
	host, err := os.CreateTemp("/tmp", "gantry-host-*")
	require.NoError(t, err)
	host.Close()
	t.Cleanup(func() { os.Remove(host.Name()) })
	res = run(t, s, "test -e "+shellQuote(host.Name()), "")
	require.Equal(t, 1, res.ExitCode, res.ForModel)
}

// listen accepts connections on 127.0.0.1 until the test ends and returns the port.
func listen(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port
}

// connect uses bash's /dev/tcp, so the test needs no client tool.
func connect(port int) string {
	return fmt.Sprintf("bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d' && echo connected", port)
}

func TestSandboxNetworkIsOffUnlessAllowed(t *testing.T) {
	port := listen(t)

	s, _ := newSandboxSession(t, Sandbox{})
	res := run(t, s, connect(port), "")
	require.NotEqual(t, 0, res.ExitCode, res.ForModel)
	require.NotContains(t, res.Output, "connected")
	require.Contains(t, res.ForModel, "Connection refused", "the sandbox has a loopback of its own")
	require.Contains(t, res.ForModel, "no network): writes outside the project and network access fail")

	s.SetSandbox(Sandbox{Enabled: true, Network: true})
	res = run(t, s, connect(port), "")
	require.Equal(t, 0, res.ExitCode, res.ForModel)
	require.Contains(t, res.Output, "connected")

	// With the network allowed, only the read-only filesystem is worth a note.
	res = run(t, s, "touch /usr/gantry-nope", "")
	require.Contains(t, res.ForModel, "[this command ran in Gantry's sandbox (read-only outside the project, network allowed)")
}

func TestSandboxKeepsTheWorkingDirectory(t *testing.T) {
	s, root := newSandboxSession(t, Sandbox{})
	res := run(t, s, "cd sub", "")
	require.Equal(t, 0, res.ExitCode, res.ForModel)
	require.Equal(t, filepath.Join(root, "sub"), s.Cwd())
	require.Contains(t, res.ForModel, "[the working directory is now "+filepath.Join(root, "sub")+"]")
	res = run(t, s, "pwd; touch here", "")
	require.Equal(t, filepath.Join(root, "sub"), res.Dir)
	require.FileExists(t, filepath.Join(root, "sub", "here"))

	// Ending outside the workspace sends the session back to the root, as without the sandbox.
	run(t, s, "cd /usr", "")
	require.Equal(t, root, s.Cwd())
}

func TestSandboxPassesExitCodesAndEnvironment(t *testing.T) {
	s, _ := newSandboxSession(t, Sandbox{})
	for command, want := range map[string]int{"true": 0, "false": 1, "exit 7": 7} {
		require.Equal(t, want, run(t, s, command, "").ExitCode, command)
	}
	t.Setenv("GANTRY_SANDBOX_TEST", "passed through")
	res := run(t, s, `echo "$GANTRY_SANDBOX_TEST|$GANTRY_SANDBOX|$GOCACHE"`, "")
	require.Equal(t, 0, res.ExitCode, res.ForModel)
	require.Contains(t, res.Output, "passed through|1|")
	// The caches point at the project's own writable folder.
	gocache := strings.TrimSpace(strings.SplitN(res.Output, "|", 3)[2])
	require.NotEmpty(t, gocache)
	res = run(t, s, "mkdir -p \"$GOCACHE\" \"$npm_config_cache\" && touch \"$GOCACHE/ok\" \"$XDG_CACHE_HOME/ok\"", "")
	require.Equal(t, 0, res.ExitCode, res.ForModel)
	require.FileExists(t, filepath.Join(gocache, "ok"))
}

// markedAlive reports whether a process whose command line contains marker is running.
func markedAlive(t *testing.T, marker string) bool {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	for _, e := range entries {
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(cmdline), marker) {
			continue
		}
		if stat, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil {
			if state, _, ok := parseStat(stat); ok && state != 'Z' {
				return true
			}
		}
	}
	return false
}

// orphanMaker starts background sleeps, one of them in a session of its own (out of the process
// group's reach, not of the sandbox's), then waits. The odd durations mark them.
func orphanMaker(tag int) string {
	return fmt.Sprintf("sleep 9%d.1 & setsid sleep 9%d.2 & echo started; sleep 9%d.3", tag, tag, tag)
}

func requireNoneAlive(t *testing.T, tag int) {
	t.Helper()
	for i := 1; i <= 3; i++ {
		marker := fmt.Sprintf("9%d.%d", tag, i)
		require.Eventually(t, func() bool { return !markedAlive(t, marker) }, 2*time.Second, 20*time.Millisecond, "sleep %s survived", marker)
	}
}

func TestSandboxTimeoutKillsEverything(t *testing.T) {
	s, _ := newSandboxSession(t, Sandbox{})
	tag := int(time.Now().UnixNano()%9000) + 1000
	started := time.Now()
	res, err := s.Run(context.Background(), orphanMaker(tag), "", Options{Timeout: 500 * time.Millisecond})
	require.NoError(t, err)
	require.Less(t, time.Since(started), 3*time.Second)
	require.True(t, res.TimedOut)
	require.Contains(t, res.Output, "started")
	requireNoneAlive(t, tag)
}

func TestSandboxStopKillsEverything(t *testing.T) {
	s, _ := newSandboxSession(t, Sandbox{})
	tag := int(time.Now().UnixNano()%9000) + 1000
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{}, 1)
	go func() {
		<-started
		cancel()
	}()
	res, err := s.Run(ctx, orphanMaker(tag), "", Options{Output: func(chunk []byte) {
		if strings.Contains(string(chunk), "started") {
			select {
			case started <- struct{}{}:
			default:
			}
		}
	}})
	require.NoError(t, err)
	require.True(t, res.Cancelled)
	requireNoneAlive(t, tag)
}

func TestSandboxStopsBackgroundProcessesAndSaysSo(t *testing.T) {
	s, _ := newSandboxSession(t, Sandbox{})
	tag := int(time.Now().UnixNano()%9000) + 1000
	res := run(t, s, fmt.Sprintf("sleep 9%d.1 & echo left", tag), "")
	require.Equal(t, 0, res.ExitCode, res.ForModel)
	require.Contains(t, res.ForModel, "[background processes still running when the command ended were stopped]")
	requireNoneAlive(t, tag)

	res = run(t, s, "sleep 0.01 & wait; echo done", "")
	require.NotContains(t, res.ForModel, "background processes")
}

func TestSandboxBwrapArgs(t *testing.T) {
	t.Parallel()
	args := strings.Join(bwrapArgs(Sandbox{Enabled: true}, "/w/proj", "/c", "/tmp/cwd", "/w/proj/sub"), " ")
	require.Contains(t, args, "--ro-bind / / --dev /dev --unshare-pid --proc /proc --tmpfs /tmp")
	require.Contains(t, args, "--unshare-net")
	// The binds come after the private /tmp, or a workspace under /tmp would be hidden by it.
	require.Less(t, strings.Index(args, "--tmpfs /tmp"), strings.Index(args, "--bind /w/proj /w/proj"))
	require.Contains(t, args, "--bind /c /c --bind /tmp/cwd /tmp/cwd --die-with-parent --chdir /w/proj/sub --")

	args = strings.Join(bwrapArgs(Sandbox{Enabled: true, Network: true}, "/w", "", "", "/w"), " ")
	require.NotContains(t, args, "--unshare-net")
	require.NotContains(t, args, "--tmpfs /run")
}

func TestSandboxUnavailableRunsNothing(t *testing.T) {
	if SandboxAvailable().Available {
		t.Skip("bwrap works here; the refusal is for machines without it")
	}
	s, root := newTestSession(t)
	s.SetSandbox(Sandbox{Enabled: true})
	res := run(t, s, "touch ran", "")
	require.Equal(t, -1, res.ExitCode)
	require.Contains(t, res.ForModel, "[not run: commands must run in Gantry's sandbox")
	require.NoFileExists(t, filepath.Join(root, "ran"))
}
