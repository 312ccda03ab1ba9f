package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// listedPaths is the part of a listing after its header line, one path a line.
func listedPaths(t *testing.T, res Result) []string {
	t.Helper()
	require.False(t, res.Failed(), res.Content)
	lines := strings.Split(strings.TrimSuffix(res.Content, "\n"), "\n")
	return lines[1:]
}

func newTreeFixture(t *testing.T) readFixture {
	t.Helper()
	f := newReadFixture(t, map[string]string{
		".gitignore":           "*.log\nbuild/\n",
		"README.md":            "# x\n",
		"main.go":              "package main\n",
		"debug.log":            "noise\n",
		"build/out.bin":        "bin",
		"src/app.go":           "package src\n",
		"src/app_test.go":      "package src\n",
		"src/.gitignore":       "secret.txt\n!keep.log\n",
		"src/secret.txt":       "s\n",
		"src/keep.log":         "kept\n",
		"src/util/strings.go":  "package util\n",
		"src/util/empty/":      "",
		"docs/guide.md":        "guide\n",
		"node_modules/x/a.js":  "",
		".git/HEAD":            "ref: refs/heads/main\n",
		".git/objects/ab/cdef": "",
	})
	writeFiles(t, f.root, map[string]string{".gitignore": "*.log\nbuild/\nnode_modules/\n"})
	return f
}

func TestListFilesTopLevel(t *testing.T) {
	t.Parallel()
	f := newTreeFixture(t)
	res := f.call(t, "list_files", map[string]any{}, nil)
	require.Equal(t, "Contents of the workspace root (5 entries):\ndocs/\nsrc/\n.gitignore\nmain.go\nREADME.md\n", res.Content)
	require.Equal(t, FileListDisplay{Kind: "files", Base: "", Entries: []FileListEntry{
		{Path: "docs", IsDir: true}, {Path: "src", IsDir: true},
		{Path: ".gitignore"}, {Path: "main.go"}, {Path: "README.md"},
	}}, res.Display)

	// "." and the folder-name prefix mean the root too.
	for _, p := range []string{".", "./", filepath.Base(f.root)} {
		require.Equal(t, res.Content, f.call(t, "list_files", map[string]any{"path": p}, nil).Content, p)
	}
}

func TestListFilesRecursiveRespectsNestedGitignore(t *testing.T) {
	t.Parallel()
	f := newTreeFixture(t)
	res := f.call(t, "list_files", map[string]any{"recursive": true}, nil)
	require.True(t, strings.HasPrefix(res.Content, "Contents of the workspace root and its subfolders (13 entries):\n"), res.Content)
	require.Equal(t, []string{
		"docs/", "docs/guide.md",
		"src/", "src/util/", "src/util/empty/", "src/util/strings.go",
		"src/.gitignore", "src/app.go", "src/app_test.go", "src/keep.log",
		".gitignore", "main.go", "README.md",
	}, listedPaths(t, res))
}

func TestListFilesSubfolderUsesWorkspacePaths(t *testing.T) {
	t.Parallel()
	f := newTreeFixture(t)
	res := f.call(t, "list_files", map[string]any{"path": "src"}, nil)
	require.Equal(t, "Contents of src/ (5 entries):\nsrc/util/\nsrc/.gitignore\nsrc/app.go\nsrc/app_test.go\nsrc/keep.log\n", res.Content)
	require.Equal(t, "src", res.Display.(FileListDisplay).Base)

	res = f.call(t, "list_files", map[string]any{"path": "src/util/empty"}, nil)
	require.False(t, res.Failed())
	require.Equal(t, "src/util/empty/ is empty.", res.Content)
	require.Equal(t, []FileListEntry{}, res.Display.(FileListDisplay).Entries)
}

func TestListFilesPattern(t *testing.T) {
	t.Parallel()
	f := newTreeFixture(t)

	// A pattern without "/" matches names, here only in the folder itself.
	res := f.call(t, "list_files", map[string]any{"pattern": "*.go"}, nil)
	require.Equal(t, "Entries in the workspace root matching \"*.go\" (1 entry):\nmain.go\n", res.Content)

	res = f.call(t, "list_files", map[string]any{"pattern": "*.go", "recursive": "true"}, nil)
	require.Equal(t, []string{"src/util/strings.go", "src/app.go", "src/app_test.go", "main.go"}, listedPaths(t, res))

	// A pattern with "/" implies going into subfolders, and may be relative to the listed
	// folder or to the root.
	for _, p := range []string{"**/*_test.go", "src/*_test.go"} {
		res = f.call(t, "list_files", map[string]any{"path": "src", "pattern": p}, nil)
		require.Equal(t, []string{"src/app_test.go"}, listedPaths(t, res), p)
	}

	res = f.call(t, "list_files", map[string]any{"pattern": "*.rs"}, nil)
	require.Equal(t, ErrFailed, res.ErrorKind)
	require.Contains(t, res.Content, "set recursive to true")

	res = f.call(t, "list_files", map[string]any{"pattern": "src/[a-"}, nil)
	require.Equal(t, ErrInvalidArguments, res.ErrorKind)
	require.Contains(t, res.Content, "not a valid glob")
}

func TestListFilesIgnoredFolderByName(t *testing.T) {
	t.Parallel()
	f := newTreeFixture(t)
	res := f.call(t, "list_files", map[string]any{"path": "build"}, nil)
	require.Equal(t, "Contents of build/ (1 entry):\nbuild/out.bin\n", res.Content)

	res = f.call(t, "list_files", map[string]any{"path": ".git"}, nil)
	require.Equal(t, ErrInvalidArguments, res.ErrorKind)
	require.Contains(t, res.Content, ".git")
}

func TestListFilesEverythingIgnored(t *testing.T) {
	t.Parallel()
	f := newReadFixture(t, map[string]string{".gitignore": "logs/*\n", "logs/a.txt": "", "logs/b.txt": ""})
	res := f.call(t, "list_files", map[string]any{"path": "logs"}, nil)
	require.False(t, res.Failed())
	require.Equal(t, "logs/ is empty. (2 entries are hidden by .gitignore.)", res.Content)
}

func TestListFilesSymlinks(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("s"), 0o644))
	f := newReadFixture(t, map[string]string{"real/a.txt": "a\n", "real/sub/b.txt": "b\n"})
	for link, target := range map[string]string{
		"alias.txt":  "real/a.txt",
		"mirror":     "real",
		"loop":       "loop",
		"gone":       "missing.txt",
		"escape":     outside,
		"escape.txt": filepath.Join(outside, "secret.txt"),
	} {
		require.NoError(t, os.Symlink(target, filepath.Join(f.root, link)))
	}

	res := f.call(t, "list_files", map[string]any{"recursive": true}, nil)
	require.Equal(t, []string{
		"mirror/ (symlink)", // listed, not followed
		"real/", "real/sub/", "real/sub/b.txt", "real/a.txt",
		"alias.txt (symlink)",
		"escape (symlink to outside the workspace; cannot be read)",
		"escape.txt (symlink to outside the workspace; cannot be read)",
		"gone (broken symlink)",
		"loop (broken symlink)",
	}, listedPaths(t, res))
	var links []FileListEntry
	for _, e := range res.Display.(FileListDisplay).Entries {
		if e.Link != "" {
			links = append(links, e)
		}
	}
	require.Equal(t, []FileListEntry{
		{Path: "mirror", IsDir: true, Link: "inside"},
		{Path: "alias.txt", Link: "inside"},
		{Path: "escape", Link: "outside"},
		{Path: "escape.txt", Link: "outside"},
		{Path: "gone", Link: "broken"},
		{Path: "loop", Link: "broken"},
	}, links)

	// The inside link can be listed by name; the outside one is refused.
	res = f.call(t, "list_files", map[string]any{"path": "mirror"}, nil)
	require.Equal(t, []string{"mirror/sub/", "mirror/a.txt"}, listedPaths(t, res))
	res = f.call(t, "list_files", map[string]any{"path": "escape"}, nil)
	require.Equal(t, ErrOutsideWorkspace, res.ErrorKind)
}

func TestListFilesCapKeepsTheTopLevels(t *testing.T) {
	t.Parallel()
	files := map[string]string{"top.txt": "", "zz/last.txt": ""}
	for i := range 600 {
		files[fmt.Sprintf("deep/f%03d.txt", i)] = ""
	}
	f := newReadFixture(t, files)
	res := f.call(t, "list_files", map[string]any{"recursive": true}, nil)
	require.True(t, strings.HasPrefix(res.Content, "Contents of the workspace root and its subfolders (604 entries; 500 shown):\n"), res.Content[:120])
	paths := listedPaths(t, res)
	require.Equal(t, "[104 more not shown. Use a narrower path or a pattern to see them.]", paths[len(paths)-1])
	// Breadth first: everything at the top is shown even though "deep" alone has 600 files.
	require.Contains(t, paths, "top.txt")
	require.Contains(t, paths, "zz/")
	d := res.Display.(FileListDisplay)
	require.Len(t, d.Entries, listMaxEntries)
	require.Equal(t, 104, d.More)
	require.False(t, d.MoreAtLeast)
}

func TestListFilesBadPaths(t *testing.T) {
	t.Parallel()
	f := newTreeFixture(t)
	res := f.call(t, "list_files", map[string]any{"path": "scr"}, nil)
	require.Equal(t, ErrNotFound, res.ErrorKind)
	require.Equal(t, `There is no folder "scr". Did you mean: src?`, res.Content)

	res = f.call(t, "list_files", map[string]any{"path": "main.go"}, nil)
	require.Equal(t, ErrInvalidArguments, res.ErrorKind)
	require.Equal(t, `"main.go" is a file, not a folder. Use read_file to read it.`, res.Content)

	for _, p := range []string{"..", "/etc", "src/../../x"} {
		res = f.call(t, "list_files", map[string]any{"path": p}, nil)
		require.Equal(t, ErrOutsideWorkspace, res.ErrorKind, p)
	}
}

func TestListFilesCancelled(t *testing.T) {
	t.Parallel()
	f := newTreeFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := f.reg.Execute(ctx, "list_files", map[string]any{"recursive": true}, nil)
	require.NoError(t, err)
	require.Equal(t, ErrCancelled, res.ErrorKind)
}

func TestListFilesSchema(t *testing.T) {
	t.Parallel()
	tool := ListFiles(&Env{Root: t.TempDir()})
	require.Equal(t, []string{"path", "recursive", "pattern"}, tool.Params().PropertyOrder)
	require.Empty(t, tool.Params().Required)
	require.Equal(t, KindRead, tool.Kind())
	require.Less(t, len(strings.Fields(tool.Description())), 80)
}
