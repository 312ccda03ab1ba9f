package tools

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGlobFindsFilesAtAnyDepth(t *testing.T) {
	t.Parallel()
	f := newTreeFixture(t)
	writeFiles(t, f.root, map[string]string{"build/gen_test.go": "", "node_modules/x/x_test.go": "", "a_test.go": ""})

	res := f.call(t, "glob", map[string]any{"pattern": "**/*_test.go"}, nil)
	require.Equal(t, "Paths in the workspace root matching \"**/*_test.go\" (2 entries):\nsrc/app_test.go\na_test.go\n", res.Content)
	require.Equal(t, FileListDisplay{Kind: "files", Entries: []FileListEntry{{Path: "src/app_test.go"}, {Path: "a_test.go"}}}, res.Display)

	// A bare name pattern matches at any depth, like the same pattern in .gitignore.
	res = f.call(t, "glob", map[string]any{"pattern": "*.go"}, nil)
	require.Equal(t, []string{"src/util/strings.go", "src/app.go", "src/app_test.go", "a_test.go", "main.go"}, listedPaths(t, res))

	res = f.call(t, "glob", map[string]any{"pattern": "src/**/*.{go,md}"}, nil)
	require.Equal(t, []string{"src/util/strings.go", "src/app.go", "src/app_test.go"}, listedPaths(t, res))

	// Folders match too, and end with "/".
	res = f.call(t, "glob", map[string]any{"pattern": "**/util"}, nil)
	require.Equal(t, []string{"src/util/"}, listedPaths(t, res))
}

func TestGlobUnderAFolder(t *testing.T) {
	t.Parallel()
	f := newTreeFixture(t)
	for _, args := range []map[string]any{
		{"pattern": "*.go", "path": "src/util"},
		{"pattern": "**/*.go", "path": "src/util"},
		{"pattern": "src/util/*.go", "path": "src/util"},
		{"pattern": "./src/util/*.go"},
		{"pattern": filepath.Join(f.root, "src/util") + "/*.go"},
	} {
		res := f.call(t, "glob", args, nil)
		require.Equal(t, []string{"src/util/strings.go"}, listedPaths(t, res), args)
	}
	res := f.call(t, "glob", map[string]any{"pattern": "*.go", "path": "src/util"}, nil)
	require.True(t, strings.HasPrefix(res.Content, `Paths in src/util/ matching "*.go" (1 entry):`), res.Content)
	require.Equal(t, "src/util", res.Display.(FileListDisplay).Base)

	// A folder pattern ending in "/" means everything in it.
	res = f.call(t, "glob", map[string]any{"pattern": "docs/"}, nil)
	require.Equal(t, []string{"docs/guide.md"}, listedPaths(t, res))
}

func TestGlobFailures(t *testing.T) {
	t.Parallel()
	f := newTreeFixture(t)
	res := f.call(t, "glob", map[string]any{"pattern": "**/*.rs"}, nil)
	require.Equal(t, ErrFailed, res.ErrorKind)
	require.Equal(t, `No files or folders in the workspace root match "**/*.rs". (4 entries are hidden by .gitignore.)`, res.Content)

	res = f.call(t, "glob", map[string]any{"pattern": "*.log", "path": "src"}, nil)
	require.Equal(t, []string{"src/keep.log"}, listedPaths(t, res))

	res = f.call(t, "glob", map[string]any{}, nil)
	require.Equal(t, ErrInvalidArguments, res.ErrorKind)
	require.Contains(t, res.Content, "pattern")

	res = f.call(t, "glob", map[string]any{"pattern": " "}, nil)
	require.Equal(t, ErrInvalidArguments, res.ErrorKind)

	res = f.call(t, "glob", map[string]any{"pattern": "{a,b"}, nil)
	require.Equal(t, ErrInvalidArguments, res.ErrorKind)

	res = f.call(t, "glob", map[string]any{"pattern": "*.go", "path": "../"}, nil)
	require.Equal(t, ErrOutsideWorkspace, res.ErrorKind)

	res = f.call(t, "glob", map[string]any{"pattern": "*.go", "path": "sorc"}, nil)
	require.Equal(t, ErrNotFound, res.ErrorKind)
}

func TestGlobCap(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 520 {
		files[fmt.Sprintf("d%d/f%03d.txt", i%4, i)] = ""
	}
	f := newReadFixture(t, files)
	res := f.call(t, "glob", map[string]any{"pattern": "**/*.txt"}, nil)
	require.True(t, strings.HasPrefix(res.Content, "Paths in the workspace root matching \"**/*.txt\" (520 entries; 500 shown):\n"))
	require.True(t, strings.HasSuffix(res.Content, "[20 more not shown. Use a narrower path or a pattern to see them.]\n"))
	require.Equal(t, 20, res.Display.(FileListDisplay).More)
}

func TestGlobSchema(t *testing.T) {
	t.Parallel()
	tool := Glob(&Env{Root: t.TempDir()})
	require.Equal(t, []string{"pattern", "path"}, tool.Params().PropertyOrder)
	require.Equal(t, []string{"pattern"}, tool.Params().Required)
	require.Equal(t, KindSearch, tool.Kind())
	require.Less(t, len(strings.Fields(tool.Description())), 80)
}
