package diff

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/*/*.golden with the current output")

// golden compares got with testdata/<test>/<name>.golden, or writes it there with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", strings.Split(t.Name(), "/")[0], name+".golden")
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create it")
	require.Equal(t, string(want), got)
}

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

var cases = []struct {
	name     string
	old, new string
	stats    Stats
}{
	{"change in the middle", "a\nb\nc\nd\ne\nf\ng\nh\n", "a\nb\nc\nD\ne\nf\ng\nh\n", Stats{1, 1}},
	{"insert at start", "a\nb\nc\n", "x\ny\na\nb\nc\n", Stats{2, 0}},
	{"delete at end", numbered(1, 10), numbered(1, 7), Stats{0, 3}},
	{"create", "", "package main\n\nfunc main() {}\n", Stats{3, 0}},
	{"empty out", "one\ntwo\n", "", Stats{0, 2}},
	{"add final newline", "a\nb\nc", "a\nb\nc\n", Stats{1, 1}},
	{"remove final newline", "a\nb\nc\n", "a\nb\nc", Stats{1, 1}},
	{"change last line without newline", "a\nb\nc", "a\nb\nC", Stats{1, 1}},
	{"no newline on either side, append", "a\nb", "a\nb\nc", Stats{2, 1}},
	{"crlf", "one\r\ntwo\r\nthree\r\nfour\r\n", "one\r\ntwo\r\n3\r\nfour\r\n", Stats{1, 1}},
	{"crlf to lf", "one\r\ntwo\r\n", "one\ntwo\n", Stats{2, 2}},
	{"two far hunks", numbered(1, 30), strings.Replace(strings.Replace(numbered(1, 30), "line 3\n", "LINE 3\n", 1), "line 27\n", "", 1), Stats{1, 2}},
	{"close hunks merge", numbered(1, 20), strings.Replace(strings.Replace(numbered(1, 20), "line 5\n", "five\n", 1), "line 11\n", "eleven\n", 1), Stats{2, 2}},
	{"hunks just apart", numbered(1, 20), strings.Replace(strings.Replace(numbered(1, 20), "line 5\n", "five\n", 1), "line 12\n", "twelve\n", 1), Stats{2, 2}},
	{"replace block", numbered(1, 12), numbered(1, 4) + "x\ny\n" + numbered(9, 12), Stats{2, 4}},
	{"unicode", "ä\nö\nü\n", "ä\nß\nü\n", Stats{1, 1}},
	{"repeated line inserted", "func f() {\n\nb\n}\n", "func f() {\n\nb\nb\n}\n", Stats{1, 0}},
	{"blank line removed between blanks", "a\n\n\nb\n", "a\n\nb\n", Stats{0, 1}},
	{"insert function", "package p\n\nfunc a() {\n\treturn\n}\n", "package p\n\nfunc a() {\n\treturn\n}\n\nfunc b() {\n\treturn\n}\n", Stats{4, 0}},
}

// gnuUnified runs the real diff -u and returns its hunks (without the file headers).
func gnuUnified(t *testing.T, old, new string, context int) string {
	t.Helper()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	require.NoError(t, os.WriteFile(a, []byte(old), 0o644))
	require.NoError(t, os.WriteFile(b, []byte(new), 0o644))
	out, err := exec.Command("diff", fmt.Sprintf("-U%d", context), a, b).Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		err = nil // 1 means "differ"
	}
	require.NoError(t, err)
	return hunks(string(out))
}

func hunks(unified string) string {
	if i := strings.Index(unified, "@@"); i >= 0 {
		return unified[i:]
	}
	return unified
}

func TestUnifiedMatchesDiffU(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("diff"); err != nil {
		t.Skip("diff is not installed")
	}
	for _, c := range cases {
		for _, context := range []int{3, 1, 0} {
			t.Run(fmt.Sprintf("%s/U%d", c.name, context), func(t *testing.T) {
				t.Parallel()
				got := Unified("f.txt", c.old, c.new, context)
				require.True(t, strings.HasPrefix(got, "--- a/f.txt\n+++ b/f.txt\n@@ "), got)
				require.Equal(t, gnuUnified(t, c.old, c.new, context), hunks(got))
			})
		}
	}
}

const goFile = "package p\n\nimport \"fmt\"\n\nfunc Hello(name string) {\n\tfmt.Println(\"hello\", name)\n}\n\nfunc Bye() {\n\tfmt.Println(\"bye\")\n}\n"

// goldenCases are the shapes of change an approval card has to show right.
var goldenCases = []struct{ name, old, new string }{
	{"modify", goFile, strings.Replace(goFile, `"hello", name`, `"hello,", name+"!"`, 1)},
	{"add-at-start", goFile, "// Package p greets.\n" + goFile},
	{"add-at-end", goFile, goFile + "\nfunc Again() {\n\tHello(\"again\")\n}\n"},
	{"delete-all", goFile, ""},
	{"create-from-empty", "", goFile},
	{"crlf", strings.ReplaceAll(goFile, "\n", "\r\n"), strings.ReplaceAll(strings.Replace(goFile, "bye", "goodbye", 1), "\n", "\r\n")},
	{"crlf-to-lf", "one\r\ntwo\r\nthree\r\n", "one\ntwo\r\nthree\n"},
	{"no-final-newline-old", "a\nb\nc", "a\nb\nc\n"},
	{"no-final-newline-new", "a\nb\nc\n", "a\nb\nc"},
	{"no-final-newline-both", "a\nb\nc", "a\nB\nc"},
	{"no-final-newline-both-last-changed", "a\nb\nc", "a\nb\nC"},
	{"non-utf8", "caf\xe9\nna\xefve\n\xff\xfe raw\nend\n", "caf\xe9 cr\xe8me\nna\xefve\n\xff\xfe raw\nend \x80\n"},
}

func TestUnified(t *testing.T) {
	t.Parallel()
	_, errDiff := exec.LookPath("diff")
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := Unified("p/p.go", c.old, c.new, DefaultContext)
			golden(t, c.name, got)
			if errDiff == nil {
				require.Equal(t, gnuUnified(t, c.old, c.new, DefaultContext), hunks(got), "diff -u shows it differently")
			}
		})
	}
}

func TestCompute(t *testing.T) {
	t.Parallel()
	for _, c := range cases {
		require.Equal(t, c.stats, Compute(c.old, c.new), c.name)
	}
	require.Equal(t, Stats{}, Compute("same\n", "same\n"))
}

func TestUnifiedEqualIsEmpty(t *testing.T) {
	t.Parallel()
	require.Empty(t, Unified("f", "", "", 3))
	require.Empty(t, Unified("f", "a\nb", "a\nb", 3))
}

func TestUnifiedNegativeContextIsZero(t *testing.T) {
	t.Parallel()
	require.Equal(t, Unified("f", "a\nb\nc\n", "a\nB\nc\n", 0), Unified("f", "a\nb\nc\n", "a\nB\nc\n", -2))
}

func TestHugeChange(t *testing.T) {
	t.Parallel()
	const n = 500_000
	huge := numbered(1, n)
	require.Equal(t, Stats{Added: 1, Removed: n}, Compute(huge, "x\n"))
	got := Unified("f", "keep\n"+huge+"end\n", "keep\nx\nend\n", 1)
	require.True(t, strings.HasPrefix(hunks(got), fmt.Sprintf("@@ -1,%d +1,3 @@\n keep\n-line 1\n", n+2)), got[:200])
	require.True(t, strings.HasSuffix(got, "-line 500000\n+x\n end\n"))
}
