package tools

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func editList(pairs ...string) []any {
	var out []any
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, map[string]any{"old": pairs[i], "new": pairs[i+1]})
	}
	return out
}

const goSource = `package main

import "fmt"

func main() {
	fmt.Println("hello")
	for i := 0; i < 3; i++ {
		fmt.Println(i)
	}
}
`

func TestEditFileExact(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	f.put(t, "main.go", goSource)

	res := f.ok(t, "edit_file", map[string]any{"path": "main.go", "edits": editList(`fmt.Println("hello")`, `fmt.Println("hello, world")`+"\n\tfmt.Println(\"bye\")")})

	require.Equal(t, "Edited main.go (+2 −1).", res.Content)
	require.Equal(t, strings.Replace(goSource, `fmt.Println("hello")`, `fmt.Println("hello, world")`+"\n\tfmt.Println(\"bye\")", 1), f.get(t, "main.go"))
	d := res.Display.(DiffDisplay)
	require.Equal(t, 2, d.Added)
	require.Equal(t, 1, d.Removed)
	require.Contains(t, d.Diff, "@@ -3,7 +3,8 @@\n")
	require.Equal(t, [2]int{6, 7}, [2]int{d.FirstLine, d.LastLine}, "where the change is, for opening the file there")

	req := f.approver.requests[0]
	require.Equal(t, goSource, req.Before)
	require.Equal(t, f.get(t, "main.go"), req.After)
	require.Equal(t, []string{goSource}, f.checkpoints.seen)
}

func TestEditFileSingleOldNewForms(t *testing.T) {
	t.Parallel()
	for _, names := range [][2]string{{"old", "new"}, {"old_string", "new_string"}, {"oldText", "newText"}, {"old_str", "new_str"}} {
		f := newFileChangeFixture(t)
		f.put(t, "a.txt", "alpha\nbeta\ngamma\n")
		f.ok(t, "edit_file", map[string]any{"path": "a.txt", names[0]: "beta\n", names[1]: ""})
		require.Equal(t, "alpha\ngamma\n", f.get(t, "a.txt"), names)
	}

	// One edit given as an object, or as JSON text, instead of a list.
	f := newFileChangeFixture(t)
	f.put(t, "a.txt", "alpha\n")
	f.ok(t, "edit_file", map[string]any{"path": "a.txt", "edits": map[string]any{"old": "alpha", "new": "beta"}})
	f.ok(t, "edit_file", map[string]any{"path": "a.txt", "edits": `[{"old": "beta", "new": "gamma"}]`})
	require.Equal(t, "gamma\n", f.get(t, "a.txt"))
}

func TestEditFileEmptyFile(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	f.put(t, "empty.txt", "")
	res := f.call(t, "edit_file", map[string]any{"path": "empty.txt", "old": "x", "new": "y"})
	require.Equal(t, ErrFailed, res.ErrorKind)
	require.Contains(t, res.Content, "use write_file")
}

func TestEditFileArgumentMistakes(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	f.put(t, "a.txt", "alpha\nbeta\n")
	for _, c := range []struct {
		args map[string]any
		msg  string
	}{
		{map[string]any{"path": "a.txt"}, "edits is missing"},
		{map[string]any{"path": "a.txt", "edits": []any{}}, "edits is missing"},
		{map[string]any{"path": "a.txt", "old": "alpha"}, `"new" is missing`},
		{map[string]any{"path": "a.txt", "new_string": "alpha"}, `"old" is missing`},
		{map[string]any{"path": "a.txt", "edits": editList("", "x")}, "old is empty"},
		{map[string]any{"path": "a.txt", "edits": editList("alpha", "a", "", "x")}, "Edit 2 of 2: old is empty"},
		{map[string]any{"path": "a.txt", "old_string": 5, "new": "x"}, "must be a string"},
	} {
		res := f.call(t, "edit_file", c.args)
		require.Equal(t, ErrInvalidArguments, res.ErrorKind, c.args)
		require.Contains(t, res.Content, c.msg, c.args)
	}
	require.Equal(t, "alpha\nbeta\n", f.get(t, "a.txt"))
	require.Empty(t, f.approver.requests)
}

func TestEditFileMissingFile(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	f.put(t, "handler.go", "package x\n")
	res := f.call(t, "edit_file", map[string]any{"path": "handlr.go", "old": "a", "new": "b"})
	require.Equal(t, ErrNotFound, res.ErrorKind)
	require.Contains(t, res.Content, "handler.go")
	require.Contains(t, res.Content, "use write_file")
	require.NoFileExists(t, f.path("handlr.go"))
}

func TestEditFileWhitespaceTolerant(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	f.put(t, "main.go", goSource)
	// Spaces where the file has tabs, and no indentation on the first line.
	old := "for i := 0; i < 3; i++ {\n    fmt.Println(i)\n}"
	new := "for i := 0; i < 5; i++ {\n    if i%2 == 0 {\n        fmt.Println(i)\n    }\n}"

	res := f.ok(t, "edit_file", map[string]any{"path": "main.go", "old": old, "new": new})

	require.Contains(t, res.Content, "matched only with whitespace ignored")
	want := strings.Replace(goSource, "\tfor i := 0; i < 3; i++ {\n\t\tfmt.Println(i)\n\t}",
		"\tfor i := 0; i < 5; i++ {\n\t\tif i%2 == 0 {\n\t\t\tfmt.Println(i)\n\t\t}\n\t}", 1)
	require.Equal(t, want, f.get(t, "main.go"))
}

func TestEditFileTrailingSpacesAndCollapsedRuns(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	f.put(t, "conf.py", "def f():  \n    x  =  1   \n    return x\n")
	f.ok(t, "edit_file", map[string]any{"path": "conf.py", "edits": editList("def f():\n    x = 1\n", "def f():\n    x = 2\n")})
	require.Equal(t, "def f():\n    x = 2\n    return x\n", f.get(t, "conf.py"))
}

func TestEditFileMultipleEditsInOrder(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	f.put(t, "a.txt", "one\ntwo\nthree\n")
	res := f.ok(t, "edit_file", map[string]any{"path": "a.txt", "edits": editList("one", "1", "three", "3", "1\ntwo", "1\n2")})
	require.Equal(t, "1\n2\n3\n", f.get(t, "a.txt"))
	require.Equal(t, "Edited a.txt (+3 −3).", res.Content)
	require.Len(t, f.approver.requests, 1)
}

func TestEditFileAllOrNothing(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	f.put(t, "a.txt", "one\ntwo\nthree\n")
	res := f.call(t, "edit_file", map[string]any{"path": "a.txt", "edits": editList("one", "1", "four", "4")})
	require.Equal(t, ErrFailed, res.ErrorKind)
	require.True(t, strings.HasPrefix(res.Content, "Edit 2 of 2: old was not found"), res.Content)
	require.Contains(t, res.Content, "No edit was applied, so a.txt is unchanged.")
	require.Equal(t, "one\ntwo\nthree\n", f.get(t, "a.txt"))
	require.Empty(t, f.approver.requests)
	require.Empty(t, f.checkpoints.calls)
}

func TestEditFileAmbiguous(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	f.put(t, "a.go", "x := 1\nreturn x\n\ny := 2\nreturn x\n\nz := 3\nreturn x\n")

	res := f.call(t, "edit_file", map[string]any{"path": "a.go", "old": "return x", "new": "return y"})
	require.Equal(t, ErrFailed, res.ErrorKind)
	require.Contains(t, res.Content, "old matches 3 places (lines 2, 5, 8); include more of the surrounding lines")

	// Only whitespace-tolerant matches, and several of them.
	res = f.call(t, "edit_file", map[string]any{"path": "a.go", "old": "  return x  \n", "new": "return y\n"})
	require.Equal(t, ErrFailed, res.ErrorKind)
	require.Contains(t, res.Content, "ignoring whitespace, it matches 3 places (lines 2, 5, 8)")

	f.ok(t, "edit_file", map[string]any{"path": "a.go", "old": "y := 2\nreturn x", "new": "y := 2\nreturn y"})
	require.Equal(t, "x := 1\nreturn x\n\ny := 2\nreturn y\n\nz := 3\nreturn x\n", f.get(t, "a.go"))
}

func TestEditFileNotFoundShowsTheClosestLines(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	var b strings.Builder
	for i := 1; i <= 40; i++ {
		switch i {
		case 20:
			b.WriteString("func total(items []Item) int {\n")
		case 21:
			b.WriteString("\tsum := 0\n")
		case 22:
			b.WriteString("\tfor _, it := range items {\n")
		default:
			b.WriteString("// filler " + strings.Repeat("z", i) + "\n")
		}
	}
	f.put(t, "calc.go", b.String())

	res := f.call(t, "edit_file", map[string]any{"path": "calc.go",
		"old": "func total(items []Item) int {\n\tsum := 0\n\tfor _, item := range items {", "new": "x"})

	require.Equal(t, ErrFailed, res.ErrorKind)
	require.Contains(t, res.Content, "old was not found, not even ignoring whitespace. The most similar text is at lines 20–22:\n")
	require.Contains(t, res.Content, "  18| // filler "+strings.Repeat("z", 18)+"\n  19| // filler ")
	require.Contains(t, res.Content, "  20| func total(items []Item) int {\n  21| \tsum := 0\n  22| \tfor _, it := range items {\n  23| ")
	require.NotContains(t, res.Content, "  17| ")
	require.NotContains(t, res.Content, "  25| ")

	res = f.call(t, "edit_file", map[string]any{"path": "calc.go", "old": "SELECT * FROM users;", "new": "x"})
	require.Equal(t, ErrFailed, res.ErrorKind)
	require.Contains(t, res.Content, "nothing in the file resembles it")
}

func TestEditFileKeepsCRLF(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	f.put(t, "win.txt", "one\r\ntwo\r\nthree\r\n")
	f.ok(t, "edit_file", map[string]any{"path": "win.txt", "edits": editList("one\ntwo\n", "one\n2\n2.5\n")})
	require.Equal(t, "one\r\n2\r\n2.5\r\nthree\r\n", f.get(t, "win.txt"))

	// Whitespace-tolerant matching in a CRLF file too.
	f.ok(t, "edit_file", map[string]any{"path": "win.txt", "edits": editList("  2.5\n three", "2.75\nthree")})
	require.Equal(t, "one\r\n2\r\n2.75\r\nthree\r\n", f.get(t, "win.txt"))
}

func TestEditFileKeepsAMissingFinalNewline(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	f.put(t, "a.txt", "one\ntwo")
	f.ok(t, "edit_file", map[string]any{"path": "a.txt", "old": "two", "new": "2"})
	require.Equal(t, "one\n2", f.get(t, "a.txt"))

	// old and new end with a line break the file's last line does not have.
	f.ok(t, "edit_file", map[string]any{"path": "a.txt", "old": "  2\n", "new": "two\n"})
	require.Equal(t, "one\ntwo", f.get(t, "a.txt"))
}

func TestEditFileLineNumbersCopiedFromReadFile(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	f.put(t, "a.py", "def f():\n    return 1\n\nprint(f())\n")
	res := f.ok(t, "edit_file", map[string]any{"path": "a.py", "old": "1| def f():\n2|     return 1", "new": "1| def f():\n2|     return 2"})
	require.Equal(t, "def f():\n    return 2\n\nprint(f())\n", f.get(t, "a.py"))
	require.Contains(t, res.Content, "line numbers")
}

func TestEditFileThatChangesNothing(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	f.put(t, "a.txt", "one\ntwo\n")
	res := f.call(t, "edit_file", map[string]any{"path": "a.txt", "old": "one", "new": "one"})
	require.Equal(t, ErrFailed, res.ErrorKind)
	require.Contains(t, res.Content, "changes nothing")
	require.Empty(t, f.approver.requests)
}

func TestEditFileDeniedLeavesTheFile(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	f.put(t, ".env", "A=1\n")
	f.approver.decide = func(EditApproval) Decision { return Decision{} }
	res := f.call(t, "edit_file", map[string]any{"path": ".env", "old": "A=1", "new": "A=2"})
	require.Equal(t, ErrDenied, res.ErrorKind)
	require.Equal(t, "A=1\n", f.get(t, ".env"))
	require.True(t, f.approver.requests[0].Sensitive)
	require.Equal(t, "A=2\n", f.approver.requests[0].After)
}

func TestReindentMapsLevels(t *testing.T) {
	t.Parallel()
	want := oldLines("if x {\n  y()\n}")
	matched := []string{"\tif x {", "\t\ty()", "\t}"}
	// The model indents by two spaces; the file by tabs. A deeper level than old had is
	// converted too.
	got := reindent("if x {\n  y()\n    z()\n\n}", want, matched)
	require.Equal(t, "\tif x {\n\t\ty()\n\t\t\tz()\n\n\t}", got)
}
