package tools

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestUndoFileCallsTheCheckpoint(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	f.put(t, "real.txt", "x\n")
	require.NoError(t, os.Symlink("real.txt", f.path("link.txt")))

	res := f.ok(t, "undo_file", map[string]any{"filePath": "sub/gone.txt"})
	require.Equal(t, "Restored gone.txt.", res.Content)
	require.Equal(t, UndoDisplay{Kind: "text", Text: "Restored gone.txt."}, res.Display)

	// Through a link, the file that changed is the one restored, as the writing tools recorded it.
	f.ok(t, "undo_file", map[string]any{"path": "link.txt"})
	require.Equal(t, []string{"undo " + f.path("sub/gone.txt"), "undo " + f.path("real.txt")}, f.checkpoints.calls)

	res = f.call(t, "undo_file", map[string]any{"path": "../elsewhere.txt"})
	require.Equal(t, ErrOutsideWorkspace, res.ErrorKind)
	require.Len(t, f.checkpoints.calls, 2)
}

func TestUndoTurnCallsTheCheckpoint(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	res := f.ok(t, "undo_turn", nil)
	require.Equal(t, "Restored 2 files.", res.Content)
	require.Equal(t, []string{"undo turn"}, f.checkpoints.calls)
}

func TestUndoFailuresAreMachineErrors(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	f.checkpoints.undoError = errors.New("database is closed")
	_, err := f.reg.Execute(context.Background(), "undo_turn", nil, nil)
	require.ErrorContains(t, err, "database is closed")
	_, err = f.reg.Execute(context.Background(), "undo_file", map[string]any{"path": "a.txt"}, nil)
	require.ErrorContains(t, err, "undoing changes to a.txt")
}

func TestUndoWithoutCheckpoints(t *testing.T) {
	t.Parallel()
	env := &Env{Root: t.TempDir(), Checkpoints: NoCheckpoints{}}
	res, err := UndoTurn(env).Execute(context.Background(), map[string]any{}, Discard)
	require.NoError(t, err)
	require.Contains(t, res.Content, "nothing to undo")
}
