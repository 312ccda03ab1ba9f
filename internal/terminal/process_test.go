package terminal

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// spawnAndRecord starts two background sleeps and a foreground one, writing every PID (the
// shell's included) to pids so the test can check afterwards that none survived.
const spawnAndRecord = `sleep 1000 & echo $! >> pids; sleep 1000 & echo $! >> pids; echo $$ >> pids; `

// requireAllGone checks that every process in pidFile dies. A killed process may take a moment
// to be scheduled and exit on a busy machine; these would otherwise sleep for 1000 s.
func requireAllGone(t *testing.T, pidFile string) {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pids := strings.Fields(string(data))
	require.Len(t, pids, 3)
	for _, pid := range pids {
		require.Eventually(t, func() bool { return dead(pid) }, 30*time.Second, 10*time.Millisecond, "process %s survived", pid)
	}
}

// dead reports whether pid is gone or a zombie (dead; reaping it is init's business).
func dead(pid string) bool {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return true
	}
	state, _, ok := parseStat(stat)
	return ok && state == 'Z'
}

// timeUpOn makes s's commands run out of time once their output holds marker rather than when
// their timeout passes: by then the command has set itself up, however slow the machine. It
// returns the Output to run them with.
func timeUpOn(s *Session, marker string) func([]byte) {
	expired := make(chan time.Time)
	s.timeUp = func(time.Duration) <-chan time.Time { return expired }
	var out []byte
	var once sync.Once
	return func(chunk []byte) {
		if out = append(out, chunk...); strings.Contains(string(out), marker) {
			once.Do(func() { close(expired) })
		}
	}
}

func TestTimeoutKillsTheWholeGroup(t *testing.T) {
	t.Parallel()
	s, root := newTestSession(t)
	output := timeUpOn(s, "waiting")
	res, err := s.Run(context.Background(), spawnAndRecord+"echo waiting; sleep 1000", "", Options{Timeout: 300 * time.Millisecond, Output: output})
	require.NoError(t, err)
	require.True(t, res.TimedOut)
	require.False(t, res.Cancelled)
	require.Equal(t, -1, res.ExitCode)
	// The shell may also say "Terminated" for its killed sleep, if it sees that before its own end.
	require.True(t, strings.HasPrefix(res.ForModel, "waiting\n"), res.ForModel)
	require.Contains(t, res.ForModel, "\n[exit code -1, ")
	require.True(t, strings.HasSuffix(res.ForModel, ", killed after timeout of 300ms (the whole process group)]"), res.ForModel)
	requireAllGone(t, filepath.Join(root, "pids"))
}

func TestStopGroupReturnsOnceTheGroupIsGone(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sh", "-c", "sleep 1000 & sleep 1000 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }() // reaps the shell, as execute does
	// Everything here ends on SIGTERM, so stopGroup returns without waiting out its grace: an
	// hour, which no test would survive.
	stopGroup(cmd.Process.Pid, time.Hour)
	<-exited
}

func TestTimeoutIsTheTimeLimit(t *testing.T) {
	t.Parallel()
	s, _ := newTestSession(t)
	res, err := s.Run(context.Background(), "sleep 1000", "", Options{Timeout: 300 * time.Millisecond})
	require.NoError(t, err)
	require.True(t, res.TimedOut)
	require.GreaterOrEqual(t, res.Duration, 300*time.Millisecond)
}

func TestTimeoutEscalatesToSIGKILL(t *testing.T) {
	t.Parallel()
	s, root := newTestSession(t)
	output := timeUpOn(s, "waiting")
	// Ignored signals are inherited, so every process here ignores SIGTERM: they die only when
	// SIGKILL comes, a grace period after the time ran out.
	started := time.Now()
	res, err := s.Run(context.Background(), "trap '' TERM; "+spawnAndRecord+"echo waiting; wait", "", Options{Timeout: 200 * time.Millisecond, Output: output})
	require.NoError(t, err)
	require.GreaterOrEqual(t, time.Since(started), timeoutGrace)
	require.True(t, res.TimedOut)
	require.Equal(t, "waiting\n", res.Output)
	requireAllGone(t, filepath.Join(root, "pids"))
}

func TestBackgroundProcessDoesNotHangRun(t *testing.T) {
	t.Parallel()
	s, root := newTestSession(t)
	// Run returns although the background sleep would last 1000 s, and says it stopped it.
	res := run(t, s, "sleep 1000 & echo $! > pids; echo started", "")
	require.Equal(t, 0, res.ExitCode)
	require.Equal(t, "started\n", res.Output)
	require.Contains(t, res.ForModel, "[background processes still running when the command ended were stopped]")

	pid, err := os.ReadFile(filepath.Join(root, "pids"))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return dead(strings.TrimSpace(string(pid))) }, 30*time.Second, 10*time.Millisecond)
}

func TestBackgroundOutputWithinLingerIsKept(t *testing.T) {
	t.Parallel()
	s, _ := newTestSession(t)
	// Output 50 ms after the shell's end is kept while the linger lasts: a minute here, so that
	// a busy machine cannot make it late.
	s.linger = time.Minute
	res := run(t, s, "(sleep 0.05; echo late) & echo early", "")
	require.Equal(t, "early\nlate\n", res.Output)
	require.NotContains(t, res.ForModel, "background processes")
}

func TestCancelStopsWithinASecond(t *testing.T) {
	t.Parallel()
	// Stop must take effect within a second (SPEC §1): the grace a stopped group gets before
	// SIGKILL, and the wait for the kernel after it, leave room for that. Timing a Run instead
	// would measure how busy the machine is.
	require.Less(t, stopGrace+killWait, time.Second)

	s, root := newTestSession(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out []byte
	// The shell ignores SIGTERM too, so this also covers the short grace before SIGKILL.
	res, err := s.Run(ctx, "trap '' TERM; "+spawnAndRecord+"echo waiting; wait", "", Options{Output: func(chunk []byte) {
		if out = append(out, chunk...); strings.Contains(string(out), "waiting") {
			cancel()
		}
	}})
	require.NoError(t, err)
	require.True(t, res.Cancelled)
	require.False(t, res.TimedOut)
	require.Equal(t, -1, res.ExitCode)
	require.True(t, strings.HasSuffix(res.ForModel, ", cancelled by the user]"), res.ForModel)
	requireAllGone(t, filepath.Join(root, "pids"))
}

func TestCancelledBeforeStartRunsNothing(t *testing.T) {
	t.Parallel()
	s, root := newTestSession(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := s.Run(ctx, "touch ran", "", Options{})
	require.NoError(t, err)
	require.True(t, res.Cancelled)
	require.Equal(t, -1, res.ExitCode)
	require.Equal(t, "(not started)\n[exit code -1, 0s, cancelled by the user]", res.ForModel)
	require.NoFileExists(t, filepath.Join(root, "ran"))
}

func TestParseStat(t *testing.T) {
	t.Parallel()
	state, pgrp, ok := parseStat([]byte("42 (a) b (c)) S 1 4242 4242 0 -1"))
	require.True(t, ok)
	require.Equal(t, byte('S'), state)
	require.Equal(t, 4242, pgrp)

	_, _, ok = parseStat([]byte("garbage"))
	require.False(t, ok)
}
