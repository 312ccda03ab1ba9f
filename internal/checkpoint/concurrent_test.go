package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/fsutil"
	"gantry/internal/store"
)

// TestConcurrentSessions runs several sessions at once on one database, each writing messages
// and changing files through its own checkpoint, as several open sessions of the app would.
func TestConcurrentSessions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	const sessions, files = 4, 15
	errs := make([]error, sessions)
	var wg sync.WaitGroup
	for s := range sessions {
		ws := filepath.Join(f.ws, fmt.Sprintf("ws%d", s))
		require.NoError(t, os.Mkdir(ws, 0o755))
		session, err := f.db.CreateSession(ctx, store.Session{WorkspacePath: ws, Mode: "agent"})
		require.NoError(t, err)
		wg.Go(func() { errs[s] = runSession(ctx, f.db, session, files) })
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
}

// runSession changes files (half created, half modified) with a message per change, checks the
// review list, undoes everything and checks the files are as before.
func runSession(ctx context.Context, db *store.DB, s store.Session, files int) error {
	c, err := New(db, s.ID).Begin(ctx, "run-"+s.ID)
	if err != nil {
		return err
	}
	for i := range files {
		path := filepath.Join(s.WorkspacePath, fmt.Sprintf("d%d/f%d.txt", i%3, i))
		if i%2 == 0 {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(path, []byte("before\n"), 0o644); err != nil {
				return err
			}
		}
		if err := c.SnapshotBeforeEdit(ctx, path); err != nil {
			return err
		}
		if err := fsutil.WriteFile(path, []byte(fmt.Sprintf("after %d\n", i))); err != nil {
			return err
		}
		if err := c.RecordResult(ctx, path); err != nil {
			return err
		}
		if _, err := db.AppendMessage(ctx, store.Message{SessionID: s.ID, Role: "tool", ToolName: "write_file", Content: path}); err != nil {
			return err
		}
	}
	changes, err := c.Files(ctx)
	if err != nil {
		return err
	}
	if len(changes) != files {
		return fmt.Errorf("session %s lists %d changed files, want %d", s.ID, len(changes), files)
	}
	results, err := c.UndoAll(ctx)
	if err != nil {
		return err
	}
	for _, r := range results {
		if r.Outcome != Restored && r.Outcome != Removed {
			return fmt.Errorf("%s: %s", r.Path, r.Outcome)
		}
	}
	for i := range files {
		path := filepath.Join(s.WorkspacePath, fmt.Sprintf("d%d/f%d.txt", i%3, i))
		data, err := os.ReadFile(path)
		switch {
		case i%2 == 0 && string(data) != "before\n":
			return fmt.Errorf("%s is %q after undo (%v)", path, data, err)
		case i%2 == 1 && !errors.Is(err, os.ErrNotExist):
			return fmt.Errorf("%s, created by the run, is still there after undo", path)
		}
	}
	msgs, err := db.Messages(ctx, s.ID)
	if err != nil {
		return err
	}
	if len(msgs) != files {
		return fmt.Errorf("session %s has %d messages, want %d", s.ID, len(msgs), files)
	}
	return nil
}
