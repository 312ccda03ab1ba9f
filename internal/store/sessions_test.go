package store

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func createSession(t *testing.T, db *DB, workspace string) Session {
	t.Helper()
	s, err := db.CreateSession(context.Background(), Session{WorkspacePath: workspace, Title: "t", Mode: "agent", Model: "qwen3"})
	require.NoError(t, err)
	return s
}

func TestSessionsCreateGetListRenameTouch(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	tickingClock(db)
	ctx := context.Background()

	a := createSession(t, db, "/ws")
	require.Len(t, a.ID, 32)
	b := createSession(t, db, "/ws")
	createSession(t, db, "/other")

	got, err := db.GetSession(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, a, got)

	list, err := db.ListSessions(ctx, "/ws")
	require.NoError(t, err)
	require.Equal(t, []string{b.ID, a.ID}, sessionIDs(list), "newest first, other workspaces left out")

	require.NoError(t, db.TouchSession(ctx, a.ID, "plan", "llama3.2:3b"))
	list, err = db.ListSessions(ctx, "/ws")
	require.NoError(t, err)
	require.Equal(t, []string{a.ID, b.ID}, sessionIDs(list), "touching moves a session to the top")
	require.Equal(t, []string{"plan", "llama3.2:3b"}, []string{list[0].Mode, list[0].Model}, "the list shows the latest message's mode and model")

	require.NoError(t, db.RenameSession(ctx, b.ID, "Fix the parser"))
	got, err = db.GetSession(ctx, b.ID)
	require.NoError(t, err)
	require.Equal(t, "Fix the parser", got.Title)

	_, err = db.GetSession(ctx, "missing")
	require.ErrorIs(t, err, ErrNotFound)
	require.ErrorIs(t, db.RenameSession(ctx, "missing", "x"), ErrNotFound)
	require.ErrorIs(t, db.TouchSession(ctx, "missing", "agent", "m"), ErrNotFound)

	empty, err := db.ListSessions(ctx, "/nowhere")
	require.NoError(t, err)
	require.NotNil(t, empty, "an empty list, not null, for the frontend")
}

func sessionIDs(list []Session) []string {
	var ids []string
	for _, s := range list {
		ids = append(ids, s.ID)
	}
	return ids
}

func TestDeleteSessionTakesEverythingOfItAndOnlyThat(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	ctx := context.Background()
	gone, kept := createSession(t, db, "/ws"), createSession(t, db, "/ws")

	shared, own := []byte("content both sessions snapshotted\n"), []byte("content only the deleted session has\n")
	for i, s := range []Session{gone, kept} {
		// Written directly: these tests do not depend on how the event log is appended to.
		_, err := db.sql.Exec(`INSERT INTO events (id, session_id, type, payload, created_at) VALUES (?, ?, 't', '{}', 0)`, s.ID, s.ID)
		require.NoError(t, err)
		_, err = db.AppendMessage(ctx, Message{SessionID: s.ID, Role: "user", Content: "hi"})
		require.NoError(t, err)
		c, err := db.CreateCheckpoint(ctx, s.ID, "run-"+s.ID)
		require.NoError(t, err)
		_, err = db.AddSnapshot(ctx, c.ID, "/ws/shared.txt", Prior{Exists: true, Data: shared, Mode: 0o644})
		require.NoError(t, err)
		if i == 0 {
			_, err = db.AddSnapshot(ctx, c.ID, "/ws/own.txt", Prior{Exists: true, Data: own, Mode: 0o644})
			require.NoError(t, err)
		}
	}

	require.NoError(t, db.DeleteSession(ctx, gone.ID))

	_, err := db.GetSession(ctx, gone.ID)
	require.ErrorIs(t, err, ErrNotFound)
	require.Equal(t, 0, countEvents(t, db, gone.ID))
	msgs, err := db.Messages(ctx, gone.ID)
	require.NoError(t, err)
	require.Empty(t, msgs)
	_, err = db.CheckpointByRun(ctx, "run-"+gone.ID)
	require.ErrorIs(t, err, ErrNotFound)
	var snapshots int
	require.NoError(t, db.sql.QueryRow(`SELECT COUNT(*) FROM file_snapshots`).Scan(&snapshots))
	require.Equal(t, 1, snapshots, "only the kept session's snapshot is left")
	_, err = db.GetBlob(ctx, Hash(own))
	require.ErrorIs(t, err, ErrNotFound, "content no snapshot needs is collected")

	data, err := db.GetBlob(ctx, Hash(shared))
	require.NoError(t, err, "content the other session still needs stays")
	require.Equal(t, shared, data)
	require.Equal(t, 1, countEvents(t, db, kept.ID))
	msgs, err = db.Messages(ctx, kept.ID)
	require.NoError(t, err)
	require.Len(t, msgs, 1)

	require.NoError(t, db.DeleteSession(ctx, gone.ID), "deleting twice is harmless")
}

// countEvents counts a session's events directly, as they were written.
func countEvents(t *testing.T, db *DB, sessionID string) int {
	t.Helper()
	var n int
	require.NoError(t, db.sql.QueryRow(`SELECT COUNT(*) FROM events WHERE session_id = ?`, sessionID).Scan(&n))
	return n
}

func TestASubagentsSessionIsNotListedAndGoesWithItsParent(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	ctx := context.Background()
	parent := createSession(t, db, "/ws")
	child, err := db.CreateSession(ctx, Session{WorkspacePath: "/ws", Title: "find the loader", Mode: "explore", ParentID: parent.ID})
	require.NoError(t, err)
	got, err := db.GetSession(ctx, child.ID)
	require.NoError(t, err)
	require.Equal(t, parent.ID, got.ParentID)
	_, err = db.AppendMessage(ctx, Message{SessionID: child.ID, Role: "user", Content: "find the loader"})
	require.NoError(t, err)

	list, err := db.ListSessions(ctx, "/ws")
	require.NoError(t, err)
	require.Equal(t, []string{parent.ID}, sessionIDs(list))

	require.NoError(t, db.DeleteSession(ctx, parent.ID))
	_, err = db.GetSession(ctx, child.ID)
	require.ErrorIs(t, err, ErrNotFound)
	msgs, err := db.Messages(ctx, child.ID)
	require.NoError(t, err)
	require.Empty(t, msgs)
}
