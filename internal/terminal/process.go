package terminal

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

const (
	// timeoutGrace is how long a timed-out command gets to exit on SIGTERM before SIGKILL.
	timeoutGrace = 2 * time.Second
	// stopGrace is shorter because Stop must take effect within a second; it also applies to
	// background processes left behind, which are not the work the person waited for.
	stopGrace = 500 * time.Millisecond
	// outputLinger is how long output may keep coming once the shell has exited: background
	// processes may still be writing, or may hold the pipe without ever writing.
	outputLinger = 250 * time.Millisecond
)

// outcome is how a process ended, before it is put into words.
type outcome struct {
	exitCode  int
	duration  time.Duration
	timedOut  bool
	cancelled bool
	strays    bool // background processes outlived the shell and were stopped
}

var shellPath = sync.OnceValue(func() string {
	for _, name := range []string{"bash", "sh"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return "/bin/sh"
})

// environ is the app's environment plus what keeps commands from waiting on a pager, an editor
// or a password prompt that nobody will see. exec keeps the last of duplicate keys.
func environ() []string {
	env := append(os.Environ(),
		"GANTRY=1",
		"PAGER=cat",
		"GIT_PAGER=cat",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_EDITOR=true",
	)
	if os.Getenv("TERM") == "" {
		env = append(env, "TERM=dumb")
	}
	return env
}

// execute runs argv (the shell, or bwrap with the shell) in dir with env, in a session and
// process group of its own, feeding the combined output to sink from a single goroutine, and
// returns once the process, its group and the output are all done with. startLimit starts its
// time limit, once it is running, and returns what delivers when the limit has run out; linger
// is how long output may keep coming after the shell exits (outputLinger).
func execute(ctx context.Context, argv []string, dir string, env []string, startLimit func() <-chan time.Time, linger time.Duration, sink func([]byte)) (outcome, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return outcome{}, fmt.Errorf("terminal: output pipe: %w", err)
	}
	defer r.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	// One pipe for both keeps stdout and stderr in the order they were written.
	cmd.Stdout, cmd.Stderr = w, w
	// A session of its own makes it the leader of a new process group (its pid is the group's
	// id, for stopGroup) and leaves it without a controlling terminal: nothing it starts can
	// prompt on Gantry's terminal or type into it with TIOCSTI (CVE-2017-5226 for bwrap, which
	// would otherwise need --new-session, an option that would put the shell out of the group).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	start := time.Now()
	err = cmd.Start()
	// The children have their own copies; ours would keep the pipe from ever reaching EOF.
	w.Close()
	if err != nil {
		return outcome{}, fmt.Errorf("terminal: start %s: %w", argv[0], err)
	}
	pgid := cmd.Process.Pid

	drained := make(chan struct{})
	go func() {
		defer close(drained)
		pump(r, sink)
	}()
	var end time.Time
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait() // the exit status is read from cmd.ProcessState
		end = time.Now()
		close(exited)
	}()

	var o outcome
	timeUp := startLimit()
	select {
	case <-exited:
		// Processes that closed the pipe may still be on their way out.
		deadline := time.Now().Add(linger)
		waitOrTimeout(drained, linger)
		if !waitGone(pgid, time.Until(deadline)) {
			o.strays = true
			stopGroup(pgid, stopGrace)
		}
	case <-timeUp:
		o.timedOut = true
		stopGroup(pgid, timeoutGrace)
	case <-ctx.Done():
		o.cancelled = true
		stopGroup(pgid, stopGrace)
	}
	// The shell may have moved itself to another group; it must not keep Run waiting.
	_ = cmd.Process.Kill()
	<-exited
	// Only a process that left the group can still hold the pipe now.
	if !waitOrTimeout(drained, linger) {
		r.Close()
		<-drained
	}
	o.exitCode = cmd.ProcessState.ExitCode()
	o.duration = end.Sub(start)
	return o, nil
}

func pump(r *os.File, sink func([]byte)) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			sink(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

func waitOrTimeout(done <-chan struct{}, limit time.Duration) bool {
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}
