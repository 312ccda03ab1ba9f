package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// pathFixture is a small workspace "myproj" next to an "outside" folder, with links from the
// workspace that stay inside, lead out at various depths, dangle, and loop.
type pathFixture struct {
	dir     string // holds everything below
	root    string // dir/myproj, no links on the way
	outside string // dir/outside
	link    string // dir/rootlink, a link to root
}

func newPathFixture(tb testing.TB) pathFixture {
	tb.Helper()
	dir, err := filepath.EvalSymlinks(tb.TempDir())
	require.NoError(tb, err)
	fx := pathFixture{
		dir:     dir,
		root:    filepath.Join(dir, "myproj"),
		outside: filepath.Join(dir, "outside"),
		link:    filepath.Join(dir, "rootlink"),
	}
	for _, d := range []string{"myproj/src/inner", "outside/sub"} {
		require.NoError(tb, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	for _, f := range []string{"myproj/src/a.go", "myproj/src/inner/b.go", "myproj/README.md",
		"myproj/~foo", `myproj/a\b`, "outside/secret.txt"} {
		require.NoError(tb, os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644))
	}
	links := map[string]string{
		"rootlink":               "myproj",
		"outside/toproj":         "../myproj/src",
		"myproj/in":              "src",
		"myproj/inabs":           fx.root + "/src",
		"myproj/back":            "../myproj/src",
		"myproj/dot":             ".",
		"myproj/dangle_in":       "src/missing.go",
		"myproj/out":             "../outside",
		"myproj/outabs":          fx.outside,
		"myproj/outfile":         "../outside/secret.txt",
		"myproj/chain":           "out",
		"myproj/up":              "..",
		"myproj/src/deepout":     "../../outside",
		"myproj/src/inner/deep":  "../../../outside/sub",
		"myproj/dangle_out":      "../outside/missing.txt",
		"myproj/dangle_outdir":   "../nowhere/missing.txt",
		"myproj/via_missing":     "missing/../../outside",
		"myproj/loop1":           "loop2",
		"myproj/loop2":           "loop1",
		"myproj/self":            "self",
		"myproj/src/inner/upout": "../../../outside/../myproj/src",
	}
	for name, target := range links {
		require.NoError(tb, os.Symlink(target, filepath.Join(dir, name)))
	}
	return fx
}

// requireResolves checks ResolveWorkspacePath and WorkspaceRoot.Resolve, which must agree.
func requireResolves(t *testing.T, root, p, want string) {
	t.Helper()
	got, err := ResolveWorkspacePath(root, p)
	require.NoError(t, err)
	require.Equal(t, want, got)
	got, err = NewWorkspaceRoot(root).Resolve(p)
	require.NoError(t, err)
	require.Equal(t, want, got)

	// Stat says of the file what os.Stat says, links followed, missing files included.
	got, fi, err := NewWorkspaceRoot(root).Stat(p)
	require.Equal(t, want, got)
	osFi, osErr := os.Stat(want)
	if osErr != nil {
		require.EqualError(t, err, osErr.Error())
		return
	}
	require.NoError(t, err)
	require.True(t, os.SameFile(osFi, fi), "%s: Stat and os.Stat disagree", p)
	require.Equal(t, osFi.Mode(), fi.Mode())
	require.Equal(t, osFi.ModTime(), fi.ModTime())
}

// requireRefused checks that ResolveWorkspacePath and WorkspaceRoot.Resolve both refuse p with
// the same error, and returns it.
func requireRefused(t *testing.T, root, p string) error {
	t.Helper()
	got, err := ResolveWorkspacePath(root, p)
	require.Error(t, err)
	require.Empty(t, got)
	got, rootErr := NewWorkspaceRoot(root).Resolve(p)
	require.Empty(t, got)
	require.Equal(t, err, rootErr)
	got, fi, statErr := NewWorkspaceRoot(root).Stat(p)
	require.Empty(t, got)
	require.Nil(t, fi)
	require.Equal(t, err, statErr)
	return err
}

func TestResolveWorkspacePath(t *testing.T) {
	t.Parallel()
	fx := newPathFixture(t)
	root, dir := fx.root, fx.dir
	climb := strings.Repeat("../", strings.Count(root, "/"))

	accepted := []struct {
		name, p, want string // want is relative to root
	}{
		{"dot is the root", ".", "."},
		{"dot slash is the root", "./", "."},
		{"dotdot that stays inside", "src/..", "."},
		{"plain file", "src/a.go", "src/a.go"},
		{"dot slash prefix", "./src/a.go", "src/a.go"},
		{"doubled slashes", "src//a.go", "src/a.go"},
		{"trailing slash", "src/", "src"},
		{"dotdot inside the path", "src/../README.md", "README.md"},
		{"new file", "src/new.go", "src/new.go"},
		{"new file in new folders", "newdir/x/y.go", "newdir/x/y.go"},
		{"absolute inside", root + "/src/a.go", "src/a.go"},
		{"absolute root", root, "."},
		{"absolute with dotdot that stays inside", root + "/src/../README.md", "README.md"},
		{"relative link inside", "in/a.go", "in/a.go"},
		{"absolute link inside", "inabs/a.go", "inabs/a.go"},
		{"link out and back in", "back/a.go", "back/a.go"},
		{"link target climbs out and back in", "src/inner/upout/a.go", "src/inner/upout/a.go"},
		{"link to the root itself", "dot/src/a.go", "dot/src/a.go"},
		{"new file under a link inside", "in/new.go", "in/new.go"},
		{"dangling link inside", "dangle_in", "dangle_in"},
		{"file named with a tilde, as ./", "./~foo", "~foo"},
		{"tilde later in the path", "src/~x", "src/~x"},
		{"dollar is not expanded", "$HOME/x", "$HOME/x"},
		{"backslash name that exists", `a\b`, `a\b`},
		{"backslash separators", `src\a.go`, "src/a.go"},
		{"backslash separators, new file", `src\inner\new.go`, "src/inner/new.go"},
		{"drive-like name without separator", "C:foo", "C:foo"},
		{"folder-name prefix", "myproj/src/a.go", "src/a.go"},
		{"folder-name prefix, new file", "myproj/src/new.go", "src/new.go"},
		{"folder-name prefix after dot slash", "./myproj/README.md", "README.md"},
		{"folder name alone", "myproj", "."},
		{"folder-name prefix before only new names is kept", "myproj/newdir/x.go", "myproj/newdir/x.go"},
		{"folder-name prefix with backslashes", `myproj\src\a.go`, "src/a.go"},
		{"longest allowed path", strings.Repeat("a/", maxPathBytes/2-1) + "bb", strings.Repeat("a/", maxPathBytes/2-1) + "bb"},
	}
	for _, tc := range accepted {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			requireResolves(t, root, tc.p, filepath.Join(root, tc.want))
		})
	}

	refused := []struct {
		name, p string
		want    []string // substrings of the message
	}{
		{"empty", "", []string{"path is empty"}},
		{"dotdot", "..", []string{`".." is outside the workspace (it resolves to ` + dir + ")"}},
		{"dotdot to a sibling", "../outside/secret.txt",
			[]string{`"../outside/secret.txt" is outside the workspace (it resolves to ` + fx.outside + "/secret.txt)"}},
		{"dotdot to /etc/passwd", climb + "etc/passwd", []string{"is outside the workspace (it resolves to /etc/passwd)"}},
		{"dotdot climbing out mid-path", "src/../../x", []string{"is outside the workspace (it resolves to " + dir + "/x)"}},
		{"absolute elsewhere", "/etc/passwd", []string{`"/etc/passwd" is outside the workspace, whose root is ` + root}},
		{"absolute sibling", fx.outside + "/secret.txt", []string{"is outside the workspace"}},
		{"absolute dotdot out of the root", root + "/../outside", []string{"is outside the workspace"}},
		{"workspace-relative slash", "/myproj/src/a.go", []string{"give a path relative to the root"}},
		{"link out, first name", "out/secret.txt",
			[]string{`"out/secret.txt" is outside the workspace: "out" is a symbolic link to ` + fx.outside}},
		{"link out, final name", "out", []string{`"out" is a symbolic link to ` + fx.outside}},
		{"absolute link out", "outabs/secret.txt", []string{`"outabs" is a symbolic link to ` + fx.outside}},
		{"link out, second depth", "src/deepout/secret.txt", []string{`"src/deepout" is a symbolic link to ` + fx.outside}},
		{"link out, third depth", "src/inner/deep/x", []string{`"src/inner/deep" is a symbolic link to ` + fx.outside + "/sub"}},
		{"link to an outside file", "outfile", []string{`"outfile" is a symbolic link to ` + fx.outside + "/secret.txt"}},
		{"link to a link out", "chain/secret.txt", []string{`"chain" is a symbolic link to ` + fx.outside}},
		{"link to the parent", "up", []string{`"up" is a symbolic link to ` + dir}},
		{"link to the parent and back in", "up/myproj/src/a.go", []string{`"up" is a symbolic link to ` + dir}},
		{"link out and back in", "out/toproj/a.go", []string{`"out" is a symbolic link to ` + fx.outside}},
		{"new file under a link out", "out/new.txt", []string{`"out" is a symbolic link to ` + fx.outside}},
		{"new folders under a link out", "out/newdir/new.txt", []string{`"out" is a symbolic link to ` + fx.outside}},
		{"new file under a link out, via prefix", "myproj/out/new.txt", []string{`"out" is a symbolic link to ` + fx.outside}},
		{"link in via dot, then out", "dot/out/x", []string{`"dot/out" is a symbolic link to ` + fx.outside}},
		{"dangling link out", "dangle_out", []string{`"dangle_out" is a symbolic link to ` + fx.outside + "/missing.txt"}},
		{"dangling link out, missing folder", "dangle_outdir", []string{`"dangle_outdir" is a symbolic link to ` + dir + "/nowhere/missing.txt"}},
		{"dangling link climbing past a missing folder", "via_missing", []string{`"via_missing" is a symbolic link to ` + fx.outside}},
		{"link loop", "loop1", []string{`"loop1" cannot be used: "loop1" is a symbolic link that loops`}},
		{"link loop mid-path", "loop1/x", []string{`"loop1/x" cannot be used: "loop1" is a symbolic link that loops`}},
		{"link to itself", "self", []string{`"self" is a symbolic link that loops`}},
		{"NUL byte", "src/a\x00.go", []string{`"src/a\x00.go" contains a NUL byte`}},
		{"tilde", "~", []string{`"~" is a home-directory path, which is outside the workspace`}},
		{"tilde slash", "~/.ssh/id_rsa", []string{`"~/.ssh/id_rsa" is a home-directory path`}},
		{"tilde user", "~root/x", []string{`"~root/x" is a home-directory path`, `write "./~root/x"`}},
		{"tilde name that exists", "~foo", []string{`for a file named "~foo" inside the workspace, write "./~foo"`}},
		{"windows drive", `C:\Windows\system32`, []string{`"C:\Windows\system32" is a Windows drive path`}},
		{"windows drive, forward slashes", "c:/x", []string{`"c:/x" is a Windows drive path`}},
		{"UNC", `\\server\share\x`, []string{`"\\server\share\x" is a Windows network (UNC) path`}},
		{"backslash dotdot", `..\outside\secret.txt`,
			[]string{`"..\outside\secret.txt" is outside the workspace (it resolves to ` + fx.outside + "/secret.txt)"}},
		{"too long", strings.Repeat("a/", maxPathBytes/2) + "b", []string{"is too long (4097 bytes; the limit is 4096)"}},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := requireRefused(t, root, tc.p)
			for _, w := range tc.want {
				require.ErrorContains(t, err, w)
			}
		})
	}
}

func TestResolveWorkspacePathRootForms(t *testing.T) {
	t.Parallel()
	fx := newPathFixture(t)
	file := filepath.Join(fx.root, "README.md")

	cases := []struct {
		name, root, p, want string
	}{
		{"trailing slash", fx.root + "/", "src/a.go", filepath.Join(fx.root, "src/a.go")},
		{"trailing slash, the root itself", fx.root + "/", ".", fx.root},
		{"unclean root", fx.dir + "/./x/../myproj", "src/a.go", filepath.Join(fx.root, "src/a.go")},
		{"root via a link keeps the link", fx.link, "src/a.go", filepath.Join(fx.link, "src/a.go")},
		{"root via a link, absolute under the link", fx.link, fx.link + "/src/a.go", filepath.Join(fx.link, "src/a.go")},
		{"root via a link, absolute under the target", fx.link, fx.root + "/src/a.go", filepath.Join(fx.link, "src/a.go")},
		{"root via a link, link name as prefix", fx.link, "rootlink/src/a.go", filepath.Join(fx.link, "src/a.go")},
		{"root via a link, target name as prefix", fx.link, "myproj/src/a.go", filepath.Join(fx.link, "src/a.go")},
		{"root via a link, link inside", fx.link, "in/a.go", filepath.Join(fx.link, "in/a.go")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			requireResolves(t, tc.root, tc.p, tc.want)
		})
	}

	bad := []struct {
		name, root, p, want string
	}{
		{"root via a link, link out", fx.link, "out/secret.txt", `"out" is a symbolic link to ` + fx.outside},
		{"root via a link, dotdot", fx.link, "../outside", "is outside the workspace (it resolves to " + fx.outside + ")"},
		{"relative root", "myproj", "src/a.go", `workspace root "myproj" is not an absolute path`},
		{"missing root", filepath.Join(fx.dir, "gone"), "src/a.go", "workspace root"},
		{"file as root", file, "x", "is not a directory"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.ErrorContains(t, requireRefused(t, tc.root, tc.p), tc.want)
		})
	}
}

// A real folder named like the workspace must stay reachable, so the prefix is only dropped when
// the path cannot mean that folder.
func TestResolveWorkspacePathFolderPrefixWithSameNamedFolder(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "app")
	for _, f := range []string{"app/main.py", "src/a.go"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, f), nil, 0o644))
	}

	cases := []struct{ p, want string }{
		{"app/main.py", "app/main.py"},
		{"app/new.py", "app/new.py"},
		{"app", "app"},
		{"app/src/a.go", "src/a.go"},         // only the stripped form exists
		{"app/src/new.go", "app/src/new.go"}, // neither exists and "app" is a real folder
	}
	for _, tc := range cases {
		t.Run(tc.p, func(t *testing.T) {
			t.Parallel()
			requireResolves(t, root, tc.p, filepath.Join(root, tc.want))
		})
	}
}

// FuzzResolveWorkspacePath checks the confinement promise: whatever p is, the call does not panic,
// and an accepted path has every prefix, once its links are resolved, inside the real root.
// "@ROOT@", "@REAL@" and "@DIR@" in p stand for the root as given, the real root and the folder
// holding both, so absolute paths into the fixture can be fuzzed.
func FuzzResolveWorkspacePath(f *testing.F) {
	fx := newPathFixture(f)
	root := fx.link // given through a link, so the given and real roots differ
	expand := strings.NewReplacer("@ROOT@", root, "@REAL@", fx.root, "@DIR@", fx.dir)

	f.Fuzz(func(t *testing.T, p string) {
		got, err := ResolveWorkspacePath(root, expand.Replace(p))
		if err != nil {
			require.NotEmpty(t, err.Error())
			return
		}
		require.Equal(t, filepath.Clean(got), got)
		rel, ok := withinDir(root, got)
		require.True(t, ok, "%q is not under %q", got, root)
		prefix := root
		for name := range strings.SplitSeq(rel, "/") {
			prefix = filepath.Join(prefix, name)
			real, ok := resolveExisting(prefix, 0)
			require.True(t, ok, "%q: %q cannot be resolved", got, prefix)
			_, ok = withinDir(fx.root, real)
			require.True(t, ok, "%q: %q resolves to %q, outside %q", got, prefix, real, fx.root)
		}
	})
}

// resolveExisting is the fuzz test's own idea of where path leads: filepath.EvalSymlinks of its
// longest resolvable prefix with the rest appended, following a dangling link by hand.
func resolveExisting(path string, depth int) (string, bool) {
	if depth > maxLinkHops {
		return "", false
	}
	for q := path; ; q = filepath.Dir(q) {
		real, err := filepath.EvalSymlinks(q)
		if err != nil {
			continue
		}
		rest, err := filepath.Rel(q, path)
		if err != nil {
			return "", false
		}
		if rest == "." {
			return real, true
		}
		first, remaining, _ := strings.Cut(rest, "/")
		next := filepath.Join(real, first)
		if fi, err := os.Lstat(next); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(next)
			if err != nil {
				return "", false
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(real, target)
			}
			return resolveExisting(filepath.Join(target, remaining), depth+1)
		}
		return filepath.Join(real, rest), true
	}
}
