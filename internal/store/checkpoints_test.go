package store

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCreateCheckpointClosesTheSessionsOpenOne(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	ctx := context.Background()
	s, other := createSession(t, db, "/ws"), createSession(t, db, "/ws")
	first, err := db.CreateCheckpoint(ctx, s.ID, "r1")
	require.NoError(t, err)
	elsewhere, err := db.CreateCheckpoint(ctx, other.ID, "r-other")
	require.NoError(t, err)
	second, err := db.CreateCheckpoint(ctx, s.ID, "r2")
	require.NoError(t, err)
	require.NotEqual(t, first.ID, second.ID)

	for run, want := range map[string]string{"r1": CheckpointClosed, "r2": CheckpointOpen, "r-other": CheckpointOpen} {
		c, err := db.CheckpointByRun(ctx, run)
		require.NoError(t, err)
		require.Equal(t, want, c.Status, run)
	}
	require.Equal(t, s.ID, second.SessionID)
	require.Equal(t, CheckpointOpen, elsewhere.Status)

	_, err = db.CreateCheckpoint(ctx, s.ID, "r1")
	require.Error(t, err, "one checkpoint per run")
	_, err = db.CreateCheckpoint(ctx, "missing", "r3")
	require.Error(t, err, "a checkpoint belongs to a session")
	_, err = db.CheckpointByRun(ctx, "r3")
	require.ErrorIs(t, err, ErrNotFound)
}

func TestSnapshotLifecycle(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	ctx := context.Background()
	s := createSession(t, db, "/ws")
	c, err := db.CreateCheckpoint(ctx, s.ID, "r1")
	require.NoError(t, err)

	added, err := db.AddSnapshot(ctx, c.ID, "/ws/a.txt", Prior{Exists: true, Data: []byte("one\n"), Mode: 0o640})
	require.NoError(t, err)
	require.True(t, added)
	added, err = db.AddSnapshot(ctx, c.ID, "/ws/a.txt", Prior{Exists: true, Data: []byte("two\n"), Mode: 0o644})
	require.NoError(t, err)
	require.False(t, added, "the first snapshot of a file in a run wins")
	added, err = db.AddSnapshot(ctx, c.ID, "/ws/new/b.txt", Prior{CreatedDirs: []string{"/ws/new"}})
	require.NoError(t, err)
	require.True(t, added)

	require.NoError(t, db.RecordResult(ctx, c.ID, "/ws/a.txt", Hash([]byte("agent\n"))))
	require.ErrorIs(t, db.RecordResult(ctx, c.ID, "/ws/other.txt", "x"), ErrNotFound)

	snaps, err := db.Snapshots(ctx, c.ID)
	require.NoError(t, err)
	require.Equal(t, []FileSnapshot{
		{CheckpointID: c.ID, Path: "/ws/a.txt", PriorHash: Hash([]byte("one\n")), PriorMode: 0o640, CreatedDirs: []string{},
			Recorded: true, ResultHash: Hash([]byte("agent\n")), Status: SnapshotPending},
		{CheckpointID: c.ID, Path: "/ws/new/b.txt", CreatedDirs: []string{"/ws/new"}, Status: SnapshotPending},
	}, snaps)

	moved, err := db.SetSnapshotStatus(ctx, c.ID, "/ws/a.txt", SnapshotPending, SnapshotKept)
	require.NoError(t, err)
	require.True(t, moved)
	moved, err = db.SetSnapshotStatus(ctx, c.ID, "/ws/a.txt", SnapshotPending, SnapshotUndone)
	require.NoError(t, err)
	require.False(t, moved, "only from the expected status")
	require.ErrorIs(t, db.RecordResult(ctx, c.ID, "/ws/a.txt", ""), ErrNotFound, "a kept change takes no result")

	// The run changes a kept file again: the kept state is what a new undo goes back to.
	added, err = db.AddSnapshot(ctx, c.ID, "/ws/a.txt", Prior{Exists: true, Data: []byte("agent\n"), Mode: 0o600})
	require.NoError(t, err)
	require.True(t, added)
	a, err := db.Snapshot(ctx, c.ID, "/ws/a.txt")
	require.NoError(t, err)
	require.Equal(t, FileSnapshot{CheckpointID: c.ID, Path: "/ws/a.txt", PriorHash: Hash([]byte("agent\n")), PriorMode: 0o600,
		CreatedDirs: []string{}, Status: SnapshotPending}, a)
	_, err = db.Snapshot(ctx, c.ID, "/ws/missing.txt")
	require.ErrorIs(t, err, ErrNotFound)

	require.NoError(t, db.CloseCheckpoint(ctx, c.ID))
	_, err = db.AddSnapshot(ctx, c.ID, "/ws/late.txt", Prior{})
	require.ErrorIs(t, err, ErrCheckpointClosed)
	require.NoError(t, db.RecordResult(ctx, c.ID, "/ws/new/b.txt", ""), "a write that finished as the run ended is still recorded")
}
