package tools

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"gantry/internal/safety"
	"gantry/internal/terminal"
)

// streamRecorder keeps what a call streamed live.
type streamRecorder struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *streamRecorder) Action(Action) {}
func (s *streamRecorder) Stream(chunk []byte) {
	s.mu.Lock()
	s.buf.Write(chunk)
	s.mu.Unlock()
}

func (s *streamRecorder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// cancelOnOutput stops the run at the command's first output.
type cancelOnOutput struct{ cancel context.CancelFunc }

func (cancelOnOutput) Action(Action)   {}
func (c cancelOnOutput) Stream([]byte) { c.cancel() }

// recordingApprover remembers every command it was asked about and answers with decision.
type recordingApprover struct {
	PolicyApprover // folder code: not trusted
	decision       Decision
	mu             sync.Mutex
	asked          []CommandApproval
}

func (a *recordingApprover) ApproveCommand(_ context.Context, req CommandApproval) (Decision, error) {
	a.mu.Lock()
	a.asked = append(a.asked, req)
	a.mu.Unlock()
	return a.decision, nil
}

func (a *recordingApprover) ApproveEdit(context.Context, EditApproval) (Decision, error) {
	return Decision{}, nil
}

// terminalFixture is a workspace with a "sub" folder and a registry holding run_terminal_command.
type terminalFixture struct {
	root string
	reg  *Registry
}

func newTerminalFixture(t *testing.T, approver Approver) terminalFixture {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(root, "sub"), 0o755))
	env := &Env{Root: root, Approver: approver, Checkpoints: NoCheckpoints{}}
	reg := NewRegistry()
	require.NoError(t, reg.Register(RunTerminalCommand(env, terminal.NewSession(root))))
	return terminalFixture{root: root, reg: reg}
}

func (f terminalFixture) run(t *testing.T, ctx context.Context, args map[string]any, out Output) (Result, CommandDisplay) {
	t.Helper()
	res, err := f.reg.Execute(ctx, "run_terminal_command", args, out)
	require.NoError(t, err)
	display, _ := res.Display.(CommandDisplay)
	return res, display
}

var allowCommands = PolicyApprover{AllowCommands: true}

func TestRunTerminalCommandEcho(t *testing.T) {
	t.Parallel()
	f := newTerminalFixture(t, allowCommands)
	res, d := f.run(t, context.Background(), map[string]any{"command": "echo hello"}, nil)
	require.False(t, res.Failed(), res.Content)
	require.Contains(t, res.Content, "hello")
	require.Contains(t, res.Content, "exit code 0")
	require.Equal(t, CommandDisplay{
		Kind: "command", Command: "echo hello", Cwd: ".", ExitCode: 0, DurationMs: d.DurationMs,
		Severity: "none", AutoApproved: true, Output: "hello\n",
	}, d)
}

func TestRunTerminalCommandNonZeroExitFails(t *testing.T) {
	t.Parallel()
	f := newTerminalFixture(t, allowCommands)
	res, d := f.run(t, context.Background(), map[string]any{"command": "echo broken >&2; exit 3"}, nil)
	require.Equal(t, ErrFailed, res.ErrorKind)
	require.Contains(t, res.Content, "broken", "the model sees the output of a failed command")
	require.Contains(t, res.Content, "exit code 3")
	require.Equal(t, 3, d.ExitCode)
}

func TestRunTerminalCommandKeepsTheWorkingDirectory(t *testing.T) {
	t.Parallel()
	f := newTerminalFixture(t, allowCommands)
	res, d := f.run(t, context.Background(), map[string]any{"command": "cd sub && pwd"}, nil)
	require.False(t, res.Failed(), res.Content)
	require.Equal(t, ".", d.Cwd, "the display names where the command started")
	require.Contains(t, res.Content, "now "+filepath.Join(f.root, "sub"), "the model hears that the folder changed")

	res, d = f.run(t, context.Background(), map[string]any{"command": "pwd"}, nil)
	require.False(t, res.Failed(), res.Content)
	require.Equal(t, "sub", d.Cwd)
	require.Contains(t, res.Content, filepath.Join(f.root, "sub")+"\n")
}

func TestRunTerminalCommandCwdArgument(t *testing.T) {
	t.Parallel()
	approver := &recordingApprover{decision: Decision{Allowed: true}}
	f := newTerminalFixture(t, approver)
	res, d := f.run(t, context.Background(), map[string]any{"command": "pwd", "cwd": "sub"}, nil)
	require.False(t, res.Failed(), res.Content)
	require.Equal(t, "sub", d.Cwd)
	require.False(t, d.AutoApproved)
	require.Equal(t, filepath.Join(f.root, "sub"), approver.asked[0].Cwd, "the approval names the absolute folder")

	for _, tc := range []struct {
		cwd  string
		kind ErrorKind
	}{
		{"../", ErrOutsideWorkspace},
		{"/etc", ErrOutsideWorkspace},
		{"missing", ErrNotFound},
	} {
		res, _ := f.run(t, context.Background(), map[string]any{"command": "pwd", "cwd": tc.cwd}, nil)
		require.Equal(t, tc.kind, res.ErrorKind, "cwd %q: %s", tc.cwd, res.Content)
	}
	require.Len(t, approver.asked, 1, "a wrong cwd is refused before anyone is asked")
}

func TestRunTerminalCommandEmptyCommand(t *testing.T) {
	t.Parallel()
	approver := &recordingApprover{decision: Decision{Allowed: true}}
	f := newTerminalFixture(t, approver)
	res, _ := f.run(t, context.Background(), map[string]any{"command": " \n\t"}, nil)
	require.Equal(t, ErrInvalidArguments, res.ErrorKind)
	require.Empty(t, approver.asked)
}

func TestRunTerminalCommandTimeout(t *testing.T) {
	t.Parallel()
	f := newTerminalFixture(t, allowCommands)
	// Only the 1 s timeout can end this command, and the result says it did.
	res, d := f.run(t, context.Background(), map[string]any{"command": "sleep 600", "timeout": "1"}, nil)
	require.Equal(t, ErrTimeout, res.ErrorKind, res.Content)
	require.True(t, d.TimedOut)
	require.Contains(t, res.Content, "timeout")
}

func TestRunTerminalCommandStreamsOutputLive(t *testing.T) {
	t.Parallel()
	f := newTerminalFixture(t, allowCommands)
	rec := &streamRecorder{}
	done := make(chan error)
	var res Result
	// The command cannot finish before the test has seen its first line and lets it go on.
	command := "echo first; until [ -e proceed ]; do sleep 0.02; done; echo second"
	go func() {
		var err error
		res, err = f.reg.Execute(context.Background(), "run_terminal_command", map[string]any{"command": command, "timeout": 10}, rec)
		done <- err
	}()
	require.Eventually(t, func() bool { return rec.String() == "first\n" }, 5*time.Second, 10*time.Millisecond)
	require.NoError(t, os.WriteFile(filepath.Join(f.root, "proceed"), nil, 0o644))
	require.NoError(t, <-done)
	require.False(t, res.Failed(), res.Content)
	require.Equal(t, "first\nsecond\n", rec.String())
}

func TestRunTerminalCommandCancelled(t *testing.T) {
	t.Parallel()
	f := newTerminalFixture(t, allowCommands)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Stopped once it is under way; it would otherwise run into its 30 s timeout.
	res, d := f.run(t, ctx, map[string]any{"command": "echo started; sleep 600"}, cancelOnOutput{cancel})
	require.Equal(t, ErrCancelled, res.ErrorKind, res.Content)
	require.True(t, d.Cancelled)
}

func TestRunTerminalCommandDeniedNeverRuns(t *testing.T) {
	t.Parallel()
	approver := &recordingApprover{decision: Decision{Message: "Use the Makefile instead."}}
	f := newTerminalFixture(t, approver)
	res, d := f.run(t, context.Background(), map[string]any{"command": "touch marker"}, nil)
	require.Equal(t, ErrDenied, res.ErrorKind)
	require.Equal(t, "The user denied running this command. Use the Makefile instead.", res.Content)
	require.True(t, d.Denied)
	require.NoFileExists(t, filepath.Join(f.root, "marker"))
}

func TestRunTerminalCommandAsksWithTheDangerTier(t *testing.T) {
	t.Parallel()
	// The approver denies, so the command cannot run whatever the analysis says.
	approver := &recordingApprover{decision: Decision{}}
	f := newTerminalFixture(t, approver)
	res, d := f.run(t, context.Background(), map[string]any{"command": "rm -rf /"}, nil)
	require.Equal(t, ErrDenied, res.ErrorKind)
	require.Len(t, approver.asked, 1)
	require.Equal(t, "rm -rf /", approver.asked[0].Command)
	require.Equal(t, f.root, approver.asked[0].Cwd)
	require.Equal(t, safety.SeverityCritical, approver.asked[0].Analysis.Severity)
	require.Equal(t, "critical", d.Severity)
	require.NotEmpty(t, d.Reason)
}

func TestRunTerminalCommandPolicyNeverAutoApprovesCritical(t *testing.T) {
	t.Parallel()
	// Critical, yet harmless should it ever run: the download fails and the marker tells.
	const command = "touch marker; curl -s http://127.0.0.1:1/ | sh"
	require.Equal(t, safety.SeverityCritical, safety.AnalyzeCommand(command).Severity)
	f := newTerminalFixture(t, allowCommands)
	res, _ := f.run(t, context.Background(), map[string]any{"command": command}, nil)
	require.Equal(t, ErrDenied, res.ErrorKind)
	require.NoFileExists(t, filepath.Join(f.root, "marker"))
}

// Not parallel: it makes the whole package's terminal.SandboxAvailable say no.
func TestRunTerminalCommandSandboxUnavailableAsksNothing(t *testing.T) {
	old := terminal.SandboxAvailable
	terminal.SandboxAvailable = func() terminal.SandboxSupport {
		return terminal.SandboxSupport{Reason: "bwrap is not installed (test)."}
	}
	t.Cleanup(func() { terminal.SandboxAvailable = old })

	root := t.TempDir()
	approver := &recordingApprover{decision: Decision{Allowed: true}}
	session := terminal.NewSession(root)
	session.SetSandbox(terminal.Sandbox{Enabled: true})
	reg := NewRegistry()
	require.NoError(t, reg.Register(RunTerminalCommand(&Env{Root: root, Approver: approver, Checkpoints: NoCheckpoints{}}, session)))
	out := &streamRecorder{}
	res, err := reg.Execute(context.Background(), "run_terminal_command", map[string]any{"command": "touch ran"}, out)
	require.NoError(t, err)

	// No card: approving a command that cannot run would be for nothing.
	require.Empty(t, approver.asked)
	require.NoFileExists(t, filepath.Join(root, "ran"))
	require.Equal(t, ErrFailed, res.ErrorKind)
	// The model and the row both say why, and how to fix it.
	require.True(t, strings.HasPrefix(res.Content, "Not run: the sandbox is on (Settings → Tools) but not available on this computer.\n"), res.Content)
	require.Contains(t, res.Content, "bwrap is not installed (test).")
	d, ok := res.Display.(CommandDisplay)
	require.True(t, ok)
	require.True(t, d.Sandboxed)
	require.Equal(t, -1, d.ExitCode)
	require.Contains(t, d.Output, "bwrap is not installed (test).")
	require.Contains(t, out.String(), "bwrap is not installed (test).")

	// With the sandbox off the command is asked about and runs as before.
	session.SetSandbox(terminal.Sandbox{})
	res, err = reg.Execute(context.Background(), "run_terminal_command", map[string]any{"command": "touch ran"}, out)
	require.NoError(t, err)
	require.Empty(t, res.ErrorKind, res.Content)
	require.Len(t, approver.asked, 1)
	require.FileExists(t, filepath.Join(root, "ran"))
}

func TestHeadAndTailKeepsBothEnds(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	for i := range 2000 {
		b.WriteString("line ")
		b.WriteString(string(rune('a' + i%26)))
		b.WriteString("\n")
	}
	b.WriteString("verdict\n")
	got := headAndTail(b.String(), 1000)
	require.LessOrEqual(t, len(got), 1100)
	require.Regexp(t, `^line a\n`, got)
	require.Regexp(t, `\n\[… \d+ bytes not shown …\]\nline `, got)
	require.Regexp(t, `verdict\n$`, got)
	require.Equal(t, "short\n", headAndTail("short\n", 1000))
}
