package tools

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/ignore"
)

func newSearchRegistry(t *testing.T) *Registry {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"main.go":         "package main\n\nfunc Load() {}\n\nfunc Save() {}\n",
		"main_test.go":    "package main\n\nfunc TestLoad() { Load() }\n",
		"docs/notes.txt":  "How to LOAD a file\n",
		".gitignore":      "build/\n",
		"build/gen.go":    "func Load() {}\n",
		"docs/guide.md":   "Load, then Save.\n",
		"docs/sub/x.json": "{\"load\": true}\n",
	})
	env := &Env{Root: root, Ignore: ignore.New(root), Approver: PolicyApprover{}, Checkpoints: NoCheckpoints{}}
	reg := NewRegistry()
	require.NoError(t, reg.Register(SearchWorkspace(env)))
	return reg
}

func searchFor(t *testing.T, reg *Registry, args map[string]any) (Result, SearchDisplay) {
	t.Helper()
	res, err := reg.Execute(context.Background(), "search_workspace", args, nil)
	require.NoError(t, err)
	display, _ := res.Display.(SearchDisplay)
	return res, display
}

// matchedFiles lists the files of a display with their matching line numbers.
func matchedFiles(d SearchDisplay) map[string][]int {
	out := map[string][]int{}
	for _, f := range d.Files {
		for _, m := range f.Matches {
			out[f.Path] = append(out[f.Path], m.Line)
		}
	}
	return out
}

func TestSearchWorkspaceLiteral(t *testing.T) {
	t.Parallel()
	reg := newSearchRegistry(t)
	res, d := searchFor(t, reg, map[string]any{"query": "func Load"})
	require.False(t, res.Failed(), res.Content)
	require.Equal(t, map[string][]int{"main.go": {3}}, matchedFiles(d), "build/ is ignored by .gitignore")
	require.Equal(t, "matches", d.Kind)
	require.Equal(t, "func Load", d.Query)
	require.Equal(t, 1, d.Total)
	require.Equal(t, "func Load() {}", d.Files[0].Matches[0].Text)
	require.Contains(t, res.Content, "── main.go ──\n  1: package main\n  2: \n→ 3: func Load() {}\n  4: \n  5: func Save() {}\n")
}

func TestSearchWorkspaceRegexCaseAndAlias(t *testing.T) {
	t.Parallel()
	reg := newSearchRegistry(t)

	// Weakly typed flags, as small models send them, and "pattern" for "query".
	res, d := searchFor(t, reg, map[string]any{"pattern": `func (Load|Save)\(`, "isRegex": "true", "contextLines": "0"})
	require.False(t, res.Failed(), res.Content)
	require.Equal(t, map[string][]int{"main.go": {3, 5}}, matchedFiles(d))
	require.NotContains(t, res.Content, "package main", "no context lines were asked for")

	_, d = searchFor(t, reg, map[string]any{"query": "load", "caseInsensitive": true})
	require.Equal(t, map[string][]int{
		"main.go": {3}, "main_test.go": {3}, "docs/guide.md": {1}, "docs/notes.txt": {1}, "docs/sub/x.json": {1},
	}, matchedFiles(d))

	_, d = searchFor(t, reg, map[string]any{"query": "load"})
	require.Equal(t, map[string][]int{"docs/sub/x.json": {1}}, matchedFiles(d), "case matters by default")
}

func TestSearchWorkspaceNarrowing(t *testing.T) {
	t.Parallel()
	reg := newSearchRegistry(t)

	_, d := searchFor(t, reg, map[string]any{"query": "Load", "include": []any{"**/*.go"}, "exclude": "*_test.go"})
	require.Equal(t, map[string][]int{"main.go": {3}}, matchedFiles(d))

	_, d = searchFor(t, reg, map[string]any{"query": "Load", "include": "*.md, *.txt", "caseInsensitive": true})
	require.Equal(t, map[string][]int{"docs/guide.md": {1}, "docs/notes.txt": {1}}, matchedFiles(d), "a comma-separated string is a list")

	_, d = searchFor(t, reg, map[string]any{"query": "Load", "include": []any{"*.{md,txt}"}, "caseInsensitive": true})
	require.Equal(t, map[string][]int{"docs/guide.md": {1}, "docs/notes.txt": {1}}, matchedFiles(d), "commas in braces stay in the glob")

	_, d = searchFor(t, reg, map[string]any{"query": "load", "path": "docs/sub"})
	require.Equal(t, map[string][]int{"docs/sub/x.json": {1}}, matchedFiles(d))

	_, d = searchFor(t, reg, map[string]any{"query": "Load", "path": "build"})
	require.Equal(t, map[string][]int{"build/gen.go": {1}}, matchedFiles(d), "naming an ignored folder searches it")

	res, d := searchFor(t, reg, map[string]any{"query": "Load", "maxResults": 1})
	require.True(t, d.Truncated)
	require.Equal(t, 1, d.Total)
	require.Contains(t, res.Content, "more exist")
}

func TestSearchWorkspaceMistakes(t *testing.T) {
	t.Parallel()
	reg := newSearchRegistry(t)
	for _, tc := range []struct {
		args map[string]any
		kind ErrorKind
		says string
	}{
		{map[string]any{"query": "func (", "isRegex": true}, ErrInvalidArguments, "invalid regex"},
		{map[string]any{"query": "x", "include": []any{"[abc"}}, ErrInvalidArguments, "invalid include glob"},
		{map[string]any{}, ErrInvalidArguments, "missing required argument(s): query"},
		{map[string]any{"query": ""}, ErrInvalidArguments, "needs a query"},
		{map[string]any{"query": "x", "path": "nowhere"}, ErrNotFound, "does not exist"},
		{map[string]any{"query": "x", "path": "../"}, ErrOutsideWorkspace, "outside the workspace"},
	} {
		res, _ := searchFor(t, reg, tc.args)
		require.Equal(t, tc.kind, res.ErrorKind, "%v: %s", tc.args, res.Content)
		require.Contains(t, res.Content, tc.says)
	}

	res, d := searchFor(t, reg, map[string]any{"query": "no such text anywhere"})
	require.False(t, res.Failed(), "no match is an answer, not a failure")
	require.Contains(t, res.Content, "No matches")
	require.Empty(t, d.Files)
}

func TestSearchWorkspaceCancelled(t *testing.T) {
	t.Parallel()
	reg := newSearchRegistry(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := reg.Execute(ctx, "search_workspace", map[string]any{"query": "Load"}, nil)
	require.NoError(t, err)
	require.Equal(t, ErrCancelled, res.ErrorKind)
}
