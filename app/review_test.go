package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"gantry/internal/checkpoint"
	"gantry/internal/llm/fakeollama"
)

func editTurn(path, old, new string) fakeollama.Turn {
	return fakeollama.Turn{Chunks: []fakeollama.Chunk{{ToolCalls: []fakeollama.ToolCall{{
		Name: "edit_file", Arguments: map[string]any{"path": path, "old": old, "new": new},
	}}}}}
}

// reviewRun runs the agent over two edits in the default mode (auto-approved) and returns the
// run's ids once it finished.
func reviewRun(t *testing.T) (*chatFixture, SendResult) {
	t.Helper()
	f := startChat(t, "", editTurn("notes.txt", "helo", "hello"), editTurn("src/a.go", "one", "two"), done("Edited."))
	require.NoError(t, os.MkdirAll(filepath.Join(f.root, "src"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(f.root, "src", "a.go"), []byte("one\nkeep\n"), 0o644))
	res, err := f.app.Chat.Send(SendRequest{Text: "edit both"})
	require.NoError(t, err)
	f.waitIdle(t, res.SessionID, 10*time.Second)
	return f, res
}

func (f *chatFixture) read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.root, rel))
	require.NoError(t, err)
	return string(b)
}

func TestReviewListsDiffsKeepsAndUndoes(t *testing.T) {
	t.Parallel()
	f, res := reviewRun(t)
	r := f.app.Review
	require.Equal(t, "hello\n", f.read(t, "notes.txt"))
	require.Equal(t, "two\nkeep\n", f.read(t, "src/a.go"))

	files, err := r.ReviewFiles(res.SessionID, res.RunID)
	require.NoError(t, err)
	require.Equal(t, []checkpoint.FileChange{
		{Path: "notes.txt", Status: checkpoint.Pending, Change: checkpoint.Modified, Added: 1, Removed: 1},
		{Path: "src/a.go", Status: checkpoint.Pending, Change: checkpoint.Modified, Added: 1, Removed: 1},
	}, files)

	d, err := r.ReviewDiff(res.SessionID, res.RunID, "src/a.go")
	require.NoError(t, err)
	require.False(t, d.Binary)
	require.Equal(t, "one\nkeep\n", d.Before, "the diff editor gets both whole texts")
	require.Equal(t, "two\nkeep\n", d.After)
	require.Len(t, d.Hunks, 1)
	require.Equal(t, "one", d.Hunks[0].Lines[0].Text)

	require.NoError(t, r.Keep(res.SessionID, res.RunID, "notes.txt"))
	_, err = r.Undo(res.SessionID, res.RunID, "notes.txt")
	require.ErrorIs(t, err, checkpoint.ErrAlreadyKept, "a kept file cannot be undone")
	require.Equal(t, "hello\n", f.read(t, "notes.txt"))

	u, err := r.Undo(res.SessionID, res.RunID, "src/a.go")
	require.NoError(t, err)
	require.Equal(t, checkpoint.UndoResult{Path: "src/a.go", Change: checkpoint.Modified, Outcome: checkpoint.Restored}, u)
	require.Equal(t, "one\nkeep\n", f.read(t, "src/a.go"), "the exact bytes are back")

	files, err = r.ReviewFiles(res.SessionID, res.RunID)
	require.NoError(t, err)
	require.Equal(t, checkpoint.Kept, files[0].Status)
	require.Equal(t, checkpoint.Undone, files[1].Status)
}

func TestReviewConflictAndForceUndo(t *testing.T) {
	t.Parallel()
	f, res := reviewRun(t)
	r := f.app.Review
	require.NoError(t, os.WriteFile(filepath.Join(f.root, "notes.txt"), []byte("hello, mine\n"), 0o644))

	files, err := r.ReviewFiles(res.SessionID, res.RunID)
	require.NoError(t, err)
	require.True(t, files[0].Conflict)

	u, err := r.Undo(res.SessionID, res.RunID, "notes.txt")
	require.NoError(t, err, "a conflict is a result the UI shows, not a failure")
	require.Equal(t, checkpoint.Conflicted, u.Outcome)
	require.NotNil(t, u.Conflict)
	require.Equal(t, "notes.txt", u.Conflict.Path)
	require.Equal(t, "hello, mine\n", f.read(t, "notes.txt"), "left alone")

	all, err := r.UndoAll(res.SessionID, res.RunID)
	require.NoError(t, err)
	require.Len(t, all, 2)
	require.Equal(t, checkpoint.Conflicted, all[0].Outcome)
	require.Equal(t, "src/a.go", all[1].Path)
	require.Equal(t, "one\nkeep\n", f.read(t, "src/a.go"))

	u, err = r.ForceUndo(res.SessionID, res.RunID, "notes.txt")
	require.NoError(t, err)
	require.Equal(t, checkpoint.Restored, u.Outcome)
	require.Equal(t, "helo\n", f.read(t, "notes.txt"))
}

func TestReviewRefusesForeignPathsAndSessions(t *testing.T) {
	t.Parallel()
	f, res := reviewRun(t)
	r := f.app.Review
	require.NoError(t, os.WriteFile(filepath.Join(f.root, "other.txt"), []byte("x"), 0o644))
	for _, p := range []string{"other.txt", "../notes.txt", filepath.Join(f.root, "..", "x"), ""} {
		_, err := r.Undo(res.SessionID, res.RunID, p)
		require.Error(t, err, p)
	}
	_, err := r.ReviewFiles("another-session", res.RunID)
	require.Error(t, err)
	_, err = r.ReviewFiles(res.SessionID, "no-such-run")
	require.ErrorContains(t, err, "changed no files")

	// A path in another spelling resolves to the same file.
	d, err := r.ReviewDiff(res.SessionID, res.RunID, "./notes.txt")
	require.NoError(t, err)
	require.Len(t, d.Hunks, 1)
}

func TestReviewDiffOfBinaryFile(t *testing.T) {
	t.Parallel()
	f, res := reviewRun(t)
	require.NoError(t, os.WriteFile(filepath.Join(f.root, "notes.txt"), []byte("a\x00b"), 0o644))
	d, err := f.app.Review.ReviewDiff(res.SessionID, res.RunID, "notes.txt")
	require.NoError(t, err)
	require.True(t, d.Binary)
	require.Empty(t, d.Hunks)
	require.Empty(t, d.After, "no bytes of a binary file go to the window")
}

func TestReviewDiffOfTooLargeFile(t *testing.T) {
	t.Parallel()
	f, res := reviewRun(t)
	big := strings.Repeat("a line of text\n", maxReviewDiffBytes/15+1)
	require.NoError(t, os.WriteFile(filepath.Join(f.root, "notes.txt"), []byte(big), 0o644))
	d, err := f.app.Review.ReviewDiff(res.SessionID, res.RunID, "notes.txt")
	require.NoError(t, err)
	require.True(t, d.TooLarge)
	require.False(t, d.Binary)
	require.Empty(t, d.After)
	require.Empty(t, d.Hunks)
}
