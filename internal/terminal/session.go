package terminal

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Session keeps one workspace's working directory and exported variables across commands, the
// way a terminal would (state.go). It is safe for concurrent use; concurrent commands each start
// from the directory and variables current when they start, and the last to finish decides
// where the next one starts.
type Session struct {
	root     string // absolute, as the person chose it
	realRoot string // root with symlinks resolved, to compare with pwd -P

	mu         sync.Mutex
	cwd        string
	timeoutCap time.Duration
	timeout0   time.Duration // for a command that asks for none; the setting
	sandbox    Sandbox
	cache      string // the project's writable cache in the sandbox, made at first use
	state      shellState

	// timeUp starts a command's time limit and says when it has run out; tests replace it to
	// choose that moment (once the command is under way) instead of racing the clock.
	timeUp func(limit time.Duration) <-chan time.Time
	// linger is outputLinger; tests lengthen it so that late output is late by their choice,
	// not by how busy the machine is.
	linger time.Duration
}

// NewSession starts a session in root.
func NewSession(root string) *Session {
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		real = root
	}
	return &Session{root: root, realRoot: real, cwd: root, timeoutCap: MaxTimeout, timeout0: DefaultTimeout, timeUp: time.After, linger: outputLinger}
}

// SetDefaultTimeout sets the timeout of a command that asks for none (the person's setting);
// outside (0, MaxTimeout] it restores DefaultTimeout.
func (s *Session) SetDefaultTimeout(d time.Duration) {
	if d <= 0 || d > MaxTimeout {
		d = DefaultTimeout
	}
	s.mu.Lock()
	s.timeout0 = d
	s.mu.Unlock()
}

// SetTimeoutCap lowers the longest timeout a command may ask for; outside (0, MaxTimeout] it
// restores MaxTimeout.
func (s *Session) SetTimeoutCap(d time.Duration) {
	if d <= 0 || d > MaxTimeout {
		d = MaxTimeout
	}
	s.mu.Lock()
	s.timeoutCap = d
	s.mu.Unlock()
}

// SetSandbox confines the commands that start from now on (the person's setting).
func (s *Session) SetSandbox(sb Sandbox) {
	s.mu.Lock()
	s.sandbox = sb
	s.mu.Unlock()
}

// Sandbox is how the next command will be confined.
func (s *Session) Sandbox() Sandbox {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sandbox
}

// Cwd is where the next command without a cwd argument runs.
func (s *Session) Cwd() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cwd
}

// Run runs command with bash -c in the session's directory, or in cwd (relative to the root, or
// absolute inside it) when given. Afterwards the session's directory is where the command ended,
// so `cd sub && make` carries over; a command that ends outside the workspace sends it back to
// the root. A failing command is reported in the Result; the error is only for a cwd outside the
// workspace or one that does not exist, and for failures to start the shell at all.
func (s *Session) Run(ctx context.Context, command, cwd string, opts Options) (Result, error) {
	res := Result{Command: command, ExitCode: -1}
	dir, notes, err := s.startDir(cwd)
	if err != nil {
		return res, err
	}
	res.Dir = dir
	if ctx.Err() != nil {
		// Stop was pressed before the command began: none of it may run.
		res.Cancelled = true
		res.ForModel = report("(not started)", nil, outcome{exitCode: -1, cancelled: true}, 0)
		return res, nil
	}
	timeout := s.timeout(opts.Timeout)
	sb := s.Sandbox()
	if sb.Enabled {
		if support := SandboxAvailable(); !support.Available {
			// The person asked for the sandbox: running the command unconfined instead would
			// break that promise silently.
			res.ForModel = "[not run: commands must run in Gantry's sandbox (Settings → Tools), but it is not available: " + support.Reason + "]"
			return res, nil
		}
	}

	dirFile, err := os.CreateTemp("", "gantry-cwd-*")
	if err != nil {
		return res, fmt.Errorf("terminal: %w", err)
	}
	dirFile.Close()
	defer os.Remove(dirFile.Name())

	argv := []string{shellPath(), "-c", recordDir(command, dirFile.Name(), sb.Enabled)}
	s.mu.Lock()
	env := append(s.state.apply(environ(), opts.Untrusted, s.root, s.realRoot), opts.Env...)
	s.mu.Unlock()
	var watch func([]byte) bool
	if sb.Enabled {
		cache := s.cacheDir()
		argv = append(append([]string{bwrapPath()}, bwrapArgs(sb, s.realRoot, cache, dirFile.Name(), s.realDir(dir))...), argv...)
		env = sandboxEnv(env, cache)
		watch = func(line []byte) bool { return sandboxHit(sb, line) }
	}

	c := newCapture(watch)
	sink := c.write
	if opts.Output != nil {
		sink = func(p []byte) {
			c.write(p)
			opts.Output(bytes.Clone(p))
		}
	}
	o, err := execute(ctx, argv, dir, env, func() <-chan time.Time { return s.timeUp(timeout) }, s.linger, sink)
	if err != nil {
		return res, err
	}
	ended, _ := os.ReadFile(dirFile.Name())
	rec := parseRecord(ended)
	notes = append(notes, s.settle(rec.dir)...)
	if rec.exported != nil {
		notes = append(notes, s.keep(env, opts.Env, rec.exported, opts.Untrusted)...)
	}
	if rec.strays {
		// In the sandbox they died with its process namespace; the shell saw them first.
		o.strays = true
	}
	if c.watched {
		notes = append(notes, sandboxNote(sb))
	}
	if o.strays {
		notes = append(notes, "[background processes still running when the command ended were stopped]")
	}

	body, lines := c.digest()
	res.ExitCode = o.exitCode
	res.Duration = o.duration
	res.TimedOut = o.timedOut
	res.Cancelled = o.cancelled
	res.Output = c.display()
	res.ForModel = report(body, notes, o, timeout)
	res.TotalLines = lines
	res.Sandboxed = sb.Enabled
	return res, nil
}

// keep takes over what the command exported as it exited (env is what it started with, given
// what it alone was given), and returns the note for the model.
func (s *Session) keep(env, given []string, exported []byte, untrusted bool) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	changed := s.state.learn(env, given, exported)
	return stateNote(changed, &s.state, untrusted, []string{s.root, s.realRoot})
}

// realDir is dir (spelled from the root) spelled from the real root: only that is bound in the
// sandbox, and the way the person reached the workspace (a symlink under /tmp, say) may not
// exist there.
func (s *Session) realDir(dir string) string {
	if rel, ok := within(s.root, dir); ok {
		return filepath.Join(s.realRoot, rel)
	}
	return dir
}

// cacheDir is the project's sandbox cache, marked used for this command; it is made (again)
// when missing, after a prune or the person clearing ~/.cache.
func (s *Session) cacheDir() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if fi, err := os.Stat(s.cache); s.cache != "" && err == nil && fi.IsDir() {
		markUsed(s.cache)
		return s.cache
	}
	s.cache = sandboxCacheDir(s.realRoot)
	return s.cache
}

func (s *Session) timeout(asked time.Duration) time.Duration {
	s.mu.Lock()
	limit, fallback := s.timeoutCap, s.timeout0
	s.mu.Unlock()
	if asked <= 0 {
		asked = fallback
	}
	return min(asked, limit)
}

// report puts the output, the notes and the status line together for the model.
func report(body string, notes []string, o outcome, timeout time.Duration) string {
	if body == "" {
		body = "(no output)"
	}
	status := fmt.Sprintf("[exit code %d, %s", o.exitCode, o.duration.Round(time.Millisecond))
	switch {
	case o.timedOut:
		status += fmt.Sprintf(", killed after timeout of %s (the whole process group)", span(timeout))
	case o.cancelled:
		status += ", cancelled by the user"
	}
	parts := append(append([]string{body}, notes...), status+"]")
	// Binary output must not make the tool result invalid text.
	return strings.ToValidUTF8(strings.Join(parts, "\n"), "\uFFFD")
}

// span writes whole minutes as "10m" rather than time.Duration's "10m0s".
func span(d time.Duration) string {
	if d >= time.Minute && d%time.Minute == 0 {
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.String()
}
