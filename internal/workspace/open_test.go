package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestInspectAcceptsFolder(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "My Project")
	require.NoError(t, os.Mkdir(dir, 0o755))
	want := Info{Path: dir, Name: "My Project"}

	for _, input := range []string{
		dir,
		"  " + dir + "/ \n",
		dir + "/sub/..",
		"file://" + strings.ReplaceAll(dir, " ", "%20"),
		"file://localhost" + strings.ReplaceAll(dir, " ", "%20") + "/",
	} {
		got, err := Inspect(input)
		require.NoError(t, err, input)
		require.Equal(t, want, got, input)
	}
}

func TestInspectKeepsSymlinkThePersonChose(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	real := filepath.Join(base, "real")
	require.NoError(t, os.Mkdir(real, 0o755))
	link := filepath.Join(base, "shortcut")
	require.NoError(t, os.Symlink(real, link))

	got, err := Inspect(link)
	require.NoError(t, err)
	require.Equal(t, Info{Path: link, Name: "shortcut"}, got)
}

func TestInspectOpensFolderOfOnlyIgnoredFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, ".gitignore", "*\n")
	write(t, dir, "a.log", "x")

	_, err := Inspect(dir)
	require.NoError(t, err)
}

func TestInspectErrors(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	write(t, base, "notes.txt", "hi")
	require.NoError(t, os.Symlink("loop-b", filepath.Join(base, "loop-a")))
	require.NoError(t, os.Symlink("loop-a", filepath.Join(base, "loop-b")))

	cases := []struct {
		input string
		kind  error
		msg   string
	}{
		{"", ErrNotFound, "No folder was given. Choose a project folder."},
		{"  \t", ErrNotFound, "No folder was given. Choose a project folder."},
		{base + "/missing", ErrNotFound, `"` + base + `/missing" does not exist (was it moved or deleted?)`},
		{base + "/notes.txt/sub", ErrNotFound, `"` + base + `/notes.txt/sub" does not exist (was it moved or deleted?)`},
		{base + "/notes.txt", ErrNotDir,
			`"` + base + `/notes.txt" is a file, not a folder. Open the project folder that contains it ("` + base + `").`},
		{base + "/loop-a", ErrUnreadable, `Gantry cannot read "` + base + `/loop-a": too many levels of symbolic links.`},
		{"/", ErrTooBroad, `"/" is the top of the file system, which is too broad to be a project. Choose a project folder inside it.`},
		{"file:///", ErrTooBroad, `"/" is the top of the file system, which is too broad to be a project. Choose a project folder inside it.`},
	}
	for _, c := range cases {
		_, err := Inspect(c.input)
		requireKind(t, err, c.kind)
		require.EqualError(t, err, c.msg, "input %q", c.input)
	}
}

func TestInspectUnreadableFolder(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root reads any folder; the wording is covered by TestFSErrorWording")
	}
	dir := filepath.Join(t.TempDir(), "locked")
	require.NoError(t, os.Mkdir(dir, 0o000))
	t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })

	_, err := Inspect(dir)
	requireKind(t, err, ErrUnreadable)
	require.EqualError(t, err, `Gantry cannot read "`+dir+`": permission denied.`)
}

// Not parallel: these change HOME and the working directory for the whole process.
func TestInspectHomeAndRelativePaths(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	require.NoError(t, os.Mkdir(filepath.Join(home, "proj"), 0o755))

	got, err := Inspect("~/proj")
	require.NoError(t, err)
	require.Equal(t, Info{Path: filepath.Join(home, "proj"), Name: "proj"}, got)

	for _, input := range []string{"~", "~/", home, home + "/proj/.."} {
		_, err := Inspect(input)
		requireKind(t, err, ErrTooBroad)
		require.EqualError(t, err,
			`"`+home+`" is your home folder, which is too broad to be a project. Choose a project folder inside it.`, input)
	}

	t.Chdir(home)
	got, err = Inspect("proj")
	require.NoError(t, err)
	require.Equal(t, filepath.Join(home, "proj"), got.Path)
}

func TestFromDrop(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir := filepath.Join(base, "app")
	require.NoError(t, os.Mkdir(dir, 0o755))
	write(t, base, "notes.txt", "hi")

	got, err := FromDrop([]string{dir})
	require.NoError(t, err)
	require.Equal(t, Info{Path: dir, Name: "app"}, got)

	got, err = FromDrop([]string{"", "file://" + dir + "\r\n"})
	require.NoError(t, err)
	require.Equal(t, Info{Path: dir, Name: "app"}, got)

	_, err = FromDrop([]string{base + "/notes.txt"})
	requireKind(t, err, ErrNotDir)
	require.EqualError(t, err,
		`"`+base+`/notes.txt" is a file, not a folder. Drop the project folder that contains it ("`+base+`").`)

	_, err = FromDrop([]string{base + "/gone"})
	requireKind(t, err, ErrNotFound)

	for _, paths := range [][]string{nil, {}, {"", "  "}} {
		_, err = FromDrop(paths)
		requireKind(t, err, ErrNothingDropped)
		require.EqualError(t, err, "Nothing usable was dropped. Drop a single project folder.")
	}

	_, err = FromDrop([]string{dir, base + "/notes.txt", base})
	requireKind(t, err, ErrSeveralDropped)
	require.EqualError(t, err, "You dropped 3 items. Drop a single project folder.")
}

// write creates rel (slash path) under root with content, making parent folders as needed.
func write(t *testing.T, root, rel, content string) {
	t.Helper()
	full := filepath.Join(root, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
	require.NoError(t, os.WriteFile(full, []byte(content), 0o644))
}
