package tools

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"gantry/internal/ignore"
)

// readFixture is a workspace with a registry holding the read-side tools.
type readFixture struct {
	root string
	env  *Env
	reg  *Registry
}

func newReadFixture(t *testing.T, files map[string]string) readFixture {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, root, files)
	env := &Env{Root: root, Ignore: ignore.New(root), Approver: PolicyApprover{}, Checkpoints: NoCheckpoints{}}
	reg := NewRegistry()
	for _, tool := range []Tool{ReadFile(env), ListFiles(env), Glob(env)} {
		require.NoError(t, reg.Register(tool))
	}
	return readFixture{root: root, env: env, reg: reg}
}

// writeFiles creates files (and their folders) under root; a name ending in "/" is an empty folder.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			require.NoError(t, os.MkdirAll(p, 0o755))
			continue
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

func (f readFixture) call(t *testing.T, tool string, args map[string]any, out Output) Result {
	t.Helper()
	res, err := f.reg.Execute(context.Background(), tool, args, out)
	require.NoError(t, err)
	return res
}

func (f readFixture) read(t *testing.T, path string) Result {
	t.Helper()
	return f.call(t, "read_file", map[string]any{"path": path}, nil)
}

// actionRecorder keeps the actions a call reported.
type actionRecorder struct {
	mu      sync.Mutex
	actions []Action
}

func (a *actionRecorder) Action(act Action) {
	a.mu.Lock()
	a.actions = append(a.actions, act)
	a.mu.Unlock()
}
func (a *actionRecorder) Stream([]byte) {}

func numberedLines(n int, format string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, format+"\n", i)
	}
	return b.String()
}

func TestReadFileChunksOfAHundredLines(t *testing.T) {
	t.Parallel()
	f := newReadFixture(t, map[string]string{"src/a.txt": numberedLines(250, "line %d")})
	rec := &actionRecorder{}
	res := f.call(t, "read_file", map[string]any{"path": "src/a.txt"}, rec)
	require.False(t, res.Failed(), res.Content)

	var want []Action
	for _, r := range [][2]int{{1, 100}, {101, 200}, {201, 250}} {
		want = append(want,
			Action{Title: "Reading a.txt", Path: "src/a.txt", StartLine: r[0], EndLine: r[1]},
			Action{Title: "Read a.txt", Path: "src/a.txt", StartLine: r[0], EndLine: r[1], Done: true})
	}
	require.Equal(t, want, rec.actions)

	lines := strings.Split(strings.TrimSuffix(res.Content, "\n"), "\n")
	require.Equal(t, "src/a.txt (250 lines):", lines[0])
	require.Equal(t, "  1| line 1", lines[1])
	require.Equal(t, "250| line 250", lines[250])
	require.Len(t, lines, 251, "no trailing notes for a whole file that ends in a newline")
	require.Equal(t, ReadFileDisplay{Kind: "file", Path: "src/a.txt", Lines: 250, TotalLines: 250}, res.Display)
}

func TestReadFileLineEndings(t *testing.T) {
	t.Parallel()
	f := newReadFixture(t, map[string]string{
		"crlf.txt":   "one\r\ntwo\r\nthree\r\n",
		"mixed.txt":  "one\r\ntwo\nthree\n",
		"no-eol.txt": "one\ntwo",
		"crlf-eol":   "one\r\ntwo",
		"one-line":   "x",
	})

	res := f.read(t, "crlf.txt")
	require.Equal(t, "crlf.txt (3 lines):\n(file uses CRLF line endings)\n1| one\n2| two\n3| three\n", res.Content)

	res = f.read(t, "mixed.txt")
	require.Contains(t, res.Content, "(file mixes CRLF and LF line endings)\n")
	require.NotContains(t, res.Content, "\r")

	res = f.read(t, "no-eol.txt")
	require.Equal(t, "no-eol.txt (2 lines):\n1| one\n2| two\n(no newline at end of file)\n", res.Content)

	res = f.read(t, "crlf-eol")
	require.Equal(t, "crlf-eol (2 lines):\n(file uses CRLF line endings)\n1| one\n2| two\n(no newline at end of file)\n", res.Content)

	res = f.read(t, "one-line")
	require.Equal(t, "one-line (1 line):\n1| x\n(no newline at end of file)\n", res.Content)
	require.Equal(t, 1, res.Display.(ReadFileDisplay).TotalLines)
}

func TestReadFileEmpty(t *testing.T) {
	t.Parallel()
	f := newReadFixture(t, map[string]string{"empty.go": ""})
	rec := &actionRecorder{}
	res := f.call(t, "read_file", map[string]any{"path": "empty.go"}, rec)
	require.False(t, res.Failed())
	require.Equal(t, `"empty.go" is empty (0 bytes).`, res.Content)
	require.Empty(t, rec.actions)
	require.Equal(t, ReadFileDisplay{Kind: "file", Path: "empty.go"}, res.Display)
}

func TestReadFileCapsLines(t *testing.T) {
	t.Parallel()
	f := newReadFixture(t, map[string]string{
		"long.txt":  numberedLines(2500, "%d"),
		"exact.txt": numberedLines(readMaxLines, "%d"),
	})
	rec := &actionRecorder{}
	res := f.call(t, "read_file", map[string]any{"path": "long.txt"}, rec)
	require.False(t, res.Failed())
	require.True(t, strings.HasPrefix(res.Content, "long.txt (2500 lines; lines 1–2000 shown):\n"), res.Content[:80])
	require.Contains(t, res.Content, "\n2000| 2000\n")
	require.NotContains(t, res.Content, "2001| ")
	require.True(t, strings.HasSuffix(res.Content,
		"[file continues: lines 2001–2500 not shown (2500 lines total). To read on, call read_file with startLine 2001; search_workspace finds a part by its text.]\n"))
	require.Len(t, rec.actions, 40)
	require.Equal(t, Action{Title: "Read long.txt", Path: "long.txt", StartLine: 1901, EndLine: 2000, Done: true}, rec.actions[39])
	require.Equal(t, ReadFileDisplay{Kind: "file", Path: "long.txt", Lines: 2000, TotalLines: 2500, Truncated: true}, res.Display)

	res = f.read(t, "exact.txt")
	require.False(t, res.Display.(ReadFileDisplay).Truncated)
	require.NotContains(t, res.Content, "file continues")
}

func TestReadFileCapsBytes(t *testing.T) {
	t.Parallel()
	wide := strings.Repeat("x", 500)
	f := newReadFixture(t, map[string]string{"wide.txt": numberedLines(1000, "%d "+wide)})
	res := f.read(t, "wide.txt")
	d := res.Display.(ReadFileDisplay)
	require.True(t, d.Truncated)
	require.Equal(t, 1000, d.TotalLines)
	require.Less(t, d.Lines, 250)
	require.Less(t, len(res.Content), readMaxBytes+4096)
	require.Contains(t, res.Content, fmt.Sprintf("[file continues: lines %d–1000 not shown (1000 lines total).", d.Lines+1))
}

func TestReadFileCutsHugeLines(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("é", 3<<20) // 6 MB on one line, two bytes a character
	f := newReadFixture(t, map[string]string{"min.js": huge + "\r\nsecond\r\n"})
	res := f.read(t, "min.js")
	require.False(t, res.Failed())
	require.True(t, utf8.ValidString(res.Content))
	lines := strings.Split(res.Content, "\n")
	require.Equal(t, "min.js (2 lines):", lines[0])
	require.Equal(t, "(file uses CRLF line endings)", lines[1])
	shown := strings.TrimPrefix(lines[2], "1| ")
	kept := strings.Repeat("é", readMaxLineBytes/2)
	require.Equal(t, kept+fmt.Sprintf(" … [line continues: %d more bytes not shown]", len(huge)-len(kept)), shown)
	require.Equal(t, "2| second", lines[3])
}

func TestReadFileStopsCountingInAHugeFile(t *testing.T) {
	t.Parallel()
	f := newReadFixture(t, nil)
	path := filepath.Join(f.root, "big.log")
	block := numberedLines(1000, "log line %06d") // 16 KB
	file, err := os.Create(path)
	require.NoError(t, err)
	for range (readScanBytes / len(block)) * 2 {
		_, err = file.WriteString(block)
		require.NoError(t, err)
	}
	require.NoError(t, file.Close())

	res := f.read(t, "big.log")
	require.False(t, res.Failed())
	d := res.Display.(ReadFileDisplay)
	require.Equal(t, readMaxLines, d.Lines)
	require.True(t, d.Truncated)
	require.True(t, d.TotalAtLeast)
	require.Greater(t, d.TotalLines, readMaxLines)
	require.Less(t, d.TotalLines, 2*readScanBytes/len(block)*1000, "counting stops before the end")
	require.Regexp(t, `\[file continues: lines after 2000 not shown \(more than \d+ lines, 128\.0 MB in total\)\. To read on, call read_file with startLine 2001;`, res.Content)

	// A start beyond what read_file scans is refused plainly, not read for long.
	res = f.call(t, "read_file", map[string]any{"path": "big.log", "startLine": 2 * readScanBytes / len(block) * 1000}, nil)
	require.Equal(t, ErrInvalidArguments, res.ErrorKind)
	require.Contains(t, res.Content, "is beyond the first 64.0 MB that read_file looks at (the file is 128.0 MB)")
}

func TestReadFileHugeLineRunsOutOfBudget(t *testing.T) {
	t.Parallel()
	// Text, then a gigabyte with no line break (a sparse tail): the last line cannot be read
	// to its end, so the read stops at its budget.
	// The text is longer than the sample that decides whether a file is binary.
	f := newReadFixture(t, map[string]string{"sparse.txt": numberedLines(readSniffBytes/5, "row %d") + "tail"})
	require.NoError(t, os.Truncate(filepath.Join(f.root, "sparse.txt"), 1<<30))
	res := f.read(t, "sparse.txt")
	require.False(t, res.Failed(), res.Content)
	d := res.Display.(ReadFileDisplay)
	n := readSniffBytes / 5
	require.Equal(t, ReadFileDisplay{Kind: "file", Path: "sparse.txt", Lines: n + 1, TotalLines: n + 1, TotalAtLeast: true, Truncated: true}, d)
	require.Contains(t, res.Content, fmt.Sprintf("\n%d| tail", n+1))
	require.Contains(t, res.Content, " … [line continues; not read to its end]\n")
	require.Contains(t, res.Content, fmt.Sprintf("(more than %d lines, 1.0 GB in total)", n))
}

func TestReadFileRefusesASparseGigabyte(t *testing.T) {
	t.Parallel()
	f := newReadFixture(t, nil)
	file, err := os.Create(filepath.Join(f.root, "disk.img"))
	require.NoError(t, err)
	require.NoError(t, file.Truncate(1<<30))
	require.NoError(t, file.Close())

	res := f.read(t, "disk.img")
	require.Equal(t, ErrInvalidArguments, res.ErrorKind)
	require.Equal(t, `"disk.img" looks like binary data that starts with nothing but zero bytes (1.0 GB), not text, so read_file cannot show it.`, res.Content)
}

func TestReadFileRefusesBinaryKinds(t *testing.T) {
	t.Parallel()
	var zipped bytes.Buffer
	zw := zip.NewWriter(&zipped)
	w, err := zw.Create("hello.txt")
	require.NoError(t, err)
	_, err = w.Write([]byte("hello"))
	require.NoError(t, err)
	require.NoError(t, zw.Close())

	elf, err := os.ReadFile("/bin/true")
	require.NoError(t, err)

	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00"
	noise := make([]byte, 4096)
	for i := range noise {
		noise[i] = byte(i*7 + i/13)
	}
	f := newReadFixture(t, map[string]string{
		"logo.png":     png,
		"bundle.zip":   zipped.String(),
		"report.docx":  zipped.String(),
		"true":         string(elf[:min(len(elf), 4096)]),
		"app.db":       "SQLite format 3\x00" + strings.Repeat("\x00", 100),
		"blob.bin":     string(noise),
		"utf16.txt":    "\xff\xfeh\x00i\x00",
		"doc.pdf":      "%PDF-1.7\n\x00\x01\x02",
		"archive.gz":   "\x1f\x8b\x08\x00\x00\x00\x00\x00",
		"module.class": "\xca\xfe\xba\xbe\x00\x00\x00\x34",
	})
	for name, kind := range map[string]string{
		"logo.png":     "a PNG image",
		"bundle.zip":   "a ZIP archive",
		"report.docx":  "a Word document (ZIP)",
		"true":         "an ELF executable",
		"app.db":       "a SQLite database",
		"blob.bin":     "binary data",
		"utf16.txt":    "UTF-16 encoded text",
		"doc.pdf":      "a PDF document",
		"archive.gz":   "a gzip archive",
		"module.class": "a Java class file or macOS universal binary",
	} {
		res := f.read(t, name)
		require.Equal(t, ErrInvalidArguments, res.ErrorKind, name)
		require.Contains(t, res.Content, fmt.Sprintf("%q looks like %s (", name, kind), name)
		require.Contains(t, res.Content, "not text, so read_file cannot show it.", name)
	}
}

func TestReadFileShowsMostlyTextWithBadBytes(t *testing.T) {
	t.Parallel()
	// Latin-1: "café" with one byte that is not UTF-8.
	f := newReadFixture(t, map[string]string{"latin1.txt": "caf\xe9 au lait\nplain line\n"})
	res := f.read(t, "latin1.txt")
	require.False(t, res.Failed(), res.Content)
	require.True(t, utf8.ValidString(res.Content))
	require.Equal(t, "latin1.txt (2 lines):\n(some bytes are not valid UTF-8 and are shown as \uFFFD)\n1| caf\uFFFD au lait\n2| plain line\n", res.Content)
}

func TestReadFileRefusesFoldersAndSpecialFiles(t *testing.T) {
	t.Parallel()
	f := newReadFixture(t, map[string]string{"src/": ""})
	res := f.read(t, "src")
	require.Equal(t, ErrInvalidArguments, res.ErrorKind)
	require.Equal(t, `"src" is a folder, not a file. Use list_files to see what it contains.`, res.Content)

	res = f.read(t, ".")
	require.Equal(t, ErrInvalidArguments, res.ErrorKind)
	require.Equal(t, "The workspace root is a folder, not a file. Use list_files to see what it contains.", res.Content)

	// Opening a pipe nobody writes to would block forever.
	require.NoError(t, syscall.Mkfifo(filepath.Join(f.root, "pipe"), 0o644))
	res = f.read(t, "pipe")
	require.Equal(t, ErrInvalidArguments, res.ErrorKind)
	require.Equal(t, `"pipe" is a named pipe, not a regular file, so it cannot be read as text.`, res.Content)
}

func TestReadFileSuggestsCloseNames(t *testing.T) {
	t.Parallel()
	f := newReadFixture(t, map[string]string{
		"src/main.go":      "package main\n",
		"src/main_test.go": "package main\n",
		"src/util.go":      "package main\n",
		"README.md":        "# hi\n",
	})
	for _, c := range []struct{ path, want string }{
		{"src/mian.go", `There is no file "src/mian.go". Did you mean: src/main.go?`},
		{"src/main.ts", `There is no file "src/main.ts". Did you mean: src/main.go, src/main_test.go?`},
		{"src/Util.go", `There is no file "src/Util.go". Did you mean: src/util.go?`},
		{"scr/main.go", `There is no file "scr/main.go". Did you mean: src/main.go?`},
		{"readme", `There is no file "readme". Did you mean: README.md?`},
		{"src/zzz.go", `There is no file "src/zzz.go". Use list_files or glob to find it.`},
		{"nowhere/deep/x.go", `There is no file "nowhere/deep/x.go". Use list_files or glob to find it.`},
		{"src/main.go/x", `There is no file "src/main.go/x". Use list_files or glob to find it.`},
	} {
		res := f.read(t, c.path)
		require.Equal(t, ErrNotFound, res.ErrorKind, c.path)
		require.Equal(t, c.want, res.Content, c.path)
	}
}

func TestReadFileStaysInsideTheWorkspace(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret\n"), 0o644))
	f := newReadFixture(t, map[string]string{"docs/guide.md": "guide\n"})
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(f.root, "leak.txt")))
	require.NoError(t, os.Symlink(outside, filepath.Join(f.root, "out")))
	require.NoError(t, os.Symlink("docs/guide.md", filepath.Join(f.root, "guide.md")))

	for _, p := range []string{"../x.txt", filepath.Join(outside, "secret.txt"), "leak.txt", "out/secret.txt", "~/.ssh/id_rsa"} {
		res := f.read(t, p)
		require.Equal(t, ErrOutsideWorkspace, res.ErrorKind, p)
		require.NotContains(t, res.Content, "secret\n", p)
	}

	res := f.read(t, "guide.md")
	require.False(t, res.Failed(), res.Content)
	require.Equal(t, "guide.md (1 line):\n1| guide\n", res.Content)

	res = f.read(t, "")
	require.Equal(t, ErrInvalidArguments, res.ErrorKind)
}

func TestReadFileThroughTheRegistry(t *testing.T) {
	t.Parallel()
	f := newReadFixture(t, map[string]string{"a.go": numberedLines(150, "// %d")})
	// Aliases for path work, and the end of a line range a model invents is ignored: a read
	// starts where it is told and goes on to the cap.
	res := f.call(t, "read_file", map[string]any{"file": "a.go"}, nil)
	require.False(t, res.Failed(), res.Content)
	require.Contains(t, res.Content, "  1| // 1\n")
	require.Equal(t, 150, res.Display.(ReadFileDisplay).Lines)
	res = f.call(t, "read_file", map[string]any{"filePath": "a.go", "startLine": "120", "endLine": 130}, nil)
	require.False(t, res.Failed(), res.Content)
	require.Contains(t, res.Content, "\n150| // 150\n")
	require.Equal(t, 31, res.Display.(ReadFileDisplay).Lines)

	res = f.call(t, "read_file", map[string]any{}, nil)
	require.Equal(t, ErrInvalidArguments, res.ErrorKind)
	require.Contains(t, res.Content, "path")

	tool, ok := f.reg.Get("read_file")
	require.True(t, ok)
	require.Equal(t, []string{"path", "startLine"}, tool.Params().PropertyOrder, "where to start, but no line range")
	require.Equal(t, KindRead, tool.Kind())
	require.Less(t, len(strings.Fields(tool.Description())), 80)
}

func TestReadFileCancelled(t *testing.T) {
	t.Parallel()
	f := newReadFixture(t, map[string]string{"a.txt": numberedLines(500, "%d")})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := f.reg.Execute(ctx, "read_file", map[string]any{"path": "a.txt"}, nil)
	require.NoError(t, err)
	require.Equal(t, ErrCancelled, res.ErrorKind)
}

func TestReadFileBatchReadsTogether(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	var calls []Call
	for i := range 20 {
		name := fmt.Sprintf("pkg%d/file.go", i)
		files[name] = numberedLines(i+1, "line %d")
		calls = append(calls, Call{ID: fmt.Sprint(i), Name: "read_file", Args: map[string]any{"path": name}})
	}
	f := newReadFixture(t, files)
	results := f.reg.RunBatch(context.Background(), f.root, calls, nil)
	require.Len(t, results, 20)
	for i, r := range results {
		require.NoError(t, r.Err)
		require.False(t, r.Result.Failed(), r.Result.Content)
		require.Equal(t, i+1, r.Result.Display.(ReadFileDisplay).Lines)
	}
}
