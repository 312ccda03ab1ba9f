package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"gantry/internal/store"
)

// stashedNames lists the names the stash holds for c, none when its folder is gone.
func stashedNames(t *testing.T, c *Checkpoint) []string {
	t.Helper()
	entries, err := os.ReadDir(c.stashDir())
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// Undoing an edit the tools made (a new file renamed over the old) puts the very file from
// before the run back, inode and all, and leaves nothing in the stash.
func TestUndoPutsTheStashedFileBack(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.put(t, "main.go", "package main\n", 0o640)
	f.put(t, "util.go", "package util\n", 0o600)
	long := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	require.NoError(t, os.Chtimes(f.path("main.go"), long, long))
	original, err := os.Stat(f.path("main.go"))
	require.NoError(t, err)
	c := f.begin(t, "r1")
	f.agentWrites(t, c, "main.go", "package main // changed\n")
	f.agentWrites(t, c, "util.go", "package util // changed\n")
	require.Len(t, stashedNames(t, c), 2)
	agents, err := os.Stat(f.path("main.go"))
	require.NoError(t, err)

	_, err = c.UndoAll(ctx)
	require.NoError(t, err)
	f.requireFile(t, "main.go", "package main\n", 0o640)
	f.requireFile(t, "util.go", "package util\n", 0o600)
	now, err := os.Stat(f.path("main.go"))
	require.NoError(t, err)
	require.True(t, os.SameFile(original, now), "the file from before the run is back, not a copy")
	require.False(t, now.ModTime().Before(agents.ModTime()),
		"it is back as a file written now: a build tool must not take the agent's build for newer")
	require.Empty(t, stashedNames(t, c))
}

// A prior file changed in place after its snapshot (a command writing into it, rather than the
// tools replacing it) no longer holds what was there before the run: the undo restores the
// stored content instead, and the mode too when only the mode changed.
func TestUndoRestoresFromTheDatabaseWhenTheStashedFileChanged(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.put(t, "in-place.txt", "before\n", 0o644)
	f.put(t, "chmod.sh", "echo before\n", 0o755)
	f.put(t, "gone.txt", "before\n", 0o644)
	c := f.begin(t, "r1")

	require.NoError(t, c.SnapshotBeforeEdit(ctx, f.path("in-place.txt")))
	// os.WriteFile truncates and writes the same file: the stash's name for it sees the change.
	require.NoError(t, os.WriteFile(f.path("in-place.txt"), []byte("written in place\n"), 0o644))
	require.NoError(t, c.RecordResult(ctx, f.path("in-place.txt")))

	require.NoError(t, c.SnapshotBeforeEdit(ctx, f.path("chmod.sh")))
	require.NoError(t, os.Chmod(f.path("chmod.sh"), 0o600))
	require.NoError(t, c.RecordResult(ctx, f.path("chmod.sh")))

	f.agentWrites(t, c, "gone.txt", "after\n")
	require.NoError(t, os.Remove(c.stashPath(f.path("gone.txt"))))

	results, err := c.UndoAll(ctx)
	require.NoError(t, err)
	for _, r := range results {
		require.Equal(t, Restored, r.Outcome, r.Path)
	}
	f.requireFile(t, "in-place.txt", "before\n", 0o644)
	f.requireFile(t, "chmod.sh", "echo before\n", 0o755)
	f.requireFile(t, "gone.txt", "before\n", 0o644)
	require.Empty(t, stashedNames(t, c))
}

// Where no link can be made (the data folder on another file system; here its stash is a file
// in the way), changes are undone from the database alone.
func TestUndoWorksWithoutAStash(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	require.NoError(t, os.WriteFile(stashRoot(f.db), []byte("in the way"), 0o644))
	f.put(t, "a.txt", "a\n", 0o644)
	c := f.begin(t, "r1")
	f.agentWrites(t, c, "a.txt", "A\n")
	f.agentWrites(t, c, "new.txt", "new\n")

	_, err := c.UndoAll(ctx)
	require.NoError(t, err)
	f.requireFile(t, "a.txt", "a\n", 0o644)
	f.requireMissing(t, "new.txt")
}

// The stash holds prior files only while their changes wait: keeping lets go of them, and the
// sweep at start-up removes what a crash or a deleted session left, never a waiting one.
func TestTheStashHoldsOnlyWaitingChanges(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	for i := range 4 {
		f.put(t, fmt.Sprintf("f%d.txt", i), "before\n", 0o644)
	}
	c := f.begin(t, "r1")
	for i := range 4 {
		f.agentWrites(t, c, fmt.Sprintf("f%d.txt", i), "after\n")
	}
	require.NoError(t, c.Keep(ctx, f.path("f0.txt")))
	require.Len(t, stashedNames(t, c), 3)

	// What a crash between marking f1 kept and letting go of its link leaves.
	ok, err := f.db.SetSnapshotStatus(ctx, c.id, f.path("f1.txt"), string(Pending), string(Kept))
	require.NoError(t, err)
	require.True(t, ok)
	// And a session deleted while its links could not be removed.
	other, err := f.db.CreateSession(ctx, store.Session{WorkspacePath: f.ws, Mode: "agent"})
	require.NoError(t, err)
	oc, err := New(f.db, other.ID).Begin(ctx, "r2")
	require.NoError(t, err)
	f.put(t, "other.txt", "before\n", 0o644)
	f.agentWrites(t, oc, "other.txt", "after\n")
	require.Len(t, stashedNames(t, oc), 1)
	require.NoError(t, f.db.DeleteSession(ctx, other.ID))
	// Something in the stash folder that is not the stash's stays.
	stray := filepath.Join(stashRoot(f.db), "notes")
	require.NoError(t, os.WriteFile(stray, nil, 0o644))

	require.NoError(t, SweepStash(ctx, f.db))
	require.ElementsMatch(t, []string{
		filepath.Base(c.stashPath(f.path("f2.txt"))), filepath.Base(c.stashPath(f.path("f3.txt"))),
	}, stashedNames(t, c))
	require.NoDirExists(t, oc.stashDir())
	require.FileExists(t, stray)

	// The waiting changes still undo from their stashed files.
	_, err = c.UndoAll(ctx)
	require.NoError(t, err)
	f.requireFile(t, "f2.txt", "before\n", 0o644)
	f.requireFile(t, "f3.txt", "before\n", 0o644)
	f.requireFile(t, "f1.txt", "after\n", 0o644)
	require.NoDirExists(t, c.stashDir())
}
