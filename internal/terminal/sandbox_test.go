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
	skipWithoutSandbox(t)
	// The project cache goes under the user cache dir; keep it out of the real one.
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	s, root := newTestSession(t)
	sb.Enabled = true
	s.SetSandbox(sb)
	return s, root
}

func skipWithoutSandbox(t *testing.T) {
	t.Helper()
	if support := SandboxAvailable(); !support.Available {
		t.Skipf("sandbox tests skipped: %s", support.Reason)
	}
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
	require.Contains(t, res.ForModel, "no network): writes outside the project and into its .git folder (git commit, checkout, config) and network access fail")

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
		// Killed processes may take a moment to exit on a busy machine; these would sleep for a day.
		require.Eventually(t, func() bool { return !markedAlive(t, marker) }, 30*time.Second, 20*time.Millisecond, "sleep %s survived", marker)
	}
}

func TestSandboxTimeoutKillsEverything(t *testing.T) {
	s, _ := newSandboxSession(t, Sandbox{})
	tag := int(time.Now().UnixNano()%9000) + 1000
	output := timeUpOn(s, "started")
	res, err := s.Run(context.Background(), orphanMaker(tag), "", Options{Timeout: 500 * time.Millisecond, Output: output})
	require.NoError(t, err)
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
	require.Contains(t, args, "--ro-bind / / --dev /dev --unshare-pid --proc /proc --tmpfs /tmp --tmpfs /run")
	require.Contains(t, args, "--unshare-net")
	// The binds come after the private /tmp and /run, or a workspace in them would be hidden.
	require.Less(t, strings.Index(args, "--tmpfs /run"), strings.Index(args, "--bind /w/proj /w/proj"))
	require.Contains(t, args, "--bind /c /c --bind /tmp/cwd /tmp/cwd ")
	require.True(t, strings.HasSuffix(args, " --die-with-parent --chdir /w/proj/sub --"), args)

	// With the network, /run stays private: only the resolver's file may come back.
	args = strings.Join(bwrapArgs(Sandbox{Enabled: true, Network: true}, "/w", "", "", "/w"), " ")
	require.NotContains(t, args, "--unshare-net")
	require.Contains(t, args, "--tmpfs /run")
	require.NotContains(t, args, "--bind /run ")
}

// playNoSandbox makes SandboxAvailable say no until the test ends. Tests using it must not be
// parallel.
func playNoSandbox(t *testing.T) {
	old := SandboxAvailable
	SandboxAvailable = func() SandboxSupport { return SandboxSupport{Reason: "bwrap is not installed (test)."} }
	t.Cleanup(func() { SandboxAvailable = old })
}

func TestSandboxUnavailableRunsNothing(t *testing.T) {
	playNoSandbox(t)
	s, root := newTestSession(t)
	s.SetSandbox(Sandbox{Enabled: true})
	res := run(t, s, "touch ran", "")
	require.Equal(t, -1, res.ExitCode)
	require.Contains(t, res.ForModel, "[not run: commands must run in Gantry's sandbox")
	require.Contains(t, res.ForModel, "bwrap is not installed (test).")
	require.NoFileExists(t, filepath.Join(root, "ran"))
}

func TestSandboxKeepsGitReadOnly(t *testing.T) {
	s, root := newSandboxSession(t, Sandbox{})
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".git", "hooks"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, ".git", "config"), []byte("[core]\n"), 0o644))

	// Hooks and core.fsmonitor run outside the sandbox later (Gantry's git switch, the person's
	// own git): nothing in .git may change from inside.
	for _, command := range []string{
		"echo evil > .git/hooks/post-checkout",
		"printf '[core]\\n\\tfsmonitor = evil\\n' >> .git/config",
		"rm -rf .git",
		"mv .git .git-old",
	} {
		res := run(t, s, command, "")
		require.NotEqual(t, 0, res.ExitCode, "%s: %s", command, res.ForModel)
	}
	require.NoFileExists(t, filepath.Join(root, ".git", "hooks", "post-checkout"))
	res := run(t, s, "touch .git/index.lock", "")
	require.Contains(t, res.ForModel, "Read-only file system")
	require.Contains(t, res.ForModel, "into its .git folder (git commit, checkout, config)", "the model is told why")
	config, err := os.ReadFile(filepath.Join(root, ".git", "config"))
	require.NoError(t, err)
	require.Equal(t, "[core]\n", string(config))
	// The rest of the workspace stays writable.
	res = run(t, s, "echo ok > main.go && mkdir -p .github && touch .github/x", "")
	require.Equal(t, 0, res.ExitCode, res.ForModel)
	require.FileExists(t, filepath.Join(root, ".github", "x"))
}

func TestSandboxKeepsAWorktreesGitFolderReadOnly(t *testing.T) {
	s, root := newSandboxSession(t, Sandbox{})
	// A worktree: .git is a file naming its git folder, whose commondir names the repository's.
	// Both lie in the workspace here, so the writable workspace would expose them.
	wt := filepath.Join(root, "repo", "worktrees", "wt")
	require.NoError(t, os.MkdirAll(wt, 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "repo", "hooks"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(wt, "commondir"), []byte("../..\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, ".git"), []byte("gitdir: repo/worktrees/wt\n"), 0o644))

	for _, command := range []string{
		"echo evil > repo/hooks/post-checkout",
		"echo evil > repo/worktrees/wt/config.worktree",
		"echo 'gitdir: elsewhere' > .git",
	} {
		res := run(t, s, command, "")
		require.NotEqual(t, 0, res.ExitCode, "%s: %s", command, res.ForModel)
	}
	require.NoFileExists(t, filepath.Join(root, "repo", "hooks", "post-checkout"))
	require.NoFileExists(t, filepath.Join(wt, "config.worktree"))
	dotGit, err := os.ReadFile(filepath.Join(root, ".git"))
	require.NoError(t, err)
	require.Equal(t, "gitdir: repo/worktrees/wt\n", string(dotGit))
}

func TestSandboxRunsInAWorkspaceReachedThroughASymlink(t *testing.T) {
	skipWithoutSandbox(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	real := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(real, "sub"), 0o755))
	// The link lies in /tmp, which the sandbox replaces: only the real folder is there.
	link := filepath.Join(t.TempDir(), "ws")
	require.NoError(t, os.Symlink(real, link))
	s := NewSession(link)
	s.SetSandbox(Sandbox{Enabled: true})

	res := run(t, s, "touch made && cd sub", "")
	require.Equal(t, 0, res.ExitCode, res.ForModel)
	require.FileExists(t, filepath.Join(real, "made"))
	require.Equal(t, filepath.Join(link, "sub"), s.Cwd())
	res = run(t, s, "touch here", "")
	require.Equal(t, 0, res.ExitCode, res.ForModel)
	require.FileExists(t, filepath.Join(real, "sub", "here"))
	res = run(t, s, "touch there", "sub")
	require.Equal(t, 0, res.ExitCode, res.ForModel)
	require.FileExists(t, filepath.Join(real, "sub", "there"))
}

// fakeHome makes a home folder outside /tmp (the sandbox hides /tmp anyway, which would make
// the tests pass for the wrong reason) and points HOME at it until the test ends.
func fakeHome(t *testing.T) string {
	t.Helper()
	real, err := os.UserHomeDir()
	if err != nil || strings.HasPrefix(real, "/tmp") {
		t.Skipf("needs a home folder outside /tmp (have %q, %v)", real, err)
	}
	home, err := os.MkdirTemp(real, ".gantry-test-home-")
	if err != nil {
		t.Skipf("cannot make a folder in the home folder: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	t.Setenv("HOME", home)
	return home
}

// serveUnix listens on a Unix socket at path until the test ends.
func serveUnix(t *testing.T, path string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	l, err := net.Listen("unix", path)
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
}

func TestSandboxHidesTheHostsSockets(t *testing.T) {
	s, _ := newSandboxSession(t, Sandbox{})
	home := fakeHome(t)
	socks := []string{
		filepath.Join(home, ".gnupg", "S.gpg-agent"),
		filepath.Join(home, ".docker", "run", "docker.sock"),
		filepath.Join(home, ".ssh", "cm", "git@example.com-22"),
		filepath.Join(home, ".ssh", "agent.sock"),
	}
	for _, p := range socks {
		serveUnix(t, p)
	}
	require.NoError(t, os.WriteFile(filepath.Join(home, ".ssh", "config"), []byte("Host example\n"), 0o600))
	probe := "cat ~/.ssh/config; for s in"
	for _, p := range socks {
		probe += " " + shellQuote(p)
	}
	probe += `; do test -S "$s" && echo "reachable $s"; done; ls -A /run`

	// The probe does see the sockets outside the sandbox.
	plain := NewSession(t.TempDir())
	res := run(t, plain, probe, "")
	require.Equal(t, len(socks), strings.Count(res.Output, "reachable "), res.Output)

	var hostRun []string
	for _, name := range []string{"dbus", "user", "docker.sock", "containerd"} {
		if _, err := os.Lstat(filepath.Join("/run", name)); err == nil {
			hostRun = append(hostRun, name)
		}
	}
	for _, network := range []bool{false, true} {
		s.SetSandbox(Sandbox{Enabled: true, Network: network})
		res := run(t, s, probe, "")
		require.Equal(t, 0, res.ExitCode, res.ForModel)
		require.NotContains(t, res.Output, "reachable", "network %v", network)
		require.Contains(t, res.Output, "Host example", "the rest of ~/.ssh stays readable")
		inRun := strings.Fields(res.Output[strings.Index(res.Output, "Host example")+len("Host example"):])
		for _, name := range hostRun {
			require.NotContains(t, inRun, name, "network %v: /run/%s", network, name)
		}
	}
}

func TestSandboxEnvironmentLeadsNowhereOutside(t *testing.T) {
	s, _ := newSandboxSession(t, Sandbox{})
	home := fakeHome(t)
	hidden := []string{"SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "GPG_AGENT_INFO", "DOCKER_HOST", "DISPLAY"}
	for _, key := range hidden {
		t.Setenv(key, "/somewhere/"+key)
	}
	// A temp folder outside /tmp is read-only in the sandbox; tools must get the private /tmp.
	tmp := filepath.Join(home, "tmp")
	require.NoError(t, os.Mkdir(tmp, 0o700))
	t.Setenv("TMPDIR", tmp)

	res := run(t, s, `env; echo "made $(mktemp)"`, "")
	require.Equal(t, 0, res.ExitCode, res.ForModel)
	for _, key := range hidden {
		require.NotContains(t, res.Output, key+"=", key)
	}
	require.Contains(t, res.Output, "\nTMPDIR=/tmp\n")
	require.Regexp(t, `made /tmp/tmp\.`, res.Output)
}

func TestSandboxCacheMustBePrivate(t *testing.T) {
	// No user cache folder: the cache goes to the (shared) temp folder.
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	const root = "/w/proj"

	first := sandboxCacheDir(root)
	require.Equal(t, tmp, filepath.Dir(first))
	require.True(t, privateDir(first))
	require.Equal(t, first, sandboxCacheDir(root), "the same folder next time")

	// Someone else could write to it: a private folder of its own instead.
	require.NoError(t, os.Chmod(first, 0o770))
	other := sandboxCacheDir(root)
	require.NotEqual(t, first, other)
	require.True(t, privateDir(other))
	require.NoError(t, os.Chmod(first, 0o700))

	// A symlink to elsewhere, even to a private folder, is not the folder.
	require.NoError(t, os.Remove(first))
	require.NoError(t, os.Symlink(other, first))
	require.NotEqual(t, other, sandboxCacheDir(root))
	require.NotEqual(t, first, sandboxCacheDir(root))
	require.NoError(t, os.Remove(first))

	if os.Getuid() != 0 {
		t.Log("not root: cannot give a folder to another user; the owner check is not tested")
		return
	}
	require.NoError(t, os.Mkdir(first, 0o700))
	require.NoError(t, os.Chown(first, 65534, 65534))
	require.NotEqual(t, first, sandboxCacheDir(root), "a folder of another user")
}
