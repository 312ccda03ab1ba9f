package terminal

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// newTestSession returns a session on a fresh workspace that has a "sub" folder.
func newTestSession(t *testing.T) (*Session, string) {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(root, "sub"), 0o755))
	return NewSession(root), root
}

func run(t *testing.T, s *Session, command, cwd string) Result {
	t.Helper()
	res, err := s.Run(context.Background(), command, cwd, Options{})
	require.NoError(t, err)
	return res
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	s, _ := newTestSession(t)
	for command, want := range map[string]int{"true": 0, "false": 1, "exit 3": 3, "": 0} {
		res := run(t, s, command, "")
		require.Equal(t, want, res.ExitCode, command)
		require.False(t, res.TimedOut || res.Cancelled, command)
		require.Regexp(t, `\n\[exit code `+strconv.Itoa(want)+`, [0-9.]+(µs|ms|s)\]$`, res.ForModel, command)
	}
}

func TestUnknownCommandIsAResultNotAnError(t *testing.T) {
	t.Parallel()
	s, _ := newTestSession(t)
	res := run(t, s, "no-such-command-gantry", "")
	require.Equal(t, 127, res.ExitCode)
	require.Contains(t, res.ForModel, "no-such-command-gantry: command not found")
	// The directory-recording trap shares the first line, so bash's line numbers stay right.
	require.Contains(t, res.ForModel, "line 1:")
}

func TestStdoutAndStderrKeepTheirOrder(t *testing.T) {
	t.Parallel()
	s, _ := newTestSession(t)
	res := run(t, s, "echo out1; echo err1 >&2; echo out2; echo err2 >&2", "")
	require.Equal(t, "out1\nerr1\nout2\nerr2\n", res.Output)
	require.True(t, strings.HasPrefix(res.ForModel, "out1\nerr1\nout2\nerr2\n[exit code 0, "), res.ForModel)
	require.Equal(t, 4, res.TotalLines)
}

func TestCdCarriesOverToTheNextCommand(t *testing.T) {
	t.Parallel()
	s, root := newTestSession(t)
	sub := filepath.Join(root, "sub")

	res := run(t, s, "cd sub && pwd", "")
	require.Equal(t, root, res.Dir)
	require.Equal(t, sub+"\n", res.Output)
	require.Contains(t, res.ForModel, "[the working directory is now "+sub+"]")
	require.Equal(t, sub, s.Cwd())

	res = run(t, s, "pwd", "")
	require.Equal(t, sub, res.Dir)
	require.Equal(t, sub+"\n", res.Output)
	require.NotContains(t, res.ForModel, "working directory")
}

func TestLeavingTheWorkspaceResetsToRoot(t *testing.T) {
	t.Parallel()
	s, root := newTestSession(t)
	run(t, s, "cd sub", "")

	res := run(t, s, "cd /", "")
	require.Contains(t, res.ForModel, "[the command ended in /, outside the workspace; the working directory is back at the workspace root "+root+"]")
	require.Equal(t, root, s.Cwd())
}

func TestCwdArgument(t *testing.T) {
	t.Parallel()
	s, root := newTestSession(t)
	sub := filepath.Join(root, "sub")
	outside := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "escape")))
	require.NoError(t, os.WriteFile(filepath.Join(root, "file"), nil, 0o644))

	res := run(t, s, "pwd", "sub")
	require.Equal(t, sub, res.Dir)
	require.Equal(t, sub+"\n", res.Output)
	require.Equal(t, sub, s.Cwd(), "where a command ends is where the next one starts")

	res = run(t, s, "pwd", root)
	require.Equal(t, root, res.Dir)

	for _, cwd := range []string{"..", "sub/../..", "/", outside, "escape"} {
		_, err := s.Run(context.Background(), "touch ran", cwd, Options{})
		require.ErrorIs(t, err, ErrOutsideRoot, cwd)
	}
	for _, cwd := range []string{"missing", "file"} {
		_, err := s.Run(context.Background(), "touch ran", cwd, Options{})
		require.Error(t, err, cwd)
		require.NotErrorIs(t, err, ErrOutsideRoot, cwd)
	}
	require.NoFileExists(t, filepath.Join(root, "ran"))
	require.NoFileExists(t, filepath.Join(outside, "ran"))
}

func TestSymlinkedRoot(t *testing.T) {
	t.Parallel()
	real := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(real, "sub"), 0o755))
	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(real, link))
	s := NewSession(link)

	res := run(t, s, "cd sub", "")
	require.Equal(t, filepath.Join(link, "sub"), s.Cwd(), "pwd -P is mapped back onto the root as chosen")
	require.NotContains(t, res.ForModel, "outside")

	res = run(t, s, "pwd", filepath.Join(real, "sub"))
	require.Equal(t, filepath.Join(link, "sub"), res.Dir)
}

func TestDeletedCwdFallsBackToRoot(t *testing.T) {
	t.Parallel()
	s, root := newTestSession(t)
	run(t, s, "cd sub", "")
	require.NoError(t, os.Remove(filepath.Join(root, "sub")))

	res := run(t, s, "pwd", "")
	require.Equal(t, root, res.Dir)
	require.Contains(t, res.ForModel, "no longer exists")
	require.Equal(t, root, s.Cwd())
}

func TestStdinIsClosed(t *testing.T) {
	t.Parallel()
	s, _ := newTestSession(t)
	// read gets end of input at once; waiting for input would end in the 30 s timeout instead.
	res := run(t, s, `read x; echo "got:$x"`, "")
	require.False(t, res.TimedOut)
	require.Equal(t, "got:\n", res.Output)
}

func TestEnvironment(t *testing.T) {
	t.Parallel()
	s, _ := newTestSession(t)
	res := run(t, s, `echo "$GANTRY $PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT $GIT_EDITOR"; [ -n "$TERM" ] && [ -n "$HOME" ] && echo inherited`, "")
	require.Equal(t, "1 cat cat 0 true\ninherited\n", res.Output)
}

func TestOutputCallbackGetsEverythingInOrder(t *testing.T) {
	t.Parallel()
	s, _ := newTestSession(t)
	var live []byte
	calls := 0
	res, err := s.Run(context.Background(), `for i in $(seq 1 20000); do echo "line $i"; echo "err $i" >&2; done`, "", Options{
		Output: func(chunk []byte) {
			calls++
			live = append(live, chunk...)
		},
	})
	require.NoError(t, err)
	var want strings.Builder
	for i := 1; i <= 20000; i++ {
		want.WriteString("line " + strconv.Itoa(i) + "\nerr " + strconv.Itoa(i) + "\n")
	}
	require.Equal(t, want.String(), string(live))
	require.Equal(t, want.String(), res.Output)
	require.Greater(t, calls, 1, "output arrives as it is written, not at the end")
}

func TestTimeoutCapLimitsAskedTimeout(t *testing.T) {
	t.Parallel()
	s, _ := newTestSession(t)
	s.SetTimeoutCap(200 * time.Millisecond)
	res, err := s.Run(context.Background(), "sleep 30", "", Options{Timeout: time.Hour})
	require.NoError(t, err)
	require.True(t, res.TimedOut)
	require.Contains(t, res.ForModel, "killed after timeout of 200ms (the whole process group)]")

	s.SetTimeoutCap(0)
	require.Equal(t, MaxTimeout, s.timeout(time.Hour))
	require.Equal(t, DefaultTimeout, s.timeout(0))
	require.Equal(t, "10m", span(MaxTimeout))
	require.Equal(t, "30s", span(DefaultTimeout))
}
