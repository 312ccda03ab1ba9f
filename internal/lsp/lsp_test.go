package lsp

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/stretchr/testify/require"
)

// ToolsDir is where `make test` installs the language servers the tests run
// (scripts/install-deps.sh --test): $GANTRY_TOOLS_DIR, else ~/.cache/gantry/tools.
func ToolsDir() string {
	if d := os.Getenv("GANTRY_TOOLS_DIR"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "gantry", "tools")
}

// requireServer skips a test whose server is not installed, unless GANTRY_LSP_REQUIRED says the
// servers were installed for this run (make test), where a missing one is a failure.
func requireServer(t *testing.T, program string) {
	t.Helper()
	if Find(program, "", "", []string{ToolsDir()}) != "" {
		return
	}
	if os.Getenv("GANTRY_LSP_REQUIRED") != "" {
		t.Fatalf("%s is not installed in %s or on PATH; scripts/install-deps.sh --test installs it", program, ToolsDir())
	}
	t.Skipf("%s is not installed (scripts/install-deps.sh --test installs it)", program)
}

// fixture copies testdata/name into a temporary workspace.
func fixture(t *testing.T, name string) string {
	t.Helper()
	root := t.TempDir()
	src := filepath.Join("testdata", name)
	require.NoError(t, filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(root, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	}))
	return root
}

func newTestManager(t *testing.T, root string) *Manager {
	t.Helper()
	m := NewManager(Options{Root: root, ToolsDirs: []string{ToolsDir()}})
	t.Cleanup(m.Close)
	return m
}

var trusted = Caller{Trusted: true}

func TestGoplsAnswersEveryKindOfQuestion(t *testing.T) {
	t.Parallel()
	requireServer(t, "gopls")
	root := fixture(t, "goproj")
	m := newTestManager(t, root)
	ctx := context.Background()
	shapes := filepath.Join(root, "shapes", "shapes.go")
	main := filepath.Join(root, "main.go")

	c, err := m.Client(ctx, shapes, trusted)
	require.NoError(t, err)
	_, err = c.WaitIndexed(ctx, IndexWait)
	require.NoError(t, err)

	text, err := os.ReadFile(main)
	require.NoError(t, err)
	pos, err := Where{Symbol: "Total"}.Resolve(string(text))
	require.NoError(t, err)
	defs, err := c.Definition(ctx, main, pos)
	require.NoError(t, err)
	require.Len(t, defs, 1)
	require.Equal(t, shapes, defs[0].File)
	require.Equal(t, Pos{Line: 24, Char: 6}, defs[0].Start)

	shapesText, err := os.ReadFile(shapes)
	require.NoError(t, err)
	areaPos, err := Where{Symbol: "Area", Line: 8}.Resolve(string(shapesText))
	require.NoError(t, err)
	refs, err := c.References(ctx, shapes, areaPos)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(refs), 2, "the interface method and its call in Total")

	impls, err := c.Implementations(ctx, shapes, Pos{Line: 7, Char: 6}) // Shape
	require.NoError(t, err)
	var names []string
	for _, l := range impls {
		names = append(names, strings.Split(strings.Split(string(shapesText), "\n")[l.Start.Line-1], " ")[1])
	}
	require.ElementsMatch(t, []string{"Square", "Circle"}, names)

	syms, err := c.DocumentSymbols(ctx, shapes)
	require.NoError(t, err)
	var top []string
	for _, s := range syms {
		if s.Depth == 0 {
			top = append(top, s.Name)
		}
	}
	require.Contains(t, top, "Shape")
	require.Contains(t, top, "Total")

	hover, err := c.Hover(ctx, main, pos)
	require.NoError(t, err)
	require.Contains(t, hover, "func shapes.Total(shapes ...shapes.Shape) float64")
	require.Contains(t, hover, "Total adds the areas of shapes.")
	require.NotContains(t, hover, "pkg.go.dev")

	ws, err := c.WorkspaceSymbols(ctx, "Circle")
	require.NoError(t, err)
	require.NotEmpty(t, ws)
	require.Equal(t, shapes, ws[0].Location.File)

	fn, callers, ok, err := c.Calls(ctx, shapes, Pos{Line: 24, Char: 6}, true)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "Total", fn.Name)
	require.Len(t, callers, 1)
	require.Equal(t, "describe", callers[0].Name)
	require.Equal(t, 14, callers[0].Sites[0].Start.Line)

	_, callees, ok, err := c.Calls(ctx, main, Pos{Line: 13, Char: 6}, false)
	require.NoError(t, err)
	require.True(t, ok)
	var called []string
	for _, c := range callees {
		called = append(called, c.Name)
	}
	require.Contains(t, called, "Total")
}

func TestDiagnosticsFollowTheFileOnDisk(t *testing.T) {
	t.Parallel()
	requireServer(t, "gopls")
	root := fixture(t, "goproj")
	m := newTestManager(t, root)
	ctx := context.Background()
	main := filepath.Join(root, "main.go")
	c, err := m.Client(ctx, main, trusted)
	require.NoError(t, err)

	items, ok, err := c.Diagnostics(ctx, main, IndexWait)
	require.NoError(t, err)
	require.True(t, ok)
	require.Empty(t, items)

	require.NoError(t, os.WriteFile(main, []byte(strings.Replace(readFile(t, main), "describe())", "describe(1))", 1)), 0o644))
	items, ok, err = c.Diagnostics(ctx, main, IndexWait)
	require.NoError(t, err)
	require.True(t, ok)
	require.NotEmpty(t, items)
	require.Contains(t, items[0].Message, "too many arguments")
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

func TestAMissingServerSaysHowToInstallIt(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	m := NewManager(Options{Root: root, ToolsDirs: []string{t.TempDir()}, Overrides: map[string]string{"rust": filepath.Join(root, "no-such-program")}})
	t.Cleanup(m.Close)
	_, err := m.Client(context.Background(), filepath.Join(root, "main.rs"), trusted)
	var ns *NoServer
	require.ErrorAs(t, err, &ns)
	require.Equal(t, "rust", ns.Spec.ID)
	require.Contains(t, ns.Reason, "cannot be run")

	_, err = m.Client(context.Background(), filepath.Join(root, "notes.txt"), trusted)
	require.ErrorAs(t, err, &ns)
	require.Contains(t, ns.Reason, "no language server knows .txt files")
}

// answers asks a server the questions every tool relies on, on a fixture with an interface
// (Shape), an implementation (Square) and a function using them (total).
func answers(t *testing.T, spec, fixtureName, shapesFile, mainFile string, caller Caller) *Client {
	t.Helper()
	root := fixture(t, fixtureName)
	m := newTestManager(t, root)
	ctx := context.Background()
	shapes, main := filepath.Join(root, shapesFile), filepath.Join(root, mainFile)
	c, err := m.Client(ctx, shapes, caller)
	require.NoError(t, err, spec)
	_, err = c.sync(ctx, main)
	require.NoError(t, err)
	_, err = c.WaitIndexed(ctx, IndexWait)
	require.NoError(t, err)

	mainText := readFile(t, main)
	pos, err := Where{Symbol: "total"}.Resolve(mainText)
	require.NoError(t, err)
	defs, err := c.Definition(ctx, main, pos)
	require.NoError(t, err)
	require.NotEmpty(t, defs, spec)
	require.Equal(t, shapes, defs[0].File, spec)

	refs, err := c.References(ctx, main, pos)
	require.NoError(t, err)
	files := map[string]bool{}
	for _, r := range refs {
		files[filepath.Base(r.File)] = true
	}
	require.True(t, files[filepath.Base(shapesFile)] && files[filepath.Base(mainFile)], "%s: %v", spec, refs)

	syms, err := c.DocumentSymbols(ctx, shapes)
	require.NoError(t, err)
	var names []string
	for _, s := range syms {
		names = append(names, s.Name)
	}
	require.Contains(t, names, "Square", spec)
	require.Contains(t, names, "total", spec)

	hover, err := c.Hover(ctx, main, pos)
	require.NoError(t, err)
	require.Contains(t, hover, "total", spec)

	ws, err := c.WorkspaceSymbols(ctx, "Square")
	require.NoError(t, err)
	require.NotEmpty(t, ws, spec)
	return c
}

func TestTypeScriptServer(t *testing.T) {
	t.Parallel()
	requireServer(t, "typescript-language-server")
	for _, caller := range []Caller{trusted, {Trusted: false}} {
		c := answers(t, "typescript", "tsproj", "src/shapes.ts", "src/main.ts", caller)
		if !caller.Trusted {
			tsserver := c.launch.InitOpts["tsserver"].(map[string]any)["path"].(string)
			require.False(t, inside(c.root, tsserver), "the project's tsserver does not run in an untrusted folder")
		}
	}
}

func TestPythonServer(t *testing.T) {
	t.Parallel()
	requireServer(t, "pyright-langserver")
	answers(t, "python", "pyproj", "pkg/shapes.py", "main.py", trusted)
}

// rustup installs a rust-analyzer that is only a proxy until the component is added; it
// must count as missing, with what it said, not as a server that then fails to start.
func TestAStandInProgramCountsAsMissing(t *testing.T) {
	tools := t.TempDir()
	bin := filepath.Join(tools, "bin")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	proxy := "#!/bin/sh\necho \"error: Unknown binary 'rust-analyzer' in official toolchain\" >&2\nexit 1\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, "rust-analyzer"), []byte(proxy), 0o755))
	t.Setenv("PATH", bin)

	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "main.rs"), []byte("fn main() {}\n"), 0o644))
	m := NewManager(Options{Root: root})
	t.Cleanup(m.Close)

	require.NotContains(t, m.Available(), "rust")
	_, err := m.Client(context.Background(), filepath.Join(root, "main.rs"), trusted)
	var ns *NoServer
	require.ErrorAs(t, err, &ns)
	require.Contains(t, ns.Reason, "is not installed")
	for _, st := range m.Statuses(tools) {
		if st.ID == "rust" {
			require.Equal(t, "not found", st.State)
			require.Contains(t, st.Detail, "Unknown binary")
		}
	}
}

// typescript-language-server publishes syntax problems before the type checker's; a question
// asked right after a change gets both, however long the type checker takes.
func TestTypeScriptDiagnosticsIncludeTheTypeCheckersAtOnce(t *testing.T) {
	t.Parallel()
	requireServer(t, "typescript-language-server")
	root := fixture(t, "tsproj")
	m := newTestManager(t, root)
	ctx := context.Background()
	main := filepath.Join(root, "src", "main.ts")
	c, err := m.Client(ctx, main, trusted)
	require.NoError(t, err)

	items, ok, err := c.Diagnostics(ctx, main, IndexWait)
	require.NoError(t, err)
	require.True(t, ok)
	require.Empty(t, items)

	require.NoError(t, os.WriteFile(main, []byte(readFile(t, main)+"\nexport const n: number = 'text'\n"), 0o644))
	items, ok, err = c.Diagnostics(ctx, main, IndexWait)
	require.NoError(t, err)
	require.True(t, ok)
	require.Len(t, items, 1)
	require.Contains(t, items[0].Message, "not assignable to type 'number'")
	require.Equal(t, protocol.DiagnosticSeverityError, items[0].Severity)
	require.Equal(t, uint32(6), items[0].Range.Start.Line) // after the blank line the fixture ends with
	require.Equal(t, uint32(13), items[0].Range.Start.Character)
}
