package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gantry/internal/git"
	"gantry/internal/safety"
	"gantry/internal/terminal"
)

//go:embed run_terminal_command.md
var runTerminalCommandDescription string

// displayOutputBytes caps the command output kept in the UI payload, which is stored with the
// run's history; the UI already received all of it live.
const displayOutputBytes = 64 << 10

type runTerminalCommandParams struct {
	Command string  `json:"command" jsonschema:"The shell command to run with bash, e.g. \"go test ./...\""`
	Cwd     string  `json:"cwd,omitempty" jsonschema:"Folder to run it in, relative to the workspace root (default: where the last command ended)"`
	Timeout float64 `json:"timeout,omitempty" jsonschema:"Seconds before the command is killed (default: the user's setting, 30 unless changed)"`
}

// CommandDisplay is what the UI shows for a command: its approval facts and its output.
type CommandDisplay struct {
	Kind         string `json:"kind"` // "command"
	Command      string `json:"command"`
	Cwd          string `json:"cwd"` // workspace-relative slash path, "." for the root
	ExitCode     int    `json:"exitCode"`
	DurationMs   int64  `json:"durationMs"`
	Severity     string `json:"severity"`
	Reason       string `json:"reason,omitempty"`
	AutoApproved bool   `json:"autoApproved"`
	Denied       bool   `json:"denied,omitempty"`
	// Output is the raw output with its colours (ANSI kept), cut to its start and end when long.
	Output    string `json:"output"`
	TimedOut  bool   `json:"timedOut,omitempty"`
	Cancelled bool   `json:"cancelled,omitempty"`
	// Sandboxed: it runs (or would have run) in the terminal's sandbox.
	Sandboxed bool `json:"sandboxed,omitempty"`
}

var runTerminalCommandAbout = About{
	Label: "Run commands", Summary: "Run a shell command in the project, such as a build or the tests.", Core: true,
	View: func(args map[string]any) CallView {
		cmd, _ := args["command"].(string)
		return CallView{Running: "Running " + StringArg(args, "command", 80), Spinner: "Running command…", Command: cmd}
	},
}

// RunTerminalCommand runs shell commands in session once the approver allows them. In review
// mode it runs read-only git commands only (Narrow).
func RunTerminalCommand(env *Env, session *terminal.Session) Tool {
	return terminalTool{runTerminalCommand(env, session)}
}

func runTerminalCommand(env *Env, session *terminal.Session) Tool {
	return Define("run_terminal_command", KindExecute, runTerminalCommandDescription, runTerminalCommandAbout,
		func(ctx context.Context, p runTerminalCommandParams, out Output) (Result, error) {
			if strings.TrimSpace(p.Command) == "" {
				return Fail(ErrInvalidArguments, "command is empty: give the shell command to run."), nil
			}
			cwd := session.Cwd()
			if p.Cwd != "" {
				abs, failed := commandDir(env.Root, p.Cwd)
				if failed != nil {
					return *failed, nil
				}
				cwd = abs
			}
			analysis := safety.AnalyzeCommandIn(p.Command, filepath.ToSlash(env.Root))
			display := CommandDisplay{
				Kind:      "command",
				Command:   p.Command,
				Cwd:       slashRelToRoot(env.Root, cwd),
				ExitCode:  -1,
				Severity:  string(analysis.Severity),
				Reason:    analysis.Reason,
				Sandboxed: session.Sandbox().Enabled,
			}
			if display.Sandboxed {
				if support := terminal.SandboxAvailable(); !support.Available {
					// Asking would be for nothing: the command cannot run confined, and running it
					// unconfined would break the person's setting. The row shows the first line;
					// opening it shows the rest, streamed like a command's output.
					msg := "Not run: the sandbox is on (Settings → Tools) but not available on this computer.\n" +
						support.Reason + "\nAsk the user to make the sandbox work or to turn it off; do not retry the command until then."
					display.Output = msg + "\n"
					out.Stream([]byte(display.Output))
					return Result{Content: msg, Display: display, ErrorKind: ErrFailed}, nil
				}
			}
			decision, err := env.Approver.ApproveCommand(ctx, CommandApproval{
				Command: p.Command, Cwd: cwd, Analysis: analysis, Sandboxed: display.Sandboxed,
			})
			if err != nil {
				if ctx.Err() != nil {
					display.Cancelled = true
					return Result{Content: "The command was not run: the run was stopped.", Display: display, ErrorKind: ErrCancelled}, nil
				}
				return Result{}, fmt.Errorf("approving command: %w", err)
			}
			if !decision.Allowed {
				msg := "The user denied running this command."
				switch {
				case decision.NotAsked:
					msg = decision.Message
				case decision.Message != "":
					msg += " " + decision.Message
				}
				display.Denied = true
				return Result{Content: msg, Display: display, ErrorKind: ErrDenied}, nil
			}
			display.AutoApproved = decision.AutoApproved

			opts := terminal.Options{
				Timeout: time.Duration(max(p.Timeout, 0) * float64(time.Second)),
				Output:  out.Stream,
			}
			if !env.Approver.FolderTrusted() {
				// Even a command that runs nothing from the folder may start git, and the
				// repository's hooks and config name programs of the folder's choosing. What
				// earlier commands exported must not undo that, nor point anything else at the
				// folder's code (terminal's state.go).
				opts.Env = git.UntrustedEnv(ctx, cwd, os.Environ())
				opts.Untrusted = true
			}
			res, err := session.Run(ctx, p.Command, cwd, opts)
			if err != nil {
				// The directory checked above went away or left the workspace in the meantime.
				switch {
				case errors.Is(err, terminal.ErrOutsideRoot):
					return Fail(ErrOutsideWorkspace, "%v.", err), nil
				case errors.Is(err, fs.ErrNotExist):
					return Fail(ErrNotFound, "%v.", err), nil
				}
				return Result{}, fmt.Errorf("running command: %w", err)
			}
			display.Cwd = slashRelToRoot(env.Root, res.Dir)
			display.ExitCode = res.ExitCode
			display.DurationMs = res.Duration.Milliseconds()
			display.Output = headAndTail(res.Output, displayOutputBytes)
			display.TimedOut = res.TimedOut
			display.Cancelled = res.Cancelled
			display.Sandboxed = res.Sandboxed
			result := Result{Content: res.ForModel, Display: display,
				Meta: Meta{Command: &CommandRun{Command: p.Command, ExitCode: res.ExitCode, TimedOut: res.TimedOut}}}
			switch {
			case res.TimedOut:
				result.ErrorKind = ErrTimeout
			case res.Cancelled:
				result.ErrorKind = ErrCancelled
			case res.ExitCode != 0:
				result.ErrorKind = ErrFailed
			}
			return result, nil
		})
}

// commandDir resolves a cwd argument to an existing directory inside the workspace, so the
// approval card names the real place and a wrong folder is reported before anyone is asked.
func commandDir(root, cwd string) (string, *Result) {
	abs, err := ResolveWorkspacePath(root, cwd)
	if err != nil {
		res := Fail(ErrOutsideWorkspace, "%v.", err)
		return "", &res
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		res := Fail(ErrNotFound, "cwd %s does not exist in the workspace. Leave cwd out to run in the current folder.", quotePath(cwd))
		return "", &res
	case err != nil:
		res := Fail(ErrInvalidArguments, "cwd %s cannot be used: %s.", quotePath(cwd), describeFSError(err))
		return "", &res
	case !fi.IsDir():
		res := Fail(ErrInvalidArguments, "cwd %s is a file, not a folder.", quotePath(cwd))
		return "", &res
	}
	return abs, nil
}

// headAndTail keeps about limit bytes of s, the start and the end (where a command prints its
// verdict), cut at line breaks so no escape sequence or character is split.
func headAndTail(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	head := s[:limit/4]
	if i := strings.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i+1]
	}
	tail := s[len(s)-limit*3/4:]
	if i := strings.IndexByte(tail, '\n'); i >= 0 {
		tail = tail[i+1:]
	}
	return fmt.Sprintf("%s[… %d bytes not shown …]\n%s", head, len(s)-len(head)-len(tail), tail)
}

// slashRelToRoot is path relative to root as a slash path, "." for root itself.
func slashRelToRoot(root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(rel)
}

// terminalTool is run_terminal_command, which a mode without write access may still use for
// read-only git (review mode).
type terminalTool struct{ Tool }

func (t terminalTool) About() About { return t.Tool.(Described).About() }

func (t terminalTool) Narrow(a Access) (Tool, bool) {
	if !a.ReadOnlyGit {
		return nil, false
	}
	return readOnlyGitTool{t}, true
}

// readOnlyGitTool checks the command before the approval and the shell ever see it, so a
// command that could write never runs.
type readOnlyGitTool struct{ terminalTool }

func (t readOnlyGitTool) Description() string {
	return "Run one read-only git command in the workspace: " + safety.ReadOnlyGitPhrase() +
		`, e.g. "git diff --stat" or "git log -5 --oneline". Nothing else runs here: no other programs, pipes, redirections, chains or --output.` +
		"\n\nReturns the output and the exit code."
}

func (t readOnlyGitTool) Execute(ctx context.Context, args map[string]any, out Output) (Result, error) {
	cmd, _ := args["command"].(string)
	if why := safety.ReadOnlyGitRefusal(cmd); why != "" {
		return Fail(ErrDenied,
			"Not run: %s. In review mode only read-only git commands run: %s, as one plain command "+
				"(no pipes, redirections, chains, variables or --output). Example: git diff --stat", why, safety.ReadOnlyGitPhrase()), nil
	}
	return t.terminalTool.Execute(ctx, args, out)
}
