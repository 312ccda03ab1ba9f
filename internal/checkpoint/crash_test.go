package checkpoint

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	Undo      bool // undo the run's changes (UndoAll) instead of making them
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
	if job.Undo {
		c, err := Open(ctx, db, job.RunID)
		require.NoError(t, err)
		fmt.Println("undoing")
		_, err = c.UndoAll(ctx)
		require.NoError(t, err)
		fmt.Println("undone")
		waitForKill()
	}
	c, err := New(db, job.SessionID).Begin(ctx, job.RunID)
	require.NoError(t, err)
	for i := range job.Files {
		rel, change := crashFile(i)
		path := filepath.Join(job.Workspace, filepath.FromSlash(rel))
		require.NoError(t, c.SnapshotBeforeEdit(ctx, path))
		if change == Deleted {
			require.NoError(t, os.Remove(path))
		} else {
			require.NoError(t, fsutil.WriteFile(path, crashContent("after", i)))
		}
		require.NoError(t, c.RecordResult(ctx, path))
		fmt.Println(i)
	}
	waitForKill()
}

// waitForKill blocks the helper until the parent kills it: stdin is a pipe the parent never
// writes to, closed only when the parent itself ends.
func waitForKill() {
	_, _ = io.Copy(io.Discard, os.Stdin)
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

	cmd, lines := startHelper(t, crashJob{DataDir: f.dataDir, SessionID: f.session.ID, Workspace: f.ws, RunID: "crash", Files: files})
	for range killAfter {
		_, ok := <-lines
		require.True(t, ok, "the helper stopped early")
	}
	// A random moment after that, so that runs of the test land in different steps of a change.
	// A clock is the only way here: the point is a kill between any two system calls, which
	// no event the helper could report marks (a reported step is one it has already finished).
	// Nothing waits for anything to happen; any moment is a valid test.
	time.Sleep(rand.N(40 * time.Millisecond))
	f.killHelper(t, cmd)
	f.requireWhole(t, files)

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
		f.requireAsBefore(t, i)
	}
}

// A kill during an undo of many files (one fsutil.Batch: contents staged, flushed, renamed,
// folders synced, then the files marked undone) leaves every file whole, marks none undone that
// is not back as before, and a later undo finishes the job, clearing the temporary files the
// killed ones left. The helper is killed at a random moment of its UndoAll, up to four times
// (each starting over from what the last left), then an undo in the test runs to the end.
func TestKillDuringUndoAllLosesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	const files = 300
	for i := range files {
		if rel, change := crashFile(i); change != Created {
			f.put(t, rel, string(crashContent("before", i)), 0o644)
		}
	}
	c := f.begin(t, "crash")
	for i := range files {
		rel, change := crashFile(i)
		if change == Deleted {
			f.agentDeletes(t, c, rel)
		} else {
			f.agentWrites(t, c, rel, string(crashContent("after", i)))
		}
	}
	require.NoError(t, f.db.Close())

	for round, finished := 0, false; round < 4 && !finished; round++ {
		cmd, lines := startHelper(t, crashJob{DataDir: f.dataDir, SessionID: f.session.ID, Workspace: f.ws, RunID: "crash", Undo: true})
		line, ok := <-lines
		require.True(t, ok && line == "undoing", "the helper did not start its undo")
		// Somewhere in the undo of 300 files (staging, flushing, renaming, marking), or after.
		// A random clock on purpose, as in TestKillDuringARunLosesNothing: the kill must land
		// between arbitrary system calls, and every moment, the end included, must leave the
		// files whole; a slow machine only shifts which step it lands in.
		time.Sleep(rand.N(1200 * time.Millisecond))
		f.killHelper(t, cmd)
		for line := range lines {
			finished = finished || line == "undone"
		}
		f.requireWhole(t, files)

		// A file marked undone must be back as before, not merely on its way.
		snaps, err := f.db.Snapshots(ctx, c.id)
		require.NoError(t, err)
		undone := 0
		for i := range files {
			rel, _ := crashFile(i)
			k := slices.IndexFunc(snaps, func(s store.FileSnapshot) bool { return s.Path == f.path(rel) })
			if Status(snaps[k].Status) == Undone {
				undone++
				f.requireAsBefore(t, i)
			}
		}
		t.Logf("killed with %d of %d files marked undone (undo finished: %v), %d temporary files left",
			undone, files, finished, len(strayTemps(t, f.ws)))
		require.NoError(t, f.db.Close())
	}

	f.reopen(t)
	c, err := Open(ctx, f.db, "crash")
	require.NoError(t, err)
	results, err := c.UndoAll(ctx)
	require.NoError(t, err)
	for _, r := range results {
		require.Contains(t, []Outcome{Restored, Removed, Unchanged}, r.Outcome, r.Path)
	}
	for i := range files {
		f.requireAsBefore(t, i)
	}
	snaps, err := f.db.Snapshots(ctx, c.id)
	require.NoError(t, err)
	for _, s := range snaps {
		require.Equal(t, store.SnapshotUndone, s.Status, s.Path)
	}
	require.Empty(t, strayTemps(t, f.ws))
}

// startHelper runs TestHelperProcess on job and returns it with the lines it prints.
func startHelper(t *testing.T, job crashJob) (*exec.Cmd, <-chan string) {
	t.Helper()
	raw, err := json.Marshal(job)
	require.NoError(t, err)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), helperEnv+"="+string(raw))
	cmd.Stderr = os.Stderr
	_, err = cmd.StdinPipe() // never written: the helper waits on it to be killed
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return cmd, lines
}

// killHelper kills the helper with SIGKILL (no deferred code, no flushing, mid-transaction),
// reopens the database as the app would on its next start, and checks it is intact.
func (f *fixture) killHelper(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	f.reopen(t)
	raw, err := sql.Open("sqlite", f.db.Path())
	require.NoError(t, err)
	defer raw.Close()
	var integrity string
	require.NoError(t, raw.QueryRow("PRAGMA integrity_check").Scan(&integrity))
	require.Equal(t, "ok", integrity)
}

// requireWhole checks that each of the crash files is whole: as before, or as the agent wrote it.
func (f *fixture) requireWhole(t *testing.T, files int) {
	t.Helper()
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
}

// requireAsBefore checks that the i-th crash file is as it was before the run: gone if the run
// created it.
func (f *fixture) requireAsBefore(t *testing.T, i int) {
	t.Helper()
	rel, change := crashFile(i)
	if change == Created {
		f.requireMissing(t, rel)
		return
	}
	f.requireFile(t, rel, string(crashContent("before", i)), 0o644)
}

// strayTemps lists the temporary files a killed write left below dir: whole new contents that
// never got their name. They are all that may be left over.
func strayTemps(t *testing.T, dir string) []string {
	t.Helper()
	var temps []string
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			temps = append(temps, path)
		}
		return err
	}))
	return temps
}
