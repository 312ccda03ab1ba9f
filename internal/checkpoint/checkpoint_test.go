package checkpoint

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/fsutil"
	"gantry/internal/store"
)

func TestUndoRestoresBytesAndModeExactly(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	before := "line one\r\nline two\r\nno newline at the end"
	f.put(t, "run.sh", before, 0o750)
	c := f.begin(t, "r1")

	f.agentWrites(t, c, "run.sh", "#!/bin/sh\necho hi\n")
	require.NoError(t, os.Chmod(f.path("run.sh"), 0o600))
	// A second edit in the same run: undo still goes back to before the run.
	require.NoError(t, c.SnapshotBeforeEdit(ctx, f.path("run.sh")))
	require.NoError(t, os.WriteFile(f.path("run.sh"), []byte("#!/bin/sh\necho bye\n"), 0o600))
	require.NoError(t, c.RecordResult(ctx, f.path("run.sh")))

	files, err := c.Files(ctx)
	require.NoError(t, err)
	require.Equal(t, []FileChange{{Path: f.path("run.sh"), Status: Pending, Change: Modified, Added: 2, Removed: 3}}, files)
	got, existed, err := c.Before(ctx, f.path("run.sh"))
	require.NoError(t, err)
	require.True(t, existed)
	require.Equal(t, before, string(got))

	res, err := c.Undo(ctx, f.path("run.sh"))
	require.NoError(t, err)
	require.Equal(t, UndoResult{Path: f.path("run.sh"), Change: Modified, Outcome: Restored}, res)
	f.requireFile(t, "run.sh", before, 0o750)

	files, err = c.Files(ctx)
	require.NoError(t, err)
	require.Equal(t, []FileChange{{Path: f.path("run.sh"), Status: Undone, Change: Modified}}, files)
	_, err = c.Undo(ctx, f.path("run.sh"))
	require.ErrorIs(t, err, ErrAlreadyUndone)
	require.ErrorIs(t, c.Keep(ctx, f.path("run.sh")), ErrAlreadyUndone)
}

func TestUndoRemovesCreatedFilesAndOnlyTheFoldersTheRunCreated(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.put(t, "pkg/existing.go", "package pkg\n", 0o644)
	require.NoError(t, os.Mkdir(f.path("empty"), 0o755))
	c := f.begin(t, "r1")

	f.agentWrites(t, c, "pkg/new/deep/a.go", "package deep\n")
	f.agentWrites(t, c, "pkg/new/b.go", "package new\n") // pkg/new exists by now: a.go's write made it
	f.agentWrites(t, c, "empty/c.txt", "c\n")
	f.agentWrites(t, c, "top/d.txt", "d\n")
	f.agentWrites(t, c, "kept/e.txt", "e\n")
	f.put(t, "top/notes.txt", "the person's own file\n", 0o644)

	_, existed, err := c.Before(ctx, f.path("pkg/new/b.go"))
	require.NoError(t, err)
	require.False(t, existed)
	files, err := c.Files(ctx)
	require.NoError(t, err)
	require.Len(t, files, 5)
	require.Equal(t, FileChange{Path: f.path("pkg/new/deep/a.go"), Status: Pending, Change: Created, Added: 1}, files[0])

	require.NoError(t, c.Keep(ctx, f.path("kept/e.txt")))
	results, err := c.UndoAll(ctx)
	require.NoError(t, err)
	require.Len(t, results, 4)
	for _, r := range results {
		require.Equal(t, Removed, r.Outcome, r.Path)
		require.Equal(t, Created, r.Change, r.Path)
	}

	f.requireMissing(t, "pkg/new")
	f.requireFile(t, "pkg/existing.go", "package pkg\n", 0o644)
	f.requireMissing(t, "empty/c.txt")
	require.DirExists(t, f.path("empty"), "a folder that was there before stays, even empty")
	f.requireMissing(t, "top/d.txt")
	require.DirExists(t, f.path("top"), "a created folder that now holds someone else's file stays")
	f.requireFile(t, "kept/e.txt", "e\n", 0o644)
}

func TestCreatedFoldersGoWhicheverFileIsUndoneLast(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	c := f.begin(t, "r1")
	f.agentWrites(t, c, "a/b/one.txt", "1\n")
	f.agentWrites(t, c, "a/b/two.txt", "2\n")

	_, err := c.Undo(ctx, f.path("a/b/two.txt"))
	require.NoError(t, err)
	require.DirExists(t, f.path("a/b"))
	_, err = c.Undo(ctx, f.path("a/b/one.txt"))
	require.NoError(t, err)
	f.requireMissing(t, "a")
}

func TestUndoBringsBackAFileTheAgentDeleted(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.put(t, "old.txt", "keep me\n", 0o604)
	c := f.begin(t, "r1")
	f.agentDeletes(t, c, "old.txt")

	files, err := c.Files(ctx)
	require.NoError(t, err)
	require.Equal(t, []FileChange{{Path: f.path("old.txt"), Status: Pending, Change: Deleted, Removed: 1}}, files)
	res, err := c.Undo(ctx, f.path("old.txt"))
	require.NoError(t, err)
	require.Equal(t, Deleted, res.Change)
	require.Equal(t, Restored, res.Outcome)
	f.requireFile(t, "old.txt", "keep me\n", 0o604)
}

func TestKeptChangesCannotBeUndone(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.put(t, "a.txt", "a\n", 0o644)
	f.put(t, "b.txt", "b\n", 0o644)
	c := f.begin(t, "r1")
	f.agentWrites(t, c, "a.txt", "A\n")
	f.agentWrites(t, c, "b.txt", "B\n")

	require.NoError(t, c.Keep(ctx, f.path("a.txt")))
	require.NoError(t, c.Keep(ctx, f.path("a.txt")), "keeping twice is fine")
	_, err := c.Undo(ctx, f.path("a.txt"))
	require.ErrorIs(t, err, ErrAlreadyKept)
	_, err = c.ForceUndo(ctx, f.path("a.txt"))
	require.ErrorIs(t, err, ErrAlreadyKept, "forcing overrides a conflict, not a decision")

	require.NoError(t, c.KeepAll(ctx))
	results, err := c.UndoAll(ctx)
	require.NoError(t, err)
	require.Empty(t, results)
	f.requireFile(t, "a.txt", "A\n", 0o644)
	f.requireFile(t, "b.txt", "B\n", 0o644)

	_, err = c.Undo(ctx, f.path("never.txt"))
	require.ErrorIs(t, err, ErrNotTracked)
	require.ErrorIs(t, c.Keep(ctx, f.path("never.txt")), ErrNotTracked)
}

func TestUndoRefusesWhenTheFileChangedAfterTheAgent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.put(t, "edited.txt", "v1\n", 0o644)
	f.put(t, "removed.txt", "v1\n", 0o644)
	f.put(t, "recreated.txt", "v1\n", 0o644)
	c := f.begin(t, "r1")
	f.agentWrites(t, c, "edited.txt", "agent\n")
	f.agentWrites(t, c, "removed.txt", "agent\n")
	f.agentDeletes(t, c, "recreated.txt")
	f.agentWrites(t, c, "fine.txt", "agent\n")

	f.put(t, "edited.txt", "agent\nand the person's line\n", 0o644)
	require.NoError(t, os.Remove(f.path("removed.txt")))
	f.put(t, "recreated.txt", "the person's new file\n", 0o644)

	files, err := c.Files(ctx)
	require.NoError(t, err)
	type why struct{ conflict, missing, unrecorded bool }
	conflicts := map[string]why{}
	for _, fc := range files {
		conflicts[fc.Path] = why{fc.Conflict, fc.Missing, fc.Unrecorded}
	}
	require.Equal(t, map[string]why{
		f.path("edited.txt"):    {conflict: true},
		f.path("removed.txt"):   {conflict: true, missing: true},
		f.path("recreated.txt"): {conflict: true},
		f.path("fine.txt"):      {},
	}, conflicts)

	_, err = c.Undo(ctx, f.path("edited.txt"))
	var conflict *Conflict
	require.ErrorAs(t, err, &conflict)
	require.ErrorIs(t, err, ErrConflict)
	require.Equal(t, &Conflict{Path: f.path("edited.txt"), AgentExists: true, AgentHash: store.Hash([]byte("agent\n")),
		DiskExists: true, DiskHash: store.Hash([]byte("agent\nand the person's line\n"))}, conflict)
	require.Equal(t, "you changed x after the agent wrote it", conflict.Describe("x"))
	f.requireFile(t, "edited.txt", "agent\nand the person's line\n", 0o644)

	results, err := c.UndoAll(ctx)
	require.NoError(t, err)
	outcomes := map[string]string{}
	for _, r := range results {
		outcomes[r.Path] = string(r.Outcome)
		if r.Conflict != nil {
			outcomes[r.Path] += ": " + r.Conflict.Describe("x")
		}
	}
	require.Equal(t, map[string]string{
		f.path("edited.txt"):    "conflicted: you changed x after the agent wrote it",
		f.path("removed.txt"):   "conflicted: you deleted x after the agent wrote it",
		f.path("recreated.txt"): "conflicted: you created x again after the agent deleted it",
		f.path("fine.txt"):      "removed",
	}, outcomes, "a conflict holds back only its own file")
	f.requireMissing(t, "removed.txt")

	for _, rel := range []string{"edited.txt", "removed.txt", "recreated.txt"} {
		res, err := c.ForceUndo(ctx, f.path(rel))
		require.NoError(t, err)
		require.Equal(t, Restored, res.Outcome)
		f.requireFile(t, rel, "v1\n", 0o644)
	}
}

func TestUndoWorksAfterARestart(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.put(t, "a.txt", "before\n", 0o640)
	c := f.begin(t, "r1")
	f.agentWrites(t, c, "a.txt", "after\n")
	f.agentWrites(t, c, "new/b.txt", "new\n")
	require.NoError(t, f.db.Close())

	f.reopen(t)
	c, err := Open(ctx, f.db, "r1")
	require.NoError(t, err)
	files, err := c.Files(ctx)
	require.NoError(t, err)
	require.Len(t, files, 2)
	_, err = c.Undo(ctx, f.path("a.txt"))
	require.NoError(t, err)
	_, err = c.Undo(ctx, f.path("new/b.txt"))
	require.NoError(t, err)
	f.requireFile(t, "a.txt", "before\n", 0o640)
	f.requireMissing(t, "new")

	_, err = Open(ctx, f.db, "no-such-run")
	require.ErrorIs(t, err, store.ErrNotFound)
}

func TestAWriteThatWasNeverRecorded(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.put(t, "failed.txt", "as before\n", 0o644)
	f.put(t, "cut.txt", "as before\n", 0o644)
	c := f.begin(t, "r1")
	// The write of failed.txt failed; the app stopped between writing cut.txt and recording it.
	require.NoError(t, c.SnapshotBeforeEdit(ctx, f.path("failed.txt")))
	require.NoError(t, c.SnapshotBeforeEdit(ctx, f.path("cut.txt")))
	require.NoError(t, os.WriteFile(f.path("cut.txt"), []byte("agent\n"), 0o644))
	require.NoError(t, c.SnapshotBeforeEdit(ctx, f.path("never-made.txt")))

	files, err := c.Files(ctx)
	require.NoError(t, err)
	require.Equal(t, []FileChange{{Path: f.path("cut.txt"), Status: Pending, Change: Modified, Added: 1, Removed: 1, Conflict: true, Unrecorded: true}}, files,
		"what never changed is not listed; what changed unrecorded may be anyone's")

	results, err := c.UndoAll(ctx)
	require.NoError(t, err)
	require.Len(t, results, 3)
	require.Equal(t, Unchanged, results[0].Outcome)
	require.Equal(t, Conflicted, results[1].Outcome)
	require.True(t, results[1].Conflict.Unrecorded)
	require.Equal(t, Unchanged, results[2].Outcome)

	_, err = c.ForceUndo(ctx, f.path("cut.txt"))
	require.NoError(t, err)
	f.requireFile(t, "cut.txt", "as before\n", 0o644)
}

func TestTheRunCanChangeAFileAgainAfterItsUndo(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.put(t, "a.txt", "v1\n", 0o644)
	c := f.begin(t, "r1")
	f.agentWrites(t, c, "a.txt", "v2\n")
	_, err := c.Undo(ctx, f.path("a.txt"))
	require.NoError(t, err)
	f.agentWrites(t, c, "a.txt", "v3\n")

	files, err := c.Files(ctx)
	require.NoError(t, err)
	require.Equal(t, Pending, files[0].Status)
	_, err = c.Undo(ctx, f.path("a.txt"))
	require.NoError(t, err)
	f.requireFile(t, "a.txt", "v1\n", 0o644)
}

func TestLargeAndBinaryFiles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	big := make([]byte, 24<<20)
	_, _ = rand.Read(big)
	f.put(t, "assets/big.bin", string(big), 0o644)
	c := f.begin(t, "r1")
	f.agentWrites(t, c, "assets/big.bin", "\x00\x01 small now")
	f.agentWrites(t, c, "assets/logo.png", "\x89PNG\r\n\x1a\n\x00\x00")

	files, err := c.Files(ctx)
	require.NoError(t, err)
	require.Equal(t, []FileChange{
		{Path: f.path("assets/big.bin"), Status: Pending, Change: Modified, Binary: true},
		{Path: f.path("assets/logo.png"), Status: Pending, Change: Created, Binary: true},
	}, files)

	results, err := c.UndoAll(ctx)
	require.NoError(t, err)
	require.Len(t, results, 2)
	got, err := os.ReadFile(f.path("assets/big.bin"))
	require.NoError(t, err)
	require.True(t, string(got) == string(big), "24 MB restored byte for byte")
	f.requireMissing(t, "assets/logo.png")
}

func TestAnIdenticalSecondCheckpointAddsAlmostNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	const files = 40
	for i := range files {
		content := make([]byte, 32<<10)
		_, _ = rand.Read(content) // incompressible, so the first checkpoint's cost is plain
		f.put(t, fmt.Sprintf("f%02d.bin", i), string(content), 0o644)
	}
	snapshotAll := func(run string) int64 {
		start := f.dbSize(t)
		c := f.begin(t, run)
		for i := range files {
			require.NoError(t, c.SnapshotBeforeEdit(ctx, f.path(fmt.Sprintf("f%02d.bin", i))))
		}
		return f.dbSize(t) - start
	}
	first := snapshotAll("r1")
	second := snapshotAll("r2")
	require.Greater(t, first, int64(files*32<<10))
	require.Less(t, second, first/50, "the same contents are stored once (first %d bytes, second %d)", first, second)
}

func TestPathsOutsideTheWorkspaceOrInGitAreRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.put(t, ".git/config", "[core]\n", 0o644)
	f.put(t, "vendor/lib/.git/HEAD", "ref: main\n", 0o644)
	c := f.begin(t, "r1")

	for _, p := range []string{f.path(".git/config"), f.path("vendor/lib/.git/HEAD"), f.path(".git")} {
		require.ErrorContains(t, c.SnapshotBeforeEdit(ctx, p), ".git folder", p)
	}
	outside := t.TempDir() + "/x.txt"
	require.ErrorContains(t, c.SnapshotBeforeEdit(ctx, outside), "outside the workspace")
	require.ErrorContains(t, c.SnapshotBeforeEdit(ctx, f.path("../escape.txt")), "outside the workspace")
	require.ErrorContains(t, c.SnapshotBeforeEdit(ctx, "relative.txt"), "not an absolute path")
	require.Error(t, c.RecordResult(ctx, f.path(".git/config")))

	require.NoError(t, os.Symlink("target", f.path("link")))
	require.ErrorContains(t, c.SnapshotBeforeEdit(ctx, f.path("link")), "not a regular file")

	files, err := c.Files(ctx)
	require.NoError(t, err)
	require.Empty(t, files)
}

func TestAClosedCheckpointTakesNoSnapshots(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	m := New(f.db, f.session.ID)
	first, err := m.Begin(ctx, "r1")
	require.NoError(t, err)
	f.agentWrites(t, first, "a.txt", "a\n")
	_, err = m.Begin(ctx, "r2")
	require.NoError(t, err)

	err = first.SnapshotBeforeEdit(ctx, f.path("b.txt"))
	require.ErrorIs(t, err, ErrClosed, "a new run closes the session's previous checkpoint")
	_, err = first.Undo(ctx, f.path("a.txt"))
	require.NoError(t, err, "its changes can still be undone")

	_, err = m.Begin(ctx, "r2")
	require.Error(t, err, "one checkpoint per run")
	_, err = New(f.db, "no-such-session").Begin(ctx, "r3")
	require.ErrorIs(t, err, store.ErrNotFound)

	second, err := Open(ctx, f.db, "r2")
	require.NoError(t, err)
	require.NoError(t, second.Close(ctx))
	require.True(t, errors.Is(second.SnapshotBeforeEdit(ctx, f.path("c.txt")), ErrClosed))
}

func TestFilesSaysWhenALaterRunChangedAFile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.put(t, "a.txt", "v1\n", 0o644)
	f.put(t, "b.txt", "v1\n", 0o644)
	f.put(t, "gone.txt", "v1\n", 0o644)
	first := f.begin(t, "r1")
	f.agentWrites(t, first, "a.txt", "run 1\n")
	f.agentWrites(t, first, "b.txt", "run 1\n")
	f.agentDeletes(t, first, "gone.txt")
	require.NoError(t, first.Close(ctx))

	second := f.begin(t, "r2")
	f.agentWrites(t, second, "a.txt", "run 2\n")
	f.agentWrites(t, second, "gone.txt", "made again by run 2\n")
	f.put(t, "b.txt", "the person's\n", 0o644)

	files, err := first.Files(ctx)
	require.NoError(t, err)
	later := map[string][2]bool{}
	for _, fc := range files {
		later[fc.Path] = [2]bool{fc.Conflict, fc.LaterRun}
	}
	require.Equal(t, map[string][2]bool{
		f.path("a.txt"):    {true, true},
		f.path("b.txt"):    {true, false},
		f.path("gone.txt"): {true, true},
	}, later)

	files, err = second.Files(ctx)
	require.NoError(t, err)
	for _, fc := range files {
		require.False(t, fc.LaterRun, fc.Path)
	}
}

// An undo killed after some of its renames, before it marked anything, is finished by the next
// one: files already back as before are only marked undone (a created file's folders still go),
// the others restored; the mode of a file whose content the agent left alone comes back too.
func TestUndoAllFinishesAnUndoCutShort(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.put(t, "m.txt", "before m\n", 0o640)
	f.put(t, "d.txt", "before d\n", 0o644)
	f.put(t, "late.txt", "before late\n", 0o644)
	f.put(t, "mode.sh", "same\n", 0o755)
	c := f.begin(t, "r1")
	f.agentWrites(t, c, "m.txt", "agent m\n")
	f.agentWrites(t, c, "new/dir/c.txt", "agent c\n")
	f.agentDeletes(t, c, "d.txt")
	f.agentWrites(t, c, "late.txt", "agent late\n")
	require.NoError(t, c.SnapshotBeforeEdit(ctx, f.path("mode.sh")))
	require.NoError(t, fsutil.WriteFile(f.path("mode.sh"), []byte("same\n")))
	require.NoError(t, os.Chmod(f.path("mode.sh"), 0o644))
	require.NoError(t, c.RecordResult(ctx, f.path("mode.sh")))

	// What the killed undo got done: three files back as before, nothing marked.
	f.put(t, "m.txt", "before m\n", 0o640)
	require.NoError(t, os.Remove(f.path("new/dir/c.txt")))
	f.put(t, "d.txt", "before d\n", 0o644)

	results, err := c.UndoAll(ctx)
	require.NoError(t, err)
	outcomes := map[string]Outcome{}
	for _, r := range results {
		outcomes[r.Path] = r.Outcome
	}
	require.Equal(t, map[string]Outcome{
		f.path("m.txt"): Unchanged, f.path("new/dir/c.txt"): Unchanged, f.path("d.txt"): Unchanged,
		f.path("late.txt"): Restored, f.path("mode.sh"): Restored,
	}, outcomes)
	f.requireFile(t, "m.txt", "before m\n", 0o640)
	f.requireFile(t, "d.txt", "before d\n", 0o644)
	f.requireFile(t, "late.txt", "before late\n", 0o644)
	f.requireFile(t, "mode.sh", "same\n", 0o755)
	f.requireMissing(t, "new")
	files, err := c.Files(ctx)
	require.NoError(t, err)
	for _, fc := range files {
		require.Equal(t, Undone, fc.Status, fc.Path)
	}
}
