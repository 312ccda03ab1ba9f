package tools

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/terminal"
)

func builtin(t *testing.T, name string) Tool {
	t.Helper()
	for _, tl := range Builtins(&Env{}, terminal.NewSession(os.TempDir())) {
		if tl.Name() == name {
			return tl
		}
	}
	t.Fatalf("no built-in tool %s", name)
	return nil
}

func TestBuiltinViews(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tool                   string
		args                   map[string]any
		running, done, spinner string
	}{
		{"write_file", map[string]any{"path": "internal/app/main.go"}, "Writing internal/app/main.go", "Wrote internal/app/main.go", "Writing main.go…"},
		{"edit_file", map[string]any{"file_path": `src\lib\util.ts`}, "Editing src/lib/util.ts", "Edited src/lib/util.ts", "Writing util.ts…"},
		{"write_file", nil, "Writing ", "Wrote", "Writing file…"},
		{"read_file", map[string]any{"path": "go.mod"}, "Reading go.mod", "Read go.mod", "Reading go.mod…"},
		{"read_file", map[string]any{"path": 7}, "Reading ", "Read", "Reading file…"},
		{"run_terminal_command", map[string]any{"command": "go test ./..."}, "Running go test ./...", "Ran go test ./...", "Running command…"},
		{"search_workspace", map[string]any{"query": "TODO"}, "Searching for TODO", "Searched for TODO", "Searching…"},
		{"glob", map[string]any{"pattern": "*.go"}, "Finding files", "Found files", "Searching…"},
		{"list_files", map[string]any{}, "Listing .", "Listed .", "Listing .…"},
		{"get_diagnostics", map[string]any{"path": "a.go"}, "Checking a.go", "Checked a.go", "Checking a.go…"},
		{"undo_turn", nil, "Undoing this run's changes", "Undid this run's changes", "Undoing this run's changes…"},
	}
	for _, tt := range tests {
		v := ViewOf(builtin(t, tt.tool), tt.args)
		require.Equal(t, tt.running, v.Running, tt.tool)
		require.Equal(t, tt.done, v.Done, tt.tool)
		require.Equal(t, tt.spinner, v.Spinner, tt.tool)
	}
	v := ViewOf(builtin(t, "run_terminal_command"), map[string]any{"command": "make"})
	require.Equal(t, "make", v.Command)
}

// A tool registered at run time says nothing about itself and still shows sensibly.
func TestAToolRegisteredAtRunTimeGetsDefaults(t *testing.T) {
	t.Parallel()
	type params struct {
		City string `json:"city"`
	}
	tl := Define("get_weather", KindFetch, "Tells the weather in a city. Uses a web service.", About{},
		func(context.Context, params, Output) (Result, error) { return Result{}, nil })
	a := AboutOf(tl)
	require.Equal(t, "get weather", a.Label)
	require.Equal(t, "Tells the weather in a city.", a.Summary)
	require.Equal(t, CategoryOther.ID, a.Category.ID)
	require.False(t, a.Core)
	v := ViewOf(tl, map[string]any{"city": "Oslo"})
	require.Equal(t, CallView{Running: "Using get weather", Done: "Used get weather", Spinner: "Working…"}, v)
	running, done := a.Category.Title(2, []string{"", ""})
	require.Equal(t, "Working on 2 steps", running)
	require.Equal(t, "Completed 2 steps", done)
}

func TestCategoryTitles(t *testing.T) {
	t.Parallel()
	r, d := CategoryEdit.Title(2, []string{"src/a.go", "src/a.go"})
	require.Equal(t, [2]string{"Editing a.go", "Edited a.go"}, [2]string{r, d})
	r, d = CategoryEdit.Title(3, []string{"a.go", "b.go", "c.go"})
	require.Equal(t, [2]string{"Editing 3 files", "Edited 3 files"}, [2]string{r, d})
	r, d = CategoryExecute.Title(1, nil)
	require.Equal(t, [2]string{"Running command", "Ran command"}, [2]string{r, d})
	r, d = CategoryRead.Title(4, nil)
	require.Equal(t, [2]string{"Reading files", "Read files"}, [2]string{r, d})
	require.Equal(t, CategorySearch.ID, AboutOf(builtin(t, "glob")).Category.ID)
}

func TestReviewModeNarrowsTheTerminalToReadOnlyGit(t *testing.T) {
	t.Parallel()
	term := builtin(t, "run_terminal_command")
	_, ok := ForAccess(term, Access{})
	require.False(t, ok, "explore and plan have no terminal")
	narrowed, ok := ForAccess(term, Access{ReadOnlyGit: true})
	require.True(t, ok)
	require.Contains(t, narrowed.Description(), "read-only git command")
	require.Equal(t, AboutOf(term).Label, AboutOf(narrowed).Label, "it is presented as the terminal")
	res, err := narrowed.Execute(context.Background(), map[string]any{"command": "rm -rf ."}, Discard)
	require.NoError(t, err)
	require.Equal(t, ErrDenied, res.ErrorKind)
	require.Contains(t, res.Content, "not a git command")

	write := builtin(t, "write_file")
	_, ok = ForAccess(write, Access{ReadOnlyGit: true})
	require.False(t, ok)
	same, ok := ForAccess(write, Access{Write: true})
	require.True(t, ok)
	require.Equal(t, write, same)
}
