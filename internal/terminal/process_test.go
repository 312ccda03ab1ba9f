package terminal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// spawnAndRecord starts two background sleeps and a foreground one, writing every PID (the
// shell's included) to pids so the test can check afterwards that none survived.
const spawnAndRecord = `sleep 1000 & echo $! >> pids; sleep 1000 & echo $! >> pids; echo $$ >> pids; `

func requireAllGone(t *testing.T, pidFile string) {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pids := strings.Fields(string(data))
	require.Len(t, pids, 3)
	for _, pid := range pids {
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			continue
		}
		// A zombie is dead; reaping it is init's business.
		state, _, ok := parseStat(stat)
		require.True(t, ok)
		require.Equal(t, byte('Z'), state, "process %s survived", pid)
	}
}

func TestTimeoutKillsTheWholeGroup(t *testing.T) {
	t.Parallel()
	s, root := newTestSession(t)
	started := time.Now()
	res, err := s.Run(context.Background(), spawnAndRecord+"sleep 60", "", Options{Timeout: 300 * time.Millisecond})
	require.NoError(t, err)
	require.Less(t, time.Since(started), 2*time.Second, "sleep exits on SIGTERM; no need for the grace period")
	require.True(t, res.TimedOut)
	require.False(t, res.Cancelled)
	require.Equal(t, -1, res.ExitCode)
	require.GreaterOrEqual(t, res.Duration, 300*time.Millisecond)
	require.Contains(t, res.ForModel, "(no output)\n[exit code -1, ")
	require.True(t, strings.HasSuffix(res.ForModel, ", killed after timeout of 300ms (the whole process group)]"), res.ForModel)
	requireAllGone(t, filepath.Join(root, "pids"))
}

func TestTimeoutEscalatesToSIGKILL(t *testing.T) {
	t.Parallel()
	s, root := newTestSession(t)
	// Ignored signals are inherited, so every process here ignores SIGTERM.
	started := time.Now()
	res, err := s.Run(context.Background(), "trap '' TERM; "+spawnAndRecord+"echo waiting; wait", "", Options{Timeout: 200 * time.Millisecond})
	require.NoError(t, err)
	elapsed := time.Since(started)
	require.GreaterOrEqual(t, elapsed, 200*time.Millisecond+timeoutGrace)
	require.Less(t, elapsed, 200*time.Millisecond+timeoutGrace+2*time.Second)
	require.True(t, res.TimedOut)
	require.Equal(t, "waiting\n", res.Output)
	requireAllGone(t, filepath.Join(root, "pids"))
}

func TestBackgroundProcessDoesNotHangRun(t *testing.T) {
	t.Parallel()
	s, root := newTestSession(t)
	started := time.Now()
	res := run(t, s, "sleep 100 & echo $! > pids; echo started", "")
	require.Less(t, time.Since(started), 2*time.Second)
	require.Equal(t, 0, res.ExitCode)
	require.Equal(t, "started\n", res.Output)
	require.Contains(t, res.ForModel, "[background processes still running when the command ended were stopped]")

	pid, err := os.ReadFile(filepath.Join(root, "pids"))
	require.NoError(t, err)
	stat, err := os.ReadFile("/proc/" + strings.TrimSpace(string(pid)) + "/stat")
	if err == nil {
		state, _, _ := parseStat(stat)
		require.Equal(t, byte('Z'), state)
	}
}

func TestBackgroundOutputWithinLingerIsKept(t *testing.T) {
	t.Parallel()
	s, _ := newTestSession(t)
	res := run(t, s, "(sleep 0.05; echo late) & echo early", "")
	require.Equal(t, "early\nlate\n", res.Output)
	require.NotContains(t, res.ForModel, "background processes")
}

func TestCancelStopsWithinASecond(t *testing.T) {
	t.Parallel()
	s, root := newTestSession(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cancelledAt time.Time
	go func() {
		time.Sleep(300 * time.Millisecond)
		cancelledAt = time.Now()
		cancel()
	}()
	// The shell ignores SIGTERM too, so this also covers the short grace before SIGKILL.
	res, err := s.Run(ctx, "trap '' TERM; "+spawnAndRecord+"wait", "", Options{})
	require.NoError(t, err)
	require.Less(t, time.Since(cancelledAt), time.Second)
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
