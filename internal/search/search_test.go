package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"gantry/internal/ignore"
)

// writeTree creates files (slash paths to content) under a new temporary root.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return root
}

func search(t *testing.T, root string, opts Options) Result {
	t.Helper()
	r, err := Search(context.Background(), ignore.New(root), opts)
	require.NoError(t, err)
	return r
}

// hits lists a result as "path:line" strings, in result order.
func hits(r Result) []string {
	var out []string
	for _, f := range r.Files {
		for _, m := range f.Matches {
			out = append(out, fmt.Sprintf("%s:%d", f.Path, m.Number))
		}
	}
	return out
}

func TestLiteral(t *testing.T) {
	root := writeTree(t, map[string]string{
		"a.go":     "package a\n\nfunc main() {}\n",
		"b/b.go":   "// func main\nvar x = 1\nfunc mainly() {}\n",
		"c.txt":    "nothing here\n",
		"dots.txt": "a.b\naxb\n",
	})
	r := search(t, root, Options{Pattern: "func main"})
	require.Equal(t, []string{"a.go:3", "b/b.go:1", "b/b.go:3"}, hits(r))
	require.Equal(t, "func main() {}", r.Files[0].Matches[0].Text)
	require.Equal(t, 3, r.Matches)
	require.Equal(t, 4, r.FilesSearched)
	require.False(t, r.Truncated)

	// Literal means literal: the dot is not a wildcard.
	require.Equal(t, []string{"dots.txt:1"}, hits(search(t, root, Options{Pattern: "a.b"})))
}

func TestRegex(t *testing.T) {
	root := writeTree(t, map[string]string{
		"x.go": strings.Join([]string{
			"func (r *Reader) Read(p []byte) (int, error) {", // 1
			"\treturn 0, nil",             // 2
			"}",                           // 3
			"type ReadCloser interface{}", // 4
			"// TODO: fix",                // 5
			"// todo later",               // 6
			"// FIXME",                    // 7
			"id := userID",                // 8
			"x := id",                     // 9
		}, "\n"),
	})
	for _, tc := range []struct {
		pattern string
		want    []int
	}{
		{`(?i)todo`, []int{5, 6}},
		{`TODO|FIXME`, []int{5, 7}},
		{`func.*Read`, []int{1}},
		{`^\s*return`, []int{2}},
		{`\bid\b`, []int{8, 9}},
		{`Read(Closer)?\b`, []int{1, 4}},
		{`^}$`, []int{3}},
		{`[A-Z]{4,}`, []int{5, 7}},
		{`(?i)t.do`, []int{5, 6}},
		{`x*`, []int{1, 2, 3, 4, 5, 6, 7, 8, 9}},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			var want []string
			for _, n := range tc.want {
				want = append(want, fmt.Sprintf("x.go:%d", n))
			}
			require.Equal(t, want, hits(search(t, root, Options{Pattern: tc.pattern, IsRegex: true})))
		})
	}
}

func TestCaseInsensitive(t *testing.T) {
	root := writeTree(t, map[string]string{
		"a.txt": "Hello World\nHELLO\nhello\nhelo\n",
		// Unicode case folding: the Kelvin sign folds with k, the long s with s.
		"b.txt": "\u212Aelvin\nmi\u017Fs\nÄPFEL\n",
	})
	r := search(t, root, Options{Pattern: "hello", CaseInsensitive: true})
	require.Equal(t, []string{"a.txt:1", "a.txt:2", "a.txt:3"}, hits(r))
	require.Equal(t, []string{"a.txt:1"}, hits(search(t, root, Options{Pattern: "Hello"})))

	for pattern, want := range map[string]string{"kelvin": "b.txt:1", "MISS": "b.txt:2", "äpfel": "b.txt:3"} {
		require.Equal(t, []string{want}, hits(search(t, root, Options{Pattern: pattern, CaseInsensitive: true})), pattern)
	}
	// The option and a regex combine.
	r = search(t, root, Options{Pattern: "^h.l+o$", IsRegex: true, CaseInsensitive: true})
	require.Equal(t, []string{"a.txt:2", "a.txt:3", "a.txt:4"}, hits(r))
}

func numbered(n int, match map[int]bool) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if match[i] {
			fmt.Fprintf(&b, "line %d MATCH\n", i)
		} else {
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}
	return b.String()
}

func lineNumbers(lines []Line) []int {
	var out []int
	for _, l := range lines {
		out = append(out, l.Number)
	}
	return out
}

func TestContextLines(t *testing.T) {
	root := writeTree(t, map[string]string{
		"f.txt": numbered(20, map[int]bool{1: true, 6: true, 8: true, 14: true, 20: true}),
	})
	r := search(t, root, Options{Pattern: "MATCH", ContextLines: 2})
	ms := r.Files[0].Matches
	require.Len(t, ms, 5)
	type want struct{ line, before, after []int }
	for i, w := range []want{
		{[]int{1}, nil, []int{2, 3}},      // file start: nothing before
		{[]int{6}, []int{4, 5}, []int{7}}, // after stops at the next match
		{[]int{8}, nil, []int{9, 10}},     // before already shown by line 6
		{[]int{14}, []int{12, 13}, []int{15, 16}},
		{[]int{20}, []int{18, 19}, nil}, // file end: nothing after
	} {
		require.Equal(t, w.line[0], ms[i].Number)
		require.Equal(t, w.before, lineNumbers(ms[i].Before), "before %d", ms[i].Number)
		require.Equal(t, w.after, lineNumbers(ms[i].After), "after %d", ms[i].Number)
	}
	require.Equal(t, "line 5", ms[1].Before[1].Text)

	// Context is capped.
	r = search(t, root, Options{Pattern: "line 15", ContextLines: 50})
	require.Equal(t, []int{5, 6, 7, 8, 9, 10, 11, 12, 13, 14}, lineNumbers(r.Files[0].Matches[0].Before))
}

func TestMaxResults(t *testing.T) {
	files := map[string]string{}
	for i := range 10 {
		files[fmt.Sprintf("f%02d.txt", i)] = strings.Repeat("hit\n", 5)
	}
	root := writeTree(t, files)

	r := search(t, root, Options{Pattern: "hit", MaxResults: 12})
	require.True(t, r.Truncated)
	require.Equal(t, 12, r.Matches)
	require.Equal(t, []string{"f00.txt", "f01.txt", "f02.txt"}, paths(r))
	require.Len(t, r.Files[2].Matches, 2)
	// Only the files up to the cut count as searched, so the numbers do not vary by run.
	require.Equal(t, 3, r.FilesSearched)

	r = search(t, root, Options{Pattern: "hit", MaxResults: 50})
	require.False(t, r.Truncated, "exactly the limit is not truncated")
	require.Equal(t, 50, r.Matches)

	r = search(t, root, Options{Pattern: "hit", MaxResults: 3})
	require.True(t, r.Truncated, "one file over the limit")
	require.Equal(t, []string{"f00.txt:1", "f00.txt:2", "f00.txt:3"}, hits(r))

	r = search(t, root, Options{Pattern: "hit"})
	require.Equal(t, 50, r.Matches, "default limit")
}

func paths(r Result) []string {
	var out []string
	for _, f := range r.Files {
		out = append(out, f.Path)
	}
	return out
}

func TestIncludeExclude(t *testing.T) {
	root := writeTree(t, map[string]string{
		"main.go":               "x\n",
		"main_test.go":          "x\n",
		"src/a.go":              "x\n",
		"src/b.ts":              "x\n",
		"src/testdata/t.go":     "x\n",
		"vendor/lib/v.go":       "x\n",
		"docs/readme.md":        "x\n",
		"docs/deep/nested/c.go": "x\n",
	})
	for _, tc := range []struct {
		name             string
		include, exclude []string
		want             []string
	}{
		{"no filter", nil, nil, []string{"docs/deep/nested/c.go", "docs/readme.md", "main.go", "main_test.go", "src/a.go", "src/b.ts", "src/testdata/t.go", "vendor/lib/v.go"}},
		{"name glob at any depth", []string{"*.go"}, nil, []string{"docs/deep/nested/c.go", "main.go", "main_test.go", "src/a.go", "src/testdata/t.go", "vendor/lib/v.go"}},
		{"path glob", []string{"src/**"}, nil, []string{"src/a.go", "src/b.ts", "src/testdata/t.go"}},
		{"anchored with ./", []string{"./src/*.go"}, nil, []string{"src/a.go"}},
		{"folder with a trailing slash", []string{"docs/"}, nil, []string{"docs/deep/nested/c.go", "docs/readme.md"}},
		{"several includes", []string{"*.md", "*.ts"}, nil, []string{"docs/readme.md", "src/b.ts"}},
		{"brace alternatives", []string{"**/*.{md,ts}"}, nil, []string{"docs/readme.md", "src/b.ts"}},
		{"exclude folder by name", []string{"*.go"}, []string{"vendor", "testdata"}, []string{"docs/deep/nested/c.go", "main.go", "main_test.go", "src/a.go"}},
		{"exclude folder glob", nil, []string{"docs/**", "**/testdata/**"}, []string{"main.go", "main_test.go", "src/a.go", "src/b.ts", "vendor/lib/v.go"}},
		{"exclude files", []string{"*.go"}, []string{"*_test.go", "vendor/**", "src/**", "docs/**"}, []string{"main.go"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := search(t, root, Options{Pattern: "x", Include: tc.include, Exclude: tc.exclude})
			require.Equal(t, tc.want, paths(r))
		})
	}

	_, err := Search(context.Background(), ignore.New(root), Options{Pattern: "x", Include: []string{"src/[a"}})
	require.ErrorContains(t, err, `invalid include glob "src/[a"`)
}

func TestPath(t *testing.T) {
	root := writeTree(t, map[string]string{
		".gitignore":    "build/\n",
		"a.txt":         "x\n",
		"src/b.txt":     "x\n",
		"src/c/d.txt":   "x\n",
		"build/out.txt": "x\n",
	})
	outside := writeTree(t, map[string]string{"secret.txt": "x\n"})
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "link")))

	require.Equal(t, []string{"src/b.txt", "src/c/d.txt"}, paths(search(t, root, Options{Pattern: "x", Path: "src"})))
	require.Equal(t, []string{"src/c/d.txt"}, paths(search(t, root, Options{Pattern: "x", Path: "src/c/"})))
	require.Equal(t, []string{"src/b.txt"}, paths(search(t, root, Options{Pattern: "x", Path: "src/b.txt"})))
	require.Equal(t, []string{"src/b.txt", "src/c/d.txt"}, paths(search(t, root, Options{Pattern: "x", Path: filepath.Join(root, "src")})))
	require.Len(t, search(t, root, Options{Pattern: "x", Path: "."}).Files, 3, "build/ is ignored")
	// Naming an ignored folder searches it.
	require.Equal(t, []string{"build/out.txt"}, paths(search(t, root, Options{Pattern: "x", Path: "build"})))

	for p, msg := range map[string]string{
		"../x":                               "outside the workspace",
		"src/../../x":                        "outside the workspace",
		filepath.Join(outside, "secret.txt"): "outside the workspace",
		"link":                               "outside the workspace through a symlink",
		"link/secret.txt":                    "outside the workspace through a symlink",
		"missing":                            "does not exist",
		".git":                               "never searched",
	} {
		_, err := Search(context.Background(), ignore.New(root), Options{Pattern: "x", Path: p})
		require.ErrorContains(t, err, msg, p)
	}
}

func TestGitignore(t *testing.T) {
	root := writeTree(t, map[string]string{
		".gitignore":           "*.log\n/dist/\n",
		"app.go":               "needle\n",
		"debug.log":            "needle\n",
		"dist/bundle.js":       "needle\n",
		"sub/.gitignore":       "gen/\n!keep.log\n",
		"sub/keep.log":         "needle\n",
		"sub/other.log":        "needle\n",
		"sub/gen/x.go":         "needle\n",
		"sub/code.go":          "needle\n",
		"sub/dist/ok.js":       "needle\n",
		".git/config":          "needle\n",
		".git/objects/ab/cd":   "needle\n",
		".github/workflow.yml": "needle\n",
	})
	r := search(t, root, Options{Pattern: "needle"})
	require.Equal(t, []string{".github/workflow.yml", "app.go", "sub/code.go", "sub/dist/ok.js", "sub/keep.log"}, paths(r))
}

func TestBinarySkipped(t *testing.T) {
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(0x80 + i*7%0x7f) // high bytes that do not form UTF-8
	}
	root := writeTree(t, map[string]string{
		"text.txt":   "needle\n",
		"nul.bin":    "needle\x00\x01\x02\n",
		"late.txt":   strings.Repeat("a\n", 5000) + "needle\x00\n", // NUL past the sniffed part
		"random.dat": "needle\n" + string(random),
		"latin1.txt": "caf\xe9 needle\nna\xefve\n",
	})
	r := search(t, root, Options{Pattern: "needle"})
	require.Equal(t, []string{"late.txt", "latin1.txt", "text.txt"}, paths(r))
	require.Equal(t, 2, r.SkippedBinary)
	require.Equal(t, 3, r.FilesSearched)
}

func TestSymlinksNotFollowed(t *testing.T) {
	root := writeTree(t, map[string]string{"real/a.txt": "needle\n"})
	outside := writeTree(t, map[string]string{"b.txt": "needle\n"})
	require.NoError(t, os.Symlink(filepath.Join(root, "real", "a.txt"), filepath.Join(root, "file-link.txt")))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "out")))
	require.NoError(t, os.Symlink(root, filepath.Join(root, "real", "loop")))
	require.NoError(t, os.Symlink("missing", filepath.Join(root, "dangling")))

	r := search(t, root, Options{Pattern: "needle"})
	require.Equal(t, []string{"real/a.txt"}, paths(r))
}

func TestPatternErrors(t *testing.T) {
	root := writeTree(t, map[string]string{"a.txt": "x\n"})
	for _, tc := range []struct {
		opts Options
		msg  []string
	}{
		{Options{Pattern: "func(", IsRegex: true}, []string{`invalid regex "func("`, "missing closing )", "isRegex=false", `\(`}},
		{Options{Pattern: `(?=x)`, IsRegex: true}, []string{"invalid or unsupported Perl syntax", "no lookahead"}},
		{Options{Pattern: ""}, []string{"empty"}},
		{Options{Pattern: "a\nb"}, []string{"line break"}},
		{Options{Pattern: `a\nb`, IsRegex: true}, []string{"line break"}},
	} {
		_, err := Search(context.Background(), ignore.New(root), tc.opts)
		require.Error(t, err, tc.opts.Pattern)
		for _, m := range tc.msg {
			require.Contains(t, err.Error(), m)
		}
	}
	// A literal search takes any text, special characters included.
	require.Empty(t, search(t, root, Options{Pattern: "func("}).Files)
}

func TestLongLinesAndCRLF(t *testing.T) {
	long := strings.Repeat("a", 5000) + "NEEDLE" + strings.Repeat("b", 5000)
	root := writeTree(t, map[string]string{
		"min.js":  "short\n" + long + "\n" + long + "\n",
		"dos.txt": "one\r\nneedle two\r\nthree\r\n",
	})
	r := search(t, root, Options{Pattern: "NEEDLE", ContextLines: 1})
	m := r.Files[0].Matches[0]
	require.Contains(t, m.Text, "NEEDLE")
	require.True(t, strings.HasPrefix(m.Text, "…a") && strings.HasSuffix(m.Text, "b…"), m.Text)
	require.LessOrEqual(t, len(m.Text), maxLineLen+2*len("…"))
	require.Equal(t, "short", m.Before[0].Text)

	r = search(t, root, Options{Pattern: "NEED.E", IsRegex: true})
	require.Contains(t, r.Files[0].Matches[0].Text, "NEEDLE", "the regex path finds where the match is too")

	r = search(t, root, Options{Pattern: `two$`, IsRegex: true, ContextLines: 1})
	require.Empty(t, r.Files, "like grep, $ does not match before a CR")
	r = search(t, root, Options{Pattern: "needle", ContextLines: 1})
	m = r.Files[0].Matches[0]
	require.Equal(t, "needle two", m.Text)
	require.Equal(t, []Line{{1, "one"}}, m.Before)
	require.Equal(t, []Line{{3, "three"}}, m.After)
}

// bigTree makes n files across nested folders, each with a match on its last line.
func bigTree(t *testing.T, n int) string {
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("d%d/e%d/f%03d.txt", i%7, i%3, i)] = strings.Repeat("filler line\n", i%50) + "needle\n"
	}
	return writeTree(t, files)
}

func TestDeterministic(t *testing.T) {
	root := bigTree(t, 600)
	first := search(t, root, Options{Pattern: "needle", MaxResults: 1000})
	require.Equal(t, 600, first.Matches)
	require.Len(t, first.Files, 600)
	for i := 1; i < len(first.Files); i++ {
		a, b := first.Files[i-1].Path, first.Files[i].Path
		// Walk order: a folder's files and subfolders in name order.
		require.Less(t, a, b)
	}
	truncated := search(t, root, Options{Pattern: "needle", MaxResults: 250})
	for range 10 {
		require.Equal(t, first, search(t, root, Options{Pattern: "needle", MaxResults: 1000}))
		require.Equal(t, truncated, search(t, root, Options{Pattern: "needle", MaxResults: 250}))
	}
	require.Equal(t, first.Files[:250], truncated.Files)
}

func TestCancellation(t *testing.T) {
	root := bigTree(t, 300)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Search(ctx, ignore.New(root), Options{Pattern: "needle"})
	require.ErrorIs(t, err, context.Canceled)

	// Every line is a candidate for this regexp ("x" is in "text"): searching the file takes
	// seconds, and the deadline comes during it (that the scan then stops is shown below).
	big := writeTree(t, map[string]string{"huge.txt": strings.Repeat("some text that will not match\n", 1_000_000)})
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = Search(ctx, ignore.New(big), Options{Pattern: `(\w+\s*)+x$`, IsRegex: true})
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

// cancelledAtSecondLook is a context that is cancelled from the second time its Err is asked
// on, and counts how often that is.
type cancelledAtSecondLook struct {
	context.Context
	looks int
}

func (c *cancelledAtSecondLook) Err() error {
	if c.looks++; c.looks >= 2 {
		return context.Canceled
	}
	return nil
}

func TestScanStopsMidwayWhenCancelled(t *testing.T) {
	t.Parallel()
	m, err := compile(Options{Pattern: `(\w+\s*)+x$`, IsRegex: true})
	require.NoError(t, err)
	// 100 looks' worth of candidate lines; the scan must stop at the look that sees the cancel.
	data := []byte(strings.Repeat("some text that will not match\n", 100*ctxCheckEvery))
	ctx := &cancelledAtSecondLook{Context: context.Background()}
	newScanner(m, Options{MaxResults: 10}).scan(ctx, data, 11)
	require.Equal(t, 2, ctx.looks)
}
