package workspace

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/ignore"
)

func TestListDirOrder(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, f := range []string{"b.txt", "A.txt", "a10.txt", "a2.txt", "_x", "file10", "file9", "Zeta/k", "alpha/k", "beta/k", "Beta2/k"} {
		write(t, root, f, "")
	}

	l, err := ListDir(ignore.New(root), "")
	require.NoError(t, err)
	require.Equal(t, []string{"alpha", "beta", "Beta2", "Zeta", "_x", "A.txt", "a2.txt", "a10.txt", "b.txt", "file9", "file10"}, names(l))
	require.Zero(t, l.Truncated)
}

func TestListDirEntries(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, "src/main.go", "package main\n")
	write(t, root, "src/pkg/a.go", "")

	m := ignore.New(root)
	l, err := ListDir(m, "")
	require.NoError(t, err)
	require.Equal(t, []Entry{{Name: "src", Path: "src", IsDir: true}}, l.Entries)

	l, err = ListDir(m, "src")
	require.NoError(t, err)
	require.Equal(t, []Entry{
		{Name: "pkg", Path: "src/pkg", IsDir: true},
		{Name: "main.go", Path: "src/main.go", Size: 13},
	}, l.Entries)

	l, err = ListDir(m, "src/pkg")
	require.NoError(t, err)
	require.Equal(t, []Entry{{Name: "a.go", Path: "src/pkg/a.go"}}, l.Entries)
}

func TestListDirHidesIgnoredAndGit(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, ".gitignore", "*.log\nbuild/\n")
	write(t, root, ".git/HEAD", "ref: refs/heads/main\n")
	write(t, root, ".git/info/exclude", "secret.txt\n")
	write(t, root, "a.log", "")
	write(t, root, "secret.txt", "")
	write(t, root, "build/out", "")
	write(t, root, "README.md", "")
	write(t, root, "src/.gitignore", "gen/\n!keep.log\n")
	write(t, root, "src/.git", "gitdir: elsewhere\n") // a submodule's .git file
	write(t, root, "src/gen/x.go", "")
	write(t, root, "src/keep.log", "")
	write(t, root, "src/drop.log", "")
	write(t, root, "src/main.go", "")
	write(t, root, "src/deep/build/y", "")
	write(t, root, "src/deep/z.go", "")

	m := ignore.New(root)
	l, err := ListDir(m, "")
	require.NoError(t, err)
	require.Equal(t, []string{"src", ".gitignore", "README.md"}, names(l))

	l, err = ListDir(m, "src")
	require.NoError(t, err)
	require.Equal(t, []string{"deep", ".gitignore", "keep.log", "main.go"}, names(l))

	l, err = ListDir(m, "src/deep")
	require.NoError(t, err)
	require.Equal(t, []string{"z.go"}, names(l))

	// Asking for an ignored folder directly shows nothing rather than its hidden content.
	l, err = ListDir(m, "build")
	require.NoError(t, err)
	require.Empty(t, l.Entries)
	l, err = ListDir(m, ".git")
	require.NoError(t, err)
	require.Empty(t, l.Entries)
}

func TestListDirOfOnlyIgnoredFilesIsEmptyArray(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, ".gitignore", "*\n")
	write(t, root, "a.log", "")

	l, err := ListDir(ignore.New(root), "")
	require.NoError(t, err)
	data, err := json.Marshal(l)
	require.NoError(t, err)
	require.JSONEq(t, `{"entries":[],"truncated":0}`, string(data))
}

func TestListDirCap(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, "dir1/k", "")
	write(t, root, "dir2/k", "")
	for i := range MaxEntries + 3 {
		write(t, root, fmt.Sprintf("f%05d", i), "")
	}

	l, err := ListDir(ignore.New(root), "")
	require.NoError(t, err)
	require.Len(t, l.Entries, MaxEntries)
	require.Equal(t, 5, l.Truncated)
	require.Equal(t, "dir1", l.Entries[0].Name, "folders survive the cap because they sort first")
	require.Equal(t, "dir2", l.Entries[1].Name)
	require.Equal(t, fmt.Sprintf("f%05d", MaxEntries-3), l.Entries[MaxEntries-1].Name)
}

func TestListDirPathChecks(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, "sub/a.txt", "")
	write(t, root, "file.txt", "")
	m := ignore.New(root)

	for _, rel := range []string{".", "./", "sub/..", "sub/../"} {
		l, err := ListDir(m, rel)
		require.NoError(t, err, rel)
		require.Equal(t, []string{"sub", "file.txt"}, names(l), rel)
	}
	l, err := ListDir(m, "sub/../sub/")
	require.NoError(t, err)
	require.Equal(t, []Entry{{Name: "a.txt", Path: "sub/a.txt"}}, l.Entries)

	for _, rel := range []string{"..", "../x", "sub/../..", "sub/../../" + filepath.Base(root), "/etc", root} {
		_, err := ListDir(m, rel)
		requireKind(t, err, ErrOutsideRoot)
		require.EqualError(t, err, `"`+rel+`" is outside the project folder "`+root+`".`)
	}

	_, err = ListDir(m, "missing")
	requireKind(t, err, ErrNotFound)
	require.EqualError(t, err, `"`+root+`/missing" does not exist (was it moved or deleted?)`)

	_, err = ListDir(m, "file.txt")
	requireKind(t, err, ErrNotDir)
	require.EqualError(t, err, `"`+root+`/file.txt" is a file, not a folder.`)

	_, err = ListDir(ignore.New(filepath.Join(root, "gone")), "")
	requireKind(t, err, ErrNotFound)
}

func TestListDirSymlinks(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	write(t, root, "real/inner.txt", "inner")
	write(t, outside, "secret.txt", "secret")
	for link, target := range map[string]string{
		"linkdir":  "real",
		"linkfile": "real/inner.txt",
		"out":      outside,
		"outfile":  filepath.Join(outside, "secret.txt"),
		"escape":   "../outside",
		"dangling": "nowhere",
	} {
		require.NoError(t, os.Symlink(target, filepath.Join(root, link)))
	}

	// The workspace itself may be reached through a link; that must not make every entry "outside".
	viaLink := filepath.Join(base, "rootlink")
	require.NoError(t, os.Symlink(root, viaLink))

	for _, r := range []string{root, viaLink} {
		m := ignore.New(r)
		l, err := ListDir(m, "")
		require.NoError(t, err)
		require.Equal(t, []Entry{
			{Name: "linkdir", Path: "linkdir", IsDir: true, Link: true},
			{Name: "real", Path: "real", IsDir: true},
			{Name: "dangling", Path: "dangling", Link: true},
			{Name: "escape", Path: "escape", Link: true},
			{Name: "linkfile", Path: "linkfile", Size: 5, Link: true},
			{Name: "out", Path: "out", Link: true},
			{Name: "outfile", Path: "outfile", Link: true},
		}, l.Entries)

		l, err = ListDir(m, "linkdir")
		require.NoError(t, err)
		require.Equal(t, []Entry{{Name: "inner.txt", Path: "linkdir/inner.txt", Size: 5}}, l.Entries)

		for _, rel := range []string{"out", "escape"} {
			_, err = ListDir(m, rel)
			requireKind(t, err, ErrOutsideRoot)
			require.EqualError(t, err, `"`+rel+`" leads outside the project folder "`+r+`", so Gantry does not open it.`)
		}

		_, err = ListDir(m, "dangling")
		requireKind(t, err, ErrNotFound)
	}
}

func TestListDirUnreadableFolder(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root reads any folder; the wording is covered by TestFSErrorWording")
	}
	root := t.TempDir()
	locked := filepath.Join(root, "locked")
	require.NoError(t, os.Mkdir(locked, 0o000))
	t.Cleanup(func() { _ = os.Chmod(locked, 0o755) })

	_, err := ListDir(ignore.New(root), "locked")
	requireKind(t, err, ErrUnreadable)
	require.EqualError(t, err, `Gantry cannot read "`+locked+`": permission denied.`)
}

func names(l Listing) []string {
	var out []string
	for _, e := range l.Entries {
		out = append(out, e.Name)
	}
	return out
}
