package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func openTest(t *testing.T) (*DB, string) {
	t.Helper()
	dir := t.TempDir()
	db, err := Open(context.Background(), dir)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db, dir
}

// tickingClock makes db date each write one millisecond after the one before: the order of the
// writes is the order of their times, without waiting for the wall clock to move.
func tickingClock(db *DB) {
	var mu sync.Mutex
	now := time.UnixMilli(1_700_000_000_000)
	db.now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Millisecond)
		return now
	}
}

func TestOpenAppliesMigrationsAndUsesWAL(t *testing.T) {
	t.Parallel()
	db, dir := openTest(t)
	require.Equal(t, filepath.Join(dir, "gantry.db"), db.Path())
	v, err := db.SchemaVersion(context.Background())
	require.NoError(t, err)
	all, err := loadMigrations()
	require.NoError(t, err)
	require.Equal(t, len(all), v)

	var mode string
	require.NoError(t, db.sql.QueryRow("PRAGMA journal_mode").Scan(&mode))
	require.Equal(t, "wal", mode)
	var timeout int
	require.NoError(t, db.sql.QueryRow("PRAGMA busy_timeout").Scan(&timeout))
	require.Equal(t, 5000, timeout)
}

func TestReopenIsIdempotent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	db, err := Open(ctx, dir)
	require.NoError(t, err)
	_, err = db.TouchWorkspace(ctx, "/p", "p")
	require.NoError(t, err)
	require.NoError(t, db.Close())

	db, err = Open(ctx, dir)
	require.NoError(t, err)
	defer db.Close()
	ws, err := db.RecentWorkspaces(ctx, 10)
	require.NoError(t, err)
	require.Len(t, ws, 1)
}

func TestNewerSchemaRefusesToOpenAndLeavesFileAlone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	db, err := Open(ctx, dir)
	require.NoError(t, err)
	_, err = db.sql.Exec("PRAGMA user_version = 999")
	require.NoError(t, err)
	require.NoError(t, db.Close())

	_, err = Open(ctx, dir)
	require.ErrorIs(t, err, ErrNewerSchema)
	require.Contains(t, err.Error(), "999")

	raw, err := sql.Open("sqlite", filepath.Join(dir, "gantry.db"))
	require.NoError(t, err)
	defer raw.Close()
	var v int
	require.NoError(t, raw.QueryRow("PRAGMA user_version").Scan(&v))
	require.Equal(t, 999, v)
}

func TestRecentWorkspacesNewestFirstAndTouchMovesToTop(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	tickingClock(db)
	ctx := context.Background()
	a, err := db.TouchWorkspace(ctx, "/a", "a")
	require.NoError(t, err)
	_, err = db.TouchWorkspace(ctx, "/b", "b")
	require.NoError(t, err)
	again, err := db.TouchWorkspace(ctx, "/a", "a")
	require.NoError(t, err)
	require.Equal(t, a.ID, again.ID, "reopening keeps the same row")

	ws, err := db.RecentWorkspaces(ctx, 10)
	require.NoError(t, err)
	require.Equal(t, []string{"/a", "/b"}, []string{ws[0].Path, ws[1].Path})

	require.NoError(t, db.RemoveWorkspace(ctx, a.ID))
	ws, err = db.RecentWorkspaces(ctx, 10)
	require.NoError(t, err)
	require.Len(t, ws, 1)
	require.Equal(t, "/b", ws[0].Path)
}

// A database written by an older Gantry (only the first migration applied) migrates on open and
// keeps what it had.
func TestOlderSchemaMigratesAndKeepsData(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first, err := migrationFiles.ReadFile("migrations/0001_workspaces_events.sql")
	require.NoError(t, err)
	raw, err := sql.Open("sqlite", filepath.Join(dir, "gantry.db"))
	require.NoError(t, err)
	_, err = raw.Exec(string(first))
	require.NoError(t, err)
	_, err = raw.Exec(`PRAGMA user_version = 1`)
	require.NoError(t, err)
	_, err = raw.Exec(`INSERT INTO workspaces (path, name, created_at, opened_at) VALUES ('/old', 'old', 1, 1)`)
	require.NoError(t, err)
	require.NoError(t, raw.Close())

	db, err := Open(context.Background(), dir)
	require.NoError(t, err)
	defer db.Close()
	v, err := db.SchemaVersion(context.Background())
	require.NoError(t, err)
	all, err := loadMigrations()
	require.NoError(t, err)
	require.Equal(t, len(all), v)
	ws, err := db.RecentWorkspaces(context.Background(), 10)
	require.NoError(t, err)
	require.Len(t, ws, 1)
	require.Equal(t, "/old", ws[0].Path)
	_, err = db.CreateSession(context.Background(), Session{WorkspacePath: "/old", Title: "t"})
	require.NoError(t, err, "the new tables exist")
}
