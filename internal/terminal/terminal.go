// Package terminal runs the shell commands the agent asks for, once a person has approved them.
//
// Each command runs with bash -c in a session and process group of its own, without a
// controlling terminal and with stdin at /dev/null, so nothing can wait for a prompt nobody
// sees. A timeout or the Stop button ends the whole group, and so
// does the command finishing: background processes it leaves behind are stopped too, because
// nothing would ever clean them up. Processes that leave the group on purpose (setsid, daemons
// that fork into a session of their own) are beyond reach.
//
// Output goes three ways: live to the UI as raw bytes, after the fact to the UI capped at
// MaxDisplayBytes, and to the model stripped of escape sequences and cut to 100 lines. Memory
// stays bounded however much a command prints, even on a single line.
//
// Colour is left alone: the UI renders ANSI, and the model's copy is stripped. TERM is kept
// when the app has one; when it has none (launched from a desktop) it is set to "dumb" so that
// programs that need a terminal type fall back instead of failing.
//
// With the sandbox on (Session.SetSandbox; Linux with bubblewrap) the same shell runs inside
// bwrap: the filesystem read-only but for the workspace (its .git excepted) and a cache of the
// project's own, a private /tmp and /run, no network unless allowed, the person's agent and bus
// sockets out of reach, and a process namespace that dies with the shell, so even processes that
// left the group end with it. See sandbox.go.
package terminal

import "time"

const (
	// DefaultTimeout applies when Options.Timeout is zero.
	DefaultTimeout = 30 * time.Second
	// MaxTimeout caps any one command; Session.SetTimeoutCap can lower it.
	MaxTimeout = 10 * time.Minute
	// MaxDisplayBytes is how much raw output Result.Output keeps.
	MaxDisplayBytes = 1 << 20
)

// Options tune one Run.
type Options struct {
	// Timeout for this command; zero means DefaultTimeout. Capped by the session's cap.
	Timeout time.Duration
	// Output receives the raw output (stdout and stderr as written, ANSI kept) as it arrives,
	// for the UI. Calls come from one goroutine, in order, and never after Run returns. The
	// chunk is the callee's to keep. The command waits while Output runs, so it must be quick.
	Output func(chunk []byte)
	// Env is added to the command's environment (git's safety settings in a folder the
	// person has not trusted); it wins over what the session kept from earlier commands.
	Env []string
	// Untrusted: the workspace is a folder the person has not trusted, so what earlier
	// commands exported that could run its code is not carried over (state.go).
	Untrusted bool
}

// Result is what happened to one command. A command that fails is a Result, not an error.
type Result struct {
	Command   string
	Dir       string // where it ran (absolute)
	ExitCode  int    // -1 when killed by a signal or never started
	Duration  time.Duration
	TimedOut  bool
	Cancelled bool // the context was cancelled (Stop button)
	// Output is the raw combined stdout and stderr (ANSI kept) for the UI, cut at
	// MaxDisplayBytes with a note saying so.
	Output string
	// ForModel is the output without escape sequences, cut to 100 lines of at most 500
	// characters, then notes (working directory changes, stopped background processes) and a
	// status line with the exit code, the duration and why it was killed, if it was.
	ForModel   string
	TotalLines int  // lines in the whole output, as the model would have seen them
	Sandboxed  bool // it ran in the sandbox
}
