package ignore

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// gitCase is a small repository checked three ways: the hand-written expectation, what
// `git check-ignore` says, and what the Matcher says must all agree. Paths ending in "/"
// are directories; every listed path is created on disk.
type gitCase struct {
	name    string
	files   map[string]string // ignore files and other content, written after `git init`
	ignored []string
	kept    []string
}

var gitCases = []gitCase{
	{
		name:    "basename patterns match at any depth",
		files:   map[string]string{".gitignore": "*.log\nbuild/\ntmp\n"},
		ignored: []string{"a.log", "src/deep/b.log", "build/", "build/out.bin", "src/build/", "src/build/x", "tmp", "src/tmp/", "src/tmp/y"},
		kept:    []string{"a.txt", "src/", "src/deep/", "src/log", "lib/", "lib/build", "tmpx"},
	},
	{
		name:    "comments, blank lines and escapes",
		files:   map[string]string{".gitignore": "# a comment\n\n   \n\\#hash\n\\!bang\n #space-hash\n"},
		ignored: []string{"#hash", "!bang", " #space-hash"},
		kept:    []string{"# a comment", "hash", "bang", "#space-hash"},
	},
	{
		name:    "trailing spaces are trimmed unless escaped, tabs are kept",
		files:   map[string]string{".gitignore": "trail   \nescaped\\ \ntab\t\n"},
		ignored: []string{"trail", "escaped ", "tab\t"},
		kept:    []string{"trail ", "escaped", "tab"},
	},
	{
		name:    "negation: the last matching line wins",
		files:   map[string]string{".gitignore": "*.log\n!keep.log\n!important/*.log\nimportant/still.log\n"},
		ignored: []string{"a.log", "sub/a.log", "important/still.log"},
		kept:    []string{"keep.log", "sub/", "sub/keep.log", "important/", "important/b.log"},
	},
	{
		name:    "negation before the rule it would undo has no effect",
		files:   map[string]string{".gitignore": "!keep.log\n*.log\n"},
		ignored: []string{"keep.log", "a.log"},
		kept:    []string{"a.txt"},
	},
	{
		name:    "a file cannot be re-included when its directory is excluded",
		files:   map[string]string{".gitignore": "logs/\n!logs/keep.txt\n!keep-me.txt\n"},
		ignored: []string{"logs/", "logs/keep.txt", "logs/a.txt", "logs/deep/", "logs/deep/keep-me.txt"},
		kept:    []string{"keep-me.txt"},
	},
	{
		name:    "excluding the contents instead of the directory allows re-including",
		files:   map[string]string{".gitignore": "logs/*\n!logs/keep.txt\n"},
		ignored: []string{"logs/a.txt", "logs/sub/", "logs/sub/keep.txt"},
		kept:    []string{"logs/", "logs/keep.txt"},
	},
	{
		name:    "a leading or middle slash anchors to the .gitignore directory",
		files:   map[string]string{".gitignore": "/root.txt\ndoc/*.md\n/out/\n"},
		ignored: []string{"root.txt", "doc/a.md", "out/", "out/x"},
		kept:    []string{"sub/", "sub/root.txt", "sub/doc/", "sub/doc/a.md", "doc/sub/", "doc/sub/b.md", "sub/out/", "sub/out/x"},
	},
	{
		name:  "double star forms",
		files: map[string]string{".gitignore": "**/foo\nabc/**\na/**/b\n**/bar/baz\nm**n\n/x**y\n"},
		ignored: []string{
			"foo", "p/q/foo", "abc/x", "abc/d/", "abc/d/e", "a/b", "a/x/b", "a/x/y/b",
			"bar/baz", "q/bar/baz", "man", "mn", "sub/mxxn", "xzzy",
		},
		kept: []string{
			"abc/", "a/", "a/xb", "a/x/", "a/x/y/", "bar/", "bar/bazz", "q/", "q/bar/",
			"x/", "x/y", "xfoo", "p/", "p/q/", "sub/", "mx",
		},
	},
	{
		name:    "character classes and question marks",
		files:   map[string]string{".gitignore": "[a-c].txt\n[!x-z]?.dat\nfile[0-9][[:digit:]]\n[[:upper:]]*.up\n?.q\n*.[ch]\n"},
		ignored: []string{"a.txt", "c.txt", "ab.dat", "file12", "Abc.up", "z.q", "main.c", "main.h"},
		kept:    []string{"d.txt", "xa.dat", "a.dat", "filea1", "abc.up", "zz.q", "main.cc"},
	},
	{
		name:    "dir-only patterns skip files of the same name",
		files:   map[string]string{".gitignore": "cache/\nsrc/gen/\nlib/gen/\n"},
		ignored: []string{"cache/", "cache/x", "a/cache/", "src/gen/", "src/gen/y"},
		kept:    []string{"a/", "b/", "b/cache", "src/", "src/other/", "src/other/gen/", "src/other/gen/z", "lib/", "lib/gen"},
	},
	{
		name: "nested .gitignore files apply to their own subtree",
		files: map[string]string{
			".gitignore":             "*.tmp\n",
			"sub/.gitignore":         "!keep.tmp\n/local.txt\nnested/\ngen/out\n",
			"sub/deeper/.gitignore":  "*.txt\n",
			"other/.gitignore":       "# nothing here\n",
			"sub/deeper/keep.tmp":    "",
			"sub/deeper/local.txt":   "",
			"sub/deeper/a.txt":       "",
			"sub/nested/f":           "",
			"sub/x/local.txt":        "",
			"other/local.txt":        "",
			"gen/out":                "",
			"sub/gen/out":            "",
			"sub/y.tmp":              "",
			"sub/keep.tmp":           "",
			"sub/local.txt":          "",
			"keep.tmp":               "",
			"x.tmp":                  "",
			"local.txt":              "",
			"sub/deeper/sub2/b.txt":  "",
			"sub/deeper/sub2/c.tmp1": "",
		},
		ignored: []string{
			"x.tmp", "keep.tmp", "sub/y.tmp", "sub/local.txt", "sub/nested/", "sub/nested/f",
			"sub/gen/out", "sub/deeper/a.txt", "sub/deeper/local.txt", "sub/deeper/sub2/b.txt",
		},
		kept: []string{
			"sub/", "sub/keep.tmp", "sub/deeper/", "sub/deeper/keep.tmp", "local.txt", "other/",
			"other/local.txt", "sub/x/", "sub/x/local.txt", "gen/", "gen/out", "sub/gen/",
			"sub/deeper/sub2/", "sub/deeper/sub2/c.tmp1", "sub/.gitignore",
		},
	},
	{
		name: "a .gitignore inside an excluded directory is never read",
		files: map[string]string{
			".gitignore":        "vendor/\n",
			"vendor/.gitignore": "!*\n!lib/\n",
		},
		ignored: []string{"vendor/", "vendor/lib/", "vendor/lib/a.go", "vendor/.gitignore"},
		kept:    []string{"main.go", ".gitignore"},
	},
	{
		name: "info/exclude counts only where no .gitignore matched",
		files: map[string]string{
			".git/info/exclude": "secret\n*.bak\n",
			".gitignore":        "!keep.bak\n",
		},
		ignored: []string{"secret", "sub/secret", "a.bak"},
		kept:    []string{"keep.bak", "sub/"},
	},
	{
		name:    "CRLF line endings and a byte order mark",
		files:   map[string]string{".gitignore": "\ufeff*.o\r\n!keep.o\r\n\r\n"},
		ignored: []string{"a.o"},
		kept:    []string{"keep.o", "a.c"},
	},
}

func TestMatcherAgreesWithGit(t *testing.T) {
	t.Parallel()
	for _, c := range gitCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := newRepo(t, c.files, append(c.ignored, c.kept...))

			var all []string
			for _, p := range append(c.ignored, c.kept...) {
				all = append(all, strings.TrimSuffix(p, "/"))
			}
			byGit := gitIgnored(t, root, all)
			var want []string
			for _, p := range c.ignored {
				want = append(want, strings.TrimSuffix(p, "/"))
			}
			require.ElementsMatch(t, want, slices.Collect(maps.Keys(byGit)),
				"the case's expectation disagrees with git itself, which matched %v", byGit)

			m := New(root)
			for _, p := range append(c.ignored, c.kept...) {
				rel := strings.TrimSuffix(p, "/")
				_, ignoredByGit := byGit[rel]
				require.Equal(t, ignoredByGit, m.Ignored(rel, strings.HasSuffix(p, "/")), "path %q", p)
			}
		})
	}
}

func TestSymlinkedGitignoreIsNotFollowed(t *testing.T) {
	t.Parallel()
	root := newRepo(t, map[string]string{"rules": "*.sym\n"}, []string{"a.sym"})
	require.NoError(t, os.Symlink("rules", filepath.Join(root, ".gitignore")))

	require.Empty(t, gitIgnored(t, root, []string{"a.sym"}))
	require.False(t, New(root).Ignored("a.sym", false))
}

func TestInsideIgnoredDirectoryWithoutAskingAboutParents(t *testing.T) {
	t.Parallel()
	root := newRepo(t, map[string]string{".gitignore": "node_modules/\n!*.js\n"}, []string{"a/node_modules/pkg/index.js"})

	m := New(root)
	require.True(t, m.Ignored("a/node_modules/pkg/index.js", false))
	require.True(t, m.Ignored("a/node_modules/pkg", true))
	require.False(t, m.Ignored("a", true))
}

func TestGitDirectoryIsAlwaysIgnored(t *testing.T) {
	t.Parallel()
	root := newRepo(t, map[string]string{".gitignore": "!.git\n!.git/\n!*\n"}, []string{"sub/.git/HEAD", ".github/x", "x.git"})

	m := New(root)
	for _, p := range []string{".git", ".git/config", ".git/objects/ab", "sub/.git", "sub/.git/HEAD"} {
		require.True(t, m.Ignored(p, false), p)
		require.True(t, m.Ignored(p, true), p)
	}
	for _, p := range []string{".github", ".github/x", "x.git", ".gitignore", ".gitkeep"} {
		require.False(t, m.Ignored(p, false), p)
	}
}

func TestRootAndEmptyPath(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*\n"), 0o644))

	m := New(root + "/sub/..")
	require.Equal(t, root, m.Root())
	require.False(t, m.Ignored("", true), "the workspace itself is never ignored")
	require.True(t, m.Ignored("anything", false))
}

func TestWithoutGitRepository(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.log\n"), 0o644))

	m := New(root)
	require.True(t, m.Ignored("a.log", false))
	require.False(t, m.Ignored("a.txt", false))
}

// The Matcher caches what it read, so edits show up only in a new Matcher.
func TestRulesAreReadOnceAndCached(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	m := New(root)
	require.False(t, m.Ignored("a.log", false))

	require.NoError(t, os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.log\n"), 0o644))
	require.False(t, m.Ignored("a.log", false))
	require.True(t, New(root).Ignored("a.log", false))
}

func TestConcurrentUseGivesSerialAnswers(t *testing.T) {
	t.Parallel()
	var paths []string
	for i := range 20 {
		for _, f := range []string{"a.log", "keep.log", "b.txt", "build/x", "deep/er/c.tmp", "deep/er/d.go"} {
			paths = append(paths, fmt.Sprintf("d%d/%s", i, f))
		}
	}
	files := map[string]string{
		".gitignore":         "*.log\n!keep.log\nbuild/\n",
		"d3/.gitignore":      "*.txt\n",
		"d7/deep/.gitignore": "er/\n",
	}
	root := newRepo(t, files, paths)

	want := map[string]bool{}
	serial := New(root)
	for _, p := range paths {
		want[p] = serial.Ignored(p, false)
	}
	require.True(t, want["d3/b.txt"])
	require.True(t, want["d7/deep/er/d.go"])
	require.False(t, want["d1/keep.log"])

	shared := New(root)
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range paths {
				p := paths[(i+g*7)%len(paths)]
				if shared.Ignored(p, false) != want[p] {
					t.Errorf("concurrent answer for %q differs", p)
				}
			}
		})
	}
	wg.Wait()
}

// newRepo makes a git repository holding the given files (written after `git init`, so they
// may replace .git/info/exclude) and every listed path: "x/" as a directory, others as files.
func newRepo(t *testing.T, files map[string]string, paths []string) string {
	t.Helper()
	root := t.TempDir()
	git(t, root, nil, "init", "-q")
	for _, p := range paths {
		full := filepath.Join(root, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			require.NoError(t, os.MkdirAll(full, 0o755))
			continue
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, nil, 0o644))
	}
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(content), 0o644))
	}
	return root
}

// gitIgnored asks git which of paths it ignores, ignoring the index so only the ignore
// rules matter. The answer maps each ignored path to the rule that ignored it.
func gitIgnored(t *testing.T, root string, paths []string) map[string]string {
	t.Helper()
	stdin := strings.Join(paths, "\x00") + "\x00"
	out := git(t, root, []byte(stdin), "check-ignore", "--no-index", "--verbose", "--non-matching", "-z", "--stdin")

	// Each answer is four NUL-terminated fields: source, line number, pattern, path.
	fields := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	require.Len(t, fields, 4*len(paths), "unexpected check-ignore output %q", out)
	ignored := map[string]string{}
	for i := 0; i < len(fields); i += 4 {
		source, line, pattern, path := fields[i], fields[i+1], fields[i+2], fields[i+3]
		if source != "" && !strings.HasPrefix(pattern, "!") {
			ignored[path] = source + ":" + line + ":" + pattern
		}
	}
	return ignored
}

// git runs git isolated from the user's and system's configuration, whose global excludes
// file would otherwise leak into the answers.
func git(t *testing.T, dir string, stdin []byte, args ...string) string {
	t.Helper()
	_, err := exec.LookPath("git")
	require.NoError(t, err, "these tests compare against git, so git must be installed")

	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "HOME="+dir, "XDG_CONFIG_HOME="+dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	// check-ignore exits 1 when nothing at all is ignored; that is an answer, not a failure.
	if exit, ok := err.(*exec.ExitError); ok && exit.ExitCode() == 1 && args[0] == "check-ignore" {
		err = nil
	}
	require.NoError(t, err, "git %v: %s", args, stderr.String())
	return stdout.String()
}
