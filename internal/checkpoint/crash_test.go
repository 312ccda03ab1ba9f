package checkpoint

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"gantry/internal/fsutil"
	"gantry/internal/store"
)

// helperEnv carries the crash helper's job; without it TestHelperProcess does nothing.
const helperEnv = "GANTRY_CHECKPOINT_CRASH_HELPER"

type crashJob struct {
	DataDir   string
	SessionID string
	Workspace string
	RunID     string
	Files     int
}

// crashFile is the i-th file the helper changes: it modifies, creates (in a new folder) or
// deletes, in turn.
func crashFile(i int) (rel string, change ChangeKind) {
	switch i % 3 {
	case 0:
		return fmt.Sprintf("mod%03d.txt", i), Modified
	case 1:
		return fmt.Sprintf("new%03d/sub/file.txt", i), Created
	default:
		return fmt.Sprintf("del%03d.txt", i), Deleted
	}
}

// crashContent is a few KB to a few dozen, so that a kill can land inside a write.
func crashContent(which string, i int) []byte {
	return []byte(strings.Repeat(fmt.Sprintf("%s content of file %d\n", which, i), 200*(1+i%20)))
}

// TestHelperProcess is not a test of its own: TestKillDuringARunLosesNothing runs the test binary
// again with only this test and helperEnv set, and kills it mid-way. It changes files the way the
// tools do, snapshot, atomic write, record, and prints each index once recorded.
func TestHelperProcess(t *testing.T) {
	raw := os.Getenv(helperEnv)
	if raw == "" {
		return
	}
	var job crashJob
	require.NoError(t, json.Unmarshal([]byte(raw), &job))
	ctx := context.Background()
	db, err := store.Open(ctx, job.DataDir)
	require.NoError(t, err)
	c, err := New(db, job.SessionID).Begin(ctx, job.RunID)
	require.NoError(t, err)
	for i := range job.Files {
		rel, change := crashFile(i)
		path := filepath.Join(job.Workspace, filepath.FromSlash(rel))
		require.NoError(t, c.SnapshotBeforeEdit(ctx, path))
		if change == Deleted {
			require.NoError(t, os.Remove(path))
		} else {
			require.NoError(t, fsutil.RestoreFile(path, crashContent("after", i), 0o644))
		}
		require.NoError(t, c.RecordResult(ctx, path))
		fmt.Println(i)
	}
	time.Sleep(time.Minute) // the parent kills it
}

func TestKillDuringARunLosesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	const files, killAfter = 600, 120
	for i := range files {
		if rel, change := crashFile(i); change != Created {
			f.put(t, rel, string(crashContent("before", i)), 0o644)
		}
	}
	require.NoError(t, f.db.Close())

	job, err := json.Marshal(crashJob{DataDir: f.dataDir, SessionID: f.session.ID, Workspace: f.ws, RunID: "crash", Files: files})
	require.NoError(t, err)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), helperEnv+"="+string(job))
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	recorded := make(chan int, files)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var i int
			if _, err := fmt.Sscan(sc.Text(), &i); err == nil {
				recorded <- i
			}
		}
		close(recorded)
	}()
	deadline := time.After(2 * time.Minute)
	for seen := 0; seen < killAfter; {
		select {
		case _, ok := <-recorded:
			require.True(t, ok, "the helper stopped early")
			seen++
		case <-deadline:
			cmd.Process.Kill()
			t.Fatal("the helper is too slow")
		}
	}
	// A random moment after that, so that runs of the test land in different steps of a change.
	time.Sleep(rand.N(40 * time.Millisecond))
	require.NoError(t, cmd.Process.Kill()) // SIGKILL: no deferred code, no flushing, mid-transaction
	_ = cmd.Wait()

	f.reopen(t)
	raw, err := sql.Open("sqlite", f.db.Path())
	require.NoError(t, err)
	var integrity string
	require.NoError(t, raw.QueryRow("PRAGMA integrity_check").Scan(&integrity))
	raw.Close()
	require.Equal(t, "ok", integrity)

	// Every file is whole: as before, or as the helper wrote it.
	for i := range files {
		rel, change := crashFile(i)
		got, err := os.ReadFile(f.path(rel))
		before, after := crashContent("before", i), crashContent("after", i)
		switch change {
		case Modified:
			require.NoError(t, err)
			require.Contains(t, []string{string(before), string(after)}, string(got), rel)
		case Created:
			require.True(t, os.IsNotExist(err) || string(got) == string(after), rel)
		case Deleted:
			require.True(t, os.IsNotExist(err) || string(got) == string(before), rel)
		}
	}

	c, err := Open(ctx, f.db, "crash")
	require.NoError(t, err)
	results, err := c.UndoAll(ctx)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(results), killAfter)
	for _, r := range results {
		if r.Outcome == Conflicted {
			// Only the file in flight at the kill: written, perhaps, but never recorded.
			require.True(t, r.Conflict.Unrecorded, r.Path)
			_, err := c.ForceUndo(ctx, r.Path)
			require.NoError(t, err)
		}
	}
	for i := range files {
		rel, change := crashFile(i)
		if change == Created {
			_, err := os.Stat(f.path(rel))
			require.ErrorIs(t, err, fs.ErrNotExist, rel)
			continue
		}
		f.requireFile(t, rel, string(crashContent("before", i)), 0o644)
	}
}
