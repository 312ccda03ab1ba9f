package checkpoint

import (
	"context"
	"database/sql"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite" // for reading the database file directly, as another program would

	"gantry/internal/fsutil"
	"gantry/internal/store"
)

// fixture is a workspace, a real database beside it, and a session of that workspace.
type fixture struct {
	ws      string // workspace root, links resolved as the tools resolve them
	dataDir string
	db      *store.DB
	session store.Session
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	f := &fixture{ws: ws, dataDir: t.TempDir()}
	f.reopen(t)
	f.session, err = f.db.CreateSession(context.Background(), store.Session{WorkspacePath: ws, Mode: "agent"})
	require.NoError(t, err)
	return f
}

// reopen opens the database (again), as the app does when it starts.
func (f *fixture) reopen(t *testing.T) {
	t.Helper()
	db, err := store.Open(context.Background(), f.dataDir)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	f.db = db
}

func (f *fixture) begin(t *testing.T, runID string) *Checkpoint {
	t.Helper()
	c, err := New(f.db, f.session.ID).Begin(context.Background(), runID)
	require.NoError(t, err)
	return c
}

func (f *fixture) path(rel string) string { return filepath.Join(f.ws, filepath.FromSlash(rel)) }

func (f *fixture) put(t *testing.T, rel string, data string, mode fs.FileMode) {
	t.Helper()
	p := f.path(rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(data), mode))
	require.NoError(t, os.Chmod(p, mode)) // exactly, whatever the umask
}

// agentWrites changes a file the way the tools do: snapshot, atomic write, record.
func (f *fixture) agentWrites(t *testing.T, c *Checkpoint, rel, data string) {
	t.Helper()
	ctx := context.Background()
	p := f.path(rel)
	require.NoError(t, c.SnapshotBeforeEdit(ctx, p))
	require.NoError(t, fsutil.WriteFile(p, []byte(data)))
	require.NoError(t, c.RecordResult(ctx, p))
}

func (f *fixture) agentDeletes(t *testing.T, c *Checkpoint, rel string) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, c.SnapshotBeforeEdit(ctx, f.path(rel)))
	require.NoError(t, os.Remove(f.path(rel)))
	require.NoError(t, c.RecordResult(ctx, f.path(rel)))
}

// requireFile checks content and permission bits.
func (f *fixture) requireFile(t *testing.T, rel, data string, mode fs.FileMode) {
	t.Helper()
	got, err := os.ReadFile(f.path(rel))
	require.NoError(t, err)
	require.Equal(t, data, string(got), rel)
	fi, err := os.Stat(f.path(rel))
	require.NoError(t, err)
	require.Equal(t, mode, fi.Mode()&modeBits, rel)
}

func (f *fixture) requireMissing(t *testing.T, rel string) {
	t.Helper()
	_, err := os.Lstat(f.path(rel))
	require.ErrorIs(t, err, fs.ErrNotExist, rel)
}

// dbSize is the size of the database as a reader sees it, the write-ahead log included.
func (f *fixture) dbSize(t *testing.T) int64 {
	t.Helper()
	raw, err := sql.Open("sqlite", f.db.Path())
	require.NoError(t, err)
	defer raw.Close()
	var pages, pageSize int64
	require.NoError(t, raw.QueryRow("PRAGMA page_count").Scan(&pages))
	require.NoError(t, raw.QueryRow("PRAGMA page_size").Scan(&pageSize))
	return pages * pageSize
}
