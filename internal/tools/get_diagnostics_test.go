package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// diagnosticsFixture is a workspace of the given files with get_diagnostics registered.
type diagnosticsFixture struct {
	root string
	reg  *Registry
}

func newDiagnosticsFixture(t *testing.T, files map[string]string) diagnosticsFixture {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, root, files)
	for name := range files {
		if strings.Contains(name, "/.bin/") {
			require.NoError(t, os.Chmod(filepath.Join(root, name), 0o755))
		}
	}
	env := &Env{Root: root, Approver: PolicyApprover{TrustFolder: true}, Checkpoints: NoCheckpoints{}}
	reg := NewRegistry()
	require.NoError(t, reg.Register(GetDiagnostics(env)))
	return diagnosticsFixture{root: root, reg: reg}
}

func (f diagnosticsFixture) check(t *testing.T, ctx context.Context, path string) (Result, DiagnosticsDisplay) {
	t.Helper()
	res, err := f.reg.Execute(ctx, "get_diagnostics", map[string]any{"file": path}, nil)
	require.NoError(t, err)
	display, _ := res.Display.(DiagnosticsDisplay)
	return res, display
}

func requireTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s is not installed", name)
	}
}

func TestGetDiagnosticsGoSyntaxError(t *testing.T) {
	t.Parallel()
	requireTool(t, "gofmt")
	f := newDiagnosticsFixture(t, map[string]string{
		"go.mod":     "module example.com/m\n\ngo 1.22\n",
		"cmd/bad.go": "package main\n\nfunc main() {\n\tx := 1 +\n}\n",
	})
	res, d := f.check(t, context.Background(), "cmd/bad.go")
	require.False(t, res.Failed(), res.Content)
	require.Equal(t, "gofmt", d.Checker, "go vet is not run on a file that does not parse")
	require.Equal(t, "cmd/bad.go", d.Path)
	require.Equal(t, []Diagnostic{{Line: 5, Col: 1, Severity: "error", Message: "expected operand, found '}'"}}, d.Items)
	require.Equal(t, "gofmt found 1 problem in cmd/bad.go:\n"+
		"cmd/bad.go:5:1 error expected operand, found '}'\n", res.Content)
}

func TestGetDiagnosticsGoVet(t *testing.T) {
	t.Parallel()
	requireTool(t, "go")
	f := newDiagnosticsFixture(t, map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.22\n",
		"pkg/a.go":    "package pkg\n\nimport \"fmt\"\n\nfunc A() {\n\tfmt.Printf(\"%d\\n\", \"text\")\n}\n",
		"pkg/b.go":    "package pkg\n\nfunc B() int { return 1 }\n",
		"other/c.go":  "package other\n\nfunc C() int { return missing }\n",
		"other/ok.go": "package other\n\nfunc OK() {}\n",
	})
	res, d := f.check(t, context.Background(), "pkg/a.go")
	require.False(t, res.Failed(), res.Content)
	require.Equal(t, "gofmt and go vet", d.Checker)
	require.Len(t, d.Items, 1, res.Content)
	require.Equal(t, Diagnostic{Line: 6, Col: 14, Severity: "warning", Message: d.Items[0].Message}, d.Items[0])
	require.Contains(t, d.Items[0].Message, "fmt.Printf format %d has arg")
	require.Contains(t, res.Content, "pkg/a.go:6:14 warning fmt.Printf format %d")
	printf := d.Items[0].Message

	res, _ = f.check(t, context.Background(), "pkg/b.go")
	require.Equal(t, "No problems found by gofmt and go vet.\n"+
		"go vet also reported 1 problem in other files:\n"+
		"  pkg/a.go:6:14: "+printf+"\n", res.Content)

	res, d = f.check(t, context.Background(), "other/ok.go")
	require.Empty(t, d.Items)
	require.Contains(t, res.Content, "go vet also reported 1 problem in other files:\n  other/c.go:3:23: undefined: missing",
		"a type error elsewhere that stops vet is not hidden")
}

func TestGetDiagnosticsGoWithoutModule(t *testing.T) {
	t.Parallel()
	requireTool(t, "gofmt")
	f := newDiagnosticsFixture(t, map[string]string{"ok.go": "package ok\n\nfunc OK() {}\n"})
	res, d := f.check(t, context.Background(), "ok.go")
	require.False(t, res.Failed())
	require.Empty(t, d.Items)
	require.Equal(t, "No problems found by gofmt.\ngo vet was not run: there is no go.mod above this file in the workspace.\n", res.Content)
}

func TestGetDiagnosticsJSON(t *testing.T) {
	t.Parallel()
	f := newDiagnosticsFixture(t, map[string]string{
		"bad.json":      "{\n  \"name\": \"gantry\",\n  \"tags\": [1, 2,],\n}\n",
		"ok.json":       "{\"a\": [1, 2]}\n",
		"short.json":    "{\"a\": 1",
		"tsconfig.json": "{\n  // comments are fine here\n  \"compilerOptions\": {\"strict\": true, /* and here */},\n}\n",
	})
	res, d := f.check(t, context.Background(), "bad.json")
	require.False(t, res.Failed())
	require.Equal(t, []Diagnostic{{Line: 3, Col: 17, Severity: "error", Message: "invalid character ']' looking for beginning of value"}}, d.Items)
	require.Contains(t, res.Content, "bad.json:3:17 error invalid character ']'")

	res, _ = f.check(t, context.Background(), "ok.json")
	require.Equal(t, "No problems found by the JSON parser.\n", res.Content)

	_, d = f.check(t, context.Background(), "short.json")
	require.Equal(t, []Diagnostic{{Line: 1, Col: 7, Severity: "error", Message: "unexpected end of JSON input"}}, d.Items)

	res, d = f.check(t, context.Background(), "tsconfig.json")
	require.Empty(t, d.Items, res.Content)
	require.Contains(t, res.Content, "No problems found")
}

func TestGetDiagnosticsPython(t *testing.T) {
	t.Parallel()
	requireTool(t, "python3")
	f := newDiagnosticsFixture(t, map[string]string{
		"app/bad.py": "def f(:\n    pass\n",
		"app/ok.py":  "def f():\n    return '\\d'\n",
	})
	res, d := f.check(t, context.Background(), "app/bad.py")
	require.False(t, res.Failed())
	require.Equal(t, "the Python compiler", d.Checker)
	require.Len(t, d.Items, 1, res.Content)
	require.Equal(t, 1, d.Items[0].Line)
	require.Equal(t, "error", d.Items[0].Severity)
	require.Contains(t, d.Items[0].Message, "SyntaxError")

	res, d = f.check(t, context.Background(), "app/ok.py")
	require.False(t, res.Failed())
	for _, item := range d.Items {
		require.Equal(t, "warning", item.Severity, "an invalid escape is only a warning")
	}
	require.NoDirExists(t, filepath.Join(f.root, "app", "__pycache__"), "checking writes nothing into the project")
}

func TestGetDiagnosticsJavaScript(t *testing.T) {
	t.Parallel()
	requireTool(t, "node")
	f := newDiagnosticsFixture(t, map[string]string{
		"src/bad.js":  "const a = 1;\nfunction f() {\n\tlet x = ;\n}\n",
		"src/ok.mjs":  "export const a = 1;\n",
		"src/view.js": "const V = () => <div/>;\n",
	})
	res, d := f.check(t, context.Background(), "src/bad.js")
	require.False(t, res.Failed())
	require.Equal(t, []Diagnostic{{Line: 3, Col: 10, Severity: "error", Message: "SyntaxError: Unexpected token ';'"}}, d.Items)
	require.Equal(t, "node --check found 1 problem in src/bad.js:\nsrc/bad.js:3:10 error SyntaxError: Unexpected token ';'\n", res.Content)

	res, _ = f.check(t, context.Background(), "src/ok.mjs")
	require.Equal(t, "No problems found by node --check.\n", res.Content)

	res, _ = f.check(t, context.Background(), "src/view.js")
	require.Contains(t, res.Content, "JSX")
}

// fakeTSC is a project-local tsc that prints what the real one would for a project with
// problems in two files.
const fakeTSC = `#!/bin/sh
[ "$*" = "--noEmit --pretty false -p ." ] || { echo "unexpected arguments: $*"; exit 9; }
echo "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'."
echo "src/b.ts(1,1): error TS1005: ';' expected."
echo "src/a.ts(5,1): error TS2345: Argument of type 'A' is not assignable to parameter of type 'B'."
echo "  Property 'x' is missing in type 'A'."
exit 2
`

func TestGetDiagnosticsTypeScript(t *testing.T) {
	t.Parallel()
	f := newDiagnosticsFixture(t, map[string]string{
		"web/tsconfig.json":         "{}\n",
		"web/src/a.ts":              "let n: number = 1;\n",
		"web/src/b.ts":              "x\n",
		"web/node_modules/.bin/tsc": fakeTSC,
		"lonely/x.ts":               "let y = 1;\n",
		"other/tsconfig.json":       "{}\n",
		"other/node_modules/readme": "",
		"other/z.ts":                "let z = 1;\n",
	})
	res, d := f.check(t, context.Background(), "web/src/a.ts")
	require.False(t, res.Failed())
	require.Equal(t, "tsc", d.Checker)
	require.Equal(t, "tsc found 2 problems in web/src/a.ts:\n"+
		"web/src/a.ts:3:7 error TS2322: Type 'string' is not assignable to type 'number'.\n"+
		"web/src/a.ts:5:1 error TS2345: Argument of type 'A' is not assignable to parameter of type 'B'. Property 'x' is missing in type 'A'.\n"+
		"tsc also reported 1 problem in other files:\n"+
		"  web/src/b.ts(1,1): error TS1005: ';' expected.\n", res.Content)

	res, d = f.check(t, context.Background(), "lonely/x.ts")
	require.Empty(t, d.Checker)
	require.Contains(t, res.Content, "No checker for .ts files is available here: TypeScript is checked with tsc, and there is no tsconfig.json")

	res, _ = f.check(t, context.Background(), "other/z.ts")
	require.Contains(t, res.Content, "node_modules/.bin/tsc is missing")
}

func TestGetDiagnosticsKillsAHungCheckerWithItsChildren(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	f := newDiagnosticsFixture(t, map[string]string{
		"tsconfig.json":         "{}\n",
		"a.ts":                  "let a = 1;\n",
		"node_modules/.bin/tsc": "#!/bin/sh\nsleep 600 &\necho $! > " + pidFile + "\nwait\n",
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	checked := make(chan Result, 1)
	go func() {
		res, _ := f.reg.Execute(ctx, "get_diagnostics", map[string]any{"file": "a.ts"}, nil)
		checked <- res
	}()
	require.Eventually(t, func() bool {
		data, err := os.ReadFile(pidFile)
		return err == nil && strings.HasSuffix(string(data), "\n")
	}, time.Minute, 10*time.Millisecond, "the checker started its child")
	cancel()
	res := <-checked
	require.Equal(t, ErrCancelled, res.ErrorKind, res.Content)

	data, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		return err != nil || strings.Contains(string(stat), ") Z ")
	}, time.Minute, 10*time.Millisecond, "the checker's background child was killed too (it would sleep 600 s)")
}

func TestGetDiagnosticsNoChecker(t *testing.T) {
	t.Parallel()
	f := newDiagnosticsFixture(t, map[string]string{"src/main.rs": "fn main() {}\n", "Makefile": "all:\n"})
	res, d := f.check(t, context.Background(), "src/main.rs")
	require.False(t, res.Failed())
	require.Equal(t, "No checker for .rs files is available here.\n", res.Content)
	require.Equal(t, DiagnosticsDisplay{Kind: "diagnostics", Path: "src/main.rs", Items: []Diagnostic{}}, d)

	res, _ = f.check(t, context.Background(), "Makefile")
	require.Equal(t, "No checker for files like Makefile is available here.\n", res.Content)
}

func TestGetDiagnosticsMistakes(t *testing.T) {
	t.Parallel()
	f := newDiagnosticsFixture(t, map[string]string{"src/a.go": "package a\n"})
	for _, tc := range []struct {
		path string
		kind ErrorKind
	}{
		{"src/missing.go", ErrNotFound},
		{"src", ErrInvalidArguments},
		{"", ErrInvalidArguments},
		{"../x.go", ErrOutsideWorkspace},
	} {
		res, _ := f.check(t, context.Background(), tc.path)
		require.Equal(t, tc.kind, res.ErrorKind, "%q: %s", tc.path, res.Content)
	}
}
