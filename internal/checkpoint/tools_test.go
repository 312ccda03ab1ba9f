package checkpoint

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/tools"
)

// toolRun is a session whose agent changes files through the real write, edit and undo tools.
type toolRun struct {
	*fixture
	m   *Manager
	reg *tools.Registry
}

func newToolRun(t *testing.T) *toolRun {
	t.Helper()
	f := newFixture(t)
	r := &toolRun{fixture: f, m: New(f.db, f.session.ID), reg: tools.NewRegistry()}
	env := &tools.Env{Root: f.ws, Approver: tools.PolicyApprover{AllowEdits: true}, Checkpoints: r.m.Checkpointer()}
	for _, tool := range []tools.Tool{tools.WriteFile(env), tools.EditFile(env), tools.UndoFile(env), tools.UndoTurn(env)} {
		require.NoError(t, r.reg.Register(tool))
	}
	return r
}

func (r *toolRun) call(t *testing.T, tool string, args map[string]any) string {
	t.Helper()
	res, err := r.reg.Execute(context.Background(), tool, args, nil)
	require.NoError(t, err)
	require.False(t, res.Failed(), res.Content)
	return res.Content
}

func TestToolsRecordAndUndoThroughTheCheckpoint(t *testing.T) {
	t.Parallel()
	r := newToolRun(t)
	require.Equal(t, nothingToUndo, r.call(t, "undo_turn", nil))
	r.put(t, "main.go", "package main\n", 0o755)
	_, err := r.m.Begin(context.Background(), "r1")
	require.NoError(t, err)

	r.call(t, "edit_file", map[string]any{"path": "main.go", "old": "package main\n", "new": "package main\n\nfunc main() {}\n"})
	r.call(t, "write_file", map[string]any{"path": "cmd/tool/tool.go", "content": "package tool\n"})
	r.call(t, "write_file", map[string]any{"path": "README.md", "content": "# Hi\n"})
	r.put(t, "README.md", "# Hi\n\nThe person's own words.\n", 0o644)

	require.Equal(t, "Restored main.go as it was before you changed it.", r.call(t, "undo_file", map[string]any{"path": "main.go"}))
	r.requireFile(t, "main.go", "package main\n", 0o755)
	require.Equal(t, "main.go was already undone.", r.call(t, "undo_file", map[string]any{"path": "main.go"}))
	require.Equal(t, "go.mod was not changed in this run, so there is nothing to undo.", r.call(t, "undo_file", map[string]any{"path": "go.mod"}))
	require.Equal(t, "Not undone: the user changed README.md after you wrote it; read it to see their version.", r.call(t, "undo_file", map[string]any{"path": "README.md"}))

	require.Equal(t, "Deleted 1 file you had created: cmd/tool/tool.go.\nNot undone: the user changed README.md after you wrote it; read it to see their version.",
		r.call(t, "undo_turn", nil))
	r.requireMissing(t, "cmd")
	r.requireFile(t, "README.md", "# Hi\n\nThe person's own words.\n", 0o644)
}

func TestUndoTurnSumsUpManyFiles(t *testing.T) {
	t.Parallel()
	r := newToolRun(t)
	c, err := r.m.Begin(context.Background(), "r1")
	require.NoError(t, err)
	for i := range 12 {
		r.put(t, fmt.Sprintf("f%02d.txt", i), "old\n", 0o644)
		r.call(t, "write_file", map[string]any{"path": fmt.Sprintf("f%02d.txt", i), "content": "new\n"})
	}
	r.agentDeletes(t, c, "f11.txt")
	require.NoError(t, c.Keep(context.Background(), r.path("f10.txt")))

	res, err := r.reg.Execute(context.Background(), "undo_turn", nil, nil)
	require.NoError(t, err)
	require.Equal(t, "Restored 11 files: f00.txt, f01.txt, f02.txt, f03.txt, f04.txt, f05.txt, f06.txt, f07.txt, f08.txt, f09.txt and 1 more.", res.Content)
	require.Len(t, res.Meta.Undone, 11, "the structured list names every file, the 11th too")
	require.Contains(t, res.Meta.Undone, tools.UndoneFile{Path: "f11.txt"})
	require.Equal(t, "f10.txt was not undone: its change was kept.", r.call(t, "undo_file", map[string]any{"path": "f10.txt"}))
	r.requireFile(t, "f11.txt", "old\n", 0o644)
}

func TestToolHooksNeedARun(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	hooks := New(f.db, f.session.ID).Checkpointer()
	require.ErrorIs(t, hooks.BeforeEdit(context.Background(), f.path("a.txt")), errNoRun)
	require.ErrorIs(t, hooks.AfterEdit(context.Background(), f.path("a.txt")), errNoRun)
	report, err := hooks.UndoFile(context.Background(), f.path("a.txt"))
	require.NoError(t, err)
	require.Equal(t, tools.UndoReport{Text: nothingToUndo}, report)
}
