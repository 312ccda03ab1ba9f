package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/safety"
)

// editApprover records edit approvals and answers them with decide (allow, when nil).
type editApprover struct {
	PolicyApprover // folder code: not trusted
	mu             sync.Mutex
	requests       []EditApproval
	decide         func(EditApproval) Decision
}

func (a *editApprover) ApproveCommand(context.Context, CommandApproval) (Decision, error) {
	return Decision{}, errors.New("no commands in these tests")
}

func (a *editApprover) ApproveEdit(_ context.Context, req EditApproval) (Decision, error) {
	a.mu.Lock()
	a.requests = append(a.requests, req)
	a.mu.Unlock()
	if a.decide == nil {
		return Decision{Allowed: true, AutoApproved: true}, nil
	}
	return a.decide(req), nil
}

// recordingCheckpoints records the checkpoint calls, and what was on disk when BeforeEdit came.
type recordingCheckpoints struct {
	mu        sync.Mutex
	calls     []string // "before <abs>", "after <abs>", "undo <abs>", "undo turn"
	seen      []string // the file's content at each BeforeEdit, "<missing>" when absent
	undoError error
}

func (c *recordingCheckpoints) record(call string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, call)
}

func (c *recordingCheckpoints) BeforeEdit(_ context.Context, path string) error {
	c.record("before " + path)
	content := "<missing>"
	if data, err := os.ReadFile(path); err == nil {
		content = string(data)
	}
	c.mu.Lock()
	c.seen = append(c.seen, content)
	c.mu.Unlock()
	return nil
}

func (c *recordingCheckpoints) AfterEdit(_ context.Context, path string) error {
	c.record("after " + path)
	return nil
}

func (c *recordingCheckpoints) UndoFile(_ context.Context, path string) (UndoReport, error) {
	c.record("undo " + path)
	return UndoReport{Text: "Restored " + filepath.Base(path) + ".", Undone: []UndoneFile{{Path: filepath.Base(path)}}}, c.undoError
}

func (c *recordingCheckpoints) UndoTurn(context.Context) (UndoReport, error) {
	c.record("undo turn")
	return UndoReport{Text: "Restored 2 files.", Undone: []UndoneFile{{Path: "a"}, {Path: "b", Gone: true}}}, c.undoError
}

// fileChangeFixture is a workspace with the file-changing tools registered.
type fileChangeFixture struct {
	root        string
	approver    *editApprover
	checkpoints *recordingCheckpoints
	reg         *Registry
}

func newFileChangeFixture(t *testing.T) *fileChangeFixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	f := &fileChangeFixture{root: root, approver: &editApprover{}, checkpoints: &recordingCheckpoints{}, reg: NewRegistry()}
	env := &Env{Root: root, Approver: f.approver, Checkpoints: f.checkpoints, FileRules: safety.DefaultFileRules()}
	for _, tool := range []Tool{WriteFile(env), EditFile(env), UndoFile(env), UndoTurn(env)} {
		require.NoError(t, f.reg.Register(tool))
	}
	return f
}

func (f *fileChangeFixture) path(rel string) string {
	return filepath.Join(f.root, filepath.FromSlash(rel))
}

func (f *fileChangeFixture) put(t *testing.T, rel, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(f.path(rel)), 0o755))
	require.NoError(t, os.WriteFile(f.path(rel), []byte(content), 0o644))
}

func (f *fileChangeFixture) get(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(f.path(rel))
	require.NoError(t, err)
	return string(data)
}

func (f *fileChangeFixture) call(t *testing.T, tool string, args map[string]any) Result {
	t.Helper()
	res, err := f.reg.Execute(context.Background(), tool, args, nil)
	require.NoError(t, err)
	return res
}

func (f *fileChangeFixture) ok(t *testing.T, tool string, args map[string]any) Result {
	t.Helper()
	res := f.call(t, tool, args)
	require.False(t, res.Failed(), res.Content)
	return res
}

func TestWriteFileCreates(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	res := f.ok(t, "write_file", map[string]any{"path": "src/pkg/new.go", "content": "package pkg\n\nfunc A() {}\n"})

	require.Equal(t, "Created src/pkg/new.go (3 lines).", res.Content)
	require.Equal(t, "package pkg\n\nfunc A() {}\n", f.get(t, "src/pkg/new.go"))
	d := res.Display.(DiffDisplay)
	require.Equal(t, "diff", d.Kind)
	require.Equal(t, "src/pkg/new.go", d.Path)
	require.True(t, d.Created)
	require.True(t, d.AutoApproved)
	require.Equal(t, 3, d.Added)
	require.Contains(t, d.Diff, "@@ -0,0 +1,3 @@\n+package pkg\n")

	require.Equal(t, []EditApproval{{Path: "src/pkg/new.go", After: "package pkg\n\nfunc A() {}\n"}}, f.approver.requests)
	abs := f.path("src/pkg/new.go")
	require.Equal(t, []string{"before " + abs, "after " + abs}, f.checkpoints.calls)
	require.Equal(t, []string{"<missing>"}, f.checkpoints.seen)
}

func TestWriteFileOverwrites(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	f.put(t, "run.sh", "#!/bin/sh\necho one\necho two\n")
	require.NoError(t, os.Chmod(f.path("run.sh"), 0o755))

	res := f.ok(t, "write_file", map[string]any{"file": "run.sh", "content": "#!/bin/sh\necho 1\necho 2\necho 3\n"})

	require.Equal(t, "Wrote run.sh (+3 −2).", res.Content)
	require.Equal(t, "#!/bin/sh\necho 1\necho 2\necho 3\n", f.get(t, "run.sh"))
	fi, err := os.Stat(f.path("run.sh"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o755), fi.Mode().Perm())
	d := res.Display.(DiffDisplay)
	require.False(t, d.Created)
	require.Equal(t, "--- a/run.sh\n+++ b/run.sh\n@@ -1,3 +1,4 @@\n #!/bin/sh\n-echo one\n-echo two\n+echo 1\n+echo 2\n+echo 3\n", d.Diff)

	req := f.approver.requests[0]
	require.True(t, req.Existed)
	require.Equal(t, "#!/bin/sh\necho one\necho two\n", req.Before)
	require.Equal(t, "#!/bin/sh\necho 1\necho 2\necho 3\n", req.After)
	require.False(t, req.Sensitive)
	// The checkpoint saw the old content: it was called before anything touched the file.
	require.Equal(t, []string{"#!/bin/sh\necho one\necho two\n"}, f.checkpoints.seen)
	require.Equal(t, []string{"before " + f.path("run.sh"), "after " + f.path("run.sh")}, f.checkpoints.calls)
}

func TestWriteFileUnchangedAsksNothing(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	f.put(t, "a.txt", "same\n")
	res := f.ok(t, "write_file", map[string]any{"path": "a.txt", "content": "same\n"})
	require.Contains(t, res.Content, "No changes")
	require.Empty(t, f.approver.requests)
	require.Empty(t, f.checkpoints.calls)
}

func TestWriteFileSensitivePaths(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	f.ok(t, "write_file", map[string]any{"path": ".env", "content": "TOKEN=x\n"})
	f.ok(t, "write_file", map[string]any{"path": "config/app.json", "content": "{}\n"})
	f.ok(t, "write_file", map[string]any{"path": ".github/workflows/ci.yml", "content": "on: push\n"})

	require.Len(t, f.approver.requests, 3)
	require.True(t, f.approver.requests[0].Sensitive)
	require.Equal(t, ".env", f.approver.requests[0].Rule)
	require.False(t, f.approver.requests[1].Sensitive)
	require.Empty(t, f.approver.requests[1].Rule)
	require.True(t, f.approver.requests[2].Sensitive)
	require.Equal(t, ".github/workflows/**", f.approver.requests[2].Rule)
}

func TestWriteFileDenied(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	f.put(t, "a.txt", "old\n")
	f.approver.decide = func(EditApproval) Decision { return Decision{Message: "keep the old wording"} }

	res := f.call(t, "write_file", map[string]any{"path": "a.txt", "content": "new\n"})

	require.Equal(t, ErrDenied, res.ErrorKind)
	require.Equal(t, "The user rejected writing a.txt. The user said: keep the old wording", res.Content)
	require.True(t, res.Display.(DiffDisplay).Denied)
	require.Equal(t, "old\n", f.get(t, "a.txt"))
	require.Empty(t, f.checkpoints.calls)
}

func TestWriteFileAcceptedWithTheUsersChanges(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	f.put(t, "a.txt", "one\n")
	f.approver.decide = func(req EditApproval) Decision {
		edited := "one\ntwo and a half\nthree\n"
		return Decision{Allowed: true, Content: &edited}
	}

	res := f.ok(t, "write_file", map[string]any{"path": "a.txt", "content": "one\ntwo\nthree\n"})

	require.Equal(t, "one\ntwo and a half\nthree\n", f.get(t, "a.txt"))
	require.Contains(t, res.Content, "Wrote a.txt (+2 −0).")
	require.Contains(t, res.Content, "The user changed your proposal")
	require.Contains(t, res.Content, "-two\n+two and a half\n")
	d := res.Display.(DiffDisplay)
	require.True(t, d.UserEdited)
	require.False(t, d.AutoApproved)
	require.Contains(t, d.Diff, "+two and a half\n")
}

func TestWriteFileUserUndidEverything(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	f.put(t, "a.txt", "one\n")
	f.approver.decide = func(req EditApproval) Decision {
		return Decision{Allowed: true, Content: &req.Before}
	}
	res := f.call(t, "write_file", map[string]any{"path": "a.txt", "content": "two\n"})
	require.Equal(t, ErrDenied, res.ErrorKind)
	require.Contains(t, res.Content, "undid all of your changes")
	require.Empty(t, f.checkpoints.calls)
}

func TestWriteFileDoesNotOverwriteAnEditMadeWhileAsking(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	f.put(t, "a.txt", "one\n")
	f.approver.decide = func(EditApproval) Decision {
		f.put(t, "a.txt", "one, edited by the user\n")
		return Decision{Allowed: true}
	}
	res := f.call(t, "write_file", map[string]any{"path": "a.txt", "content": "two\n"})
	require.Equal(t, ErrFailed, res.ErrorKind)
	require.Contains(t, res.Content, "changed on disk while waiting for approval")
	require.Equal(t, "one, edited by the user\n", f.get(t, "a.txt"))
	require.Empty(t, f.checkpoints.calls)
}

func TestWriteFileKeepsCRLF(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	f.put(t, "win.txt", "one\r\ntwo\r\n")
	res := f.ok(t, "write_file", map[string]any{"path": "win.txt", "content": "one\ntwo\nthree\n"})
	require.Equal(t, "one\r\ntwo\r\nthree\r\n", f.get(t, "win.txt"))
	require.Equal(t, "Wrote win.txt (+1 −0).", res.Content)
}

func TestWriteFileThroughALink(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	f.put(t, "real.txt", "old\n")
	require.NoError(t, os.Symlink("real.txt", f.path("link.txt")))

	f.ok(t, "write_file", map[string]any{"path": "link.txt", "content": "new\n"})

	require.Equal(t, "new\n", f.get(t, "real.txt"))
	target, err := os.Readlink(f.path("link.txt"))
	require.NoError(t, err)
	require.Equal(t, "real.txt", target)
	require.Equal(t, "link.txt", f.approver.requests[0].Path)
	require.Equal(t, []string{"before " + f.path("real.txt"), "after " + f.path("real.txt")}, f.checkpoints.calls)
}

func TestWriteFileRefusals(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	f.put(t, "sub/keep.txt", "text\n")
	f.put(t, "image.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	f.put(t, "data.bin", "abc\x00def")

	for _, c := range []struct {
		name string
		args map[string]any
		kind ErrorKind
		msg  string
	}{
		{"folder", map[string]any{"path": "sub", "content": "x"}, ErrInvalidArguments, "is a folder"},
		{"binary on disk", map[string]any{"path": "image.png", "content": "x"}, ErrInvalidArguments, "not text"},
		{"zero bytes on disk", map[string]any{"path": "data.bin", "content": "x"}, ErrInvalidArguments, "not text"},
		{"NUL in content", map[string]any{"path": "n.txt", "content": "a\x00b"}, ErrInvalidArguments, "NUL"},
		{"outside", map[string]any{"path": "../escape.txt", "content": "x"}, ErrOutsideWorkspace, "outside the workspace"},
		{"empty path", map[string]any{"path": "", "content": "x"}, ErrInvalidArguments, "path is empty"},
		{"under a file", map[string]any{"path": "sub/keep.txt/x.txt", "content": "x"}, ErrInvalidArguments, `"sub/keep.txt" is a file`},
		{"erasing", map[string]any{"path": "sub/keep.txt", "content": ""}, ErrInvalidArguments, "would erase all 1 line"},
		{"no content", map[string]any{"path": "x.txt"}, ErrInvalidArguments, "content"},
	} {
		res := f.call(t, "write_file", c.args)
		require.Equal(t, c.kind, res.ErrorKind, c.name)
		require.Contains(t, res.Content, c.msg, c.name)
	}
	require.Equal(t, "text\n", f.get(t, "sub/keep.txt"))
	require.Equal(t, "abc\x00def", f.get(t, "data.bin"))
	require.NoFileExists(t, f.path("n.txt"))
	require.NoFileExists(t, filepath.Join(filepath.Dir(f.root), "escape.txt"))
	require.Empty(t, f.approver.requests)
	require.Empty(t, f.checkpoints.calls)
}

func TestWriteFileEmptyNewFile(t *testing.T) {
	t.Parallel()
	f := newFileChangeFixture(t)
	res := f.ok(t, "write_file", map[string]any{"path": "pkg/__init__.py", "content": ""})
	require.Equal(t, "Created pkg/__init__.py (0 lines).", res.Content)
	require.Equal(t, "", f.get(t, "pkg/__init__.py"))
}
