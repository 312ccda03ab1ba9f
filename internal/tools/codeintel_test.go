package tools

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/lsp"
	"gantry/internal/terminal"
)

// lspTools is where `make test` installs the language servers (see internal/lsp's tests).
func lspTools() string {
	if d := os.Getenv("GANTRY_TOOLS_DIR"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "gantry", "tools")
}

func requireLanguageServer(t *testing.T, program string) {
	t.Helper()
	if lsp.Find(program, "", "", []string{lspTools()}) != "" {
		return
	}
	if os.Getenv("GANTRY_LSP_REQUIRED") != "" {
		t.Fatalf("%s is not installed; scripts/install-deps.sh --test installs it", program)
	}
	t.Skipf("%s is not installed", program)
}

// codeFixture copies one of internal/lsp's fixture projects and registers the built-in tools
// over it with its language servers.
func codeFixture(t *testing.T, name string, approver Approver) (string, *Registry) {
	t.Helper()
	root := t.TempDir()
	src := filepath.Join("..", "lsp", "testdata", name)
	require.NoError(t, filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(root, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(root, rel), data, 0o644)
	}))
	m := lsp.NewManager(lsp.Options{Root: root, ToolsDirs: []string{lspTools()}})
	t.Cleanup(m.Close)
	env := &Env{Root: root, Approver: approver, Checkpoints: NoCheckpoints{}, Code: m}
	reg, err := NewBuiltinRegistry(env, terminal.NewSession(root))
	require.NoError(t, err)
	return root, reg
}

func ask(t *testing.T, reg *Registry, tool string, args map[string]any) Result {
	t.Helper()
	res, err := reg.Execute(context.Background(), tool, args, nil)
	require.NoError(t, err)
	return res
}

func TestCodeIntelligenceToolsOnGo(t *testing.T) {
	t.Parallel()
	requireLanguageServer(t, "gopls")
	_, reg := codeFixture(t, "goproj", PolicyApprover{TrustFolder: true})

	res := ask(t, reg, "find_definition", map[string]any{"path": "main.go", "symbolName": "Total"})
	require.False(t, res.Failed(), res.Content)
	require.Contains(t, res.Content, "1 declaration of the symbol at main.go:14:")
	require.Contains(t, res.Content, "── shapes/shapes.go:24 ──\n")
	require.Contains(t, res.Content, "→ 24: func Total(shapes ...Shape) float64 {")
	require.Equal(t, []Place{{Path: "shapes/shapes.go", Line: 24, Text: "func Total(shapes ...Shape) float64 {"}}, res.Meta.Places)

	res = ask(t, reg, "find_references", map[string]any{"path": "shapes/shapes.go", "symbolName": "Area", "line": 8})
	require.False(t, res.Failed(), res.Content)
	require.Contains(t, res.Content, "── shapes/shapes.go ──\n")
	require.Contains(t, res.Content, "→ 27: sum += s.Area()")

	res = ask(t, reg, "find_implementations", map[string]any{"path": "shapes/shapes.go", "symbolName": "Shape"})
	require.Contains(t, res.Content, "type Square struct")
	require.Contains(t, res.Content, "type Circle struct")

	res = ask(t, reg, "get_document_symbols", map[string]any{"path": "shapes/shapes.go"})
	require.Contains(t, res.Content, "24: function Total")
	require.Contains(t, res.Content, "\n  8: method Area") // nested in the interface

	res = ask(t, reg, "get_hover_info", map[string]any{"path": "main.go", "symbolName": "Total"})
	require.Contains(t, res.Content, "func shapes.Total(shapes ...shapes.Shape) float64")

	res = ask(t, reg, "find_symbol", map[string]any{"query": "Circle"})
	require.Contains(t, res.Content, "Circle (struct) shapes/shapes.go:18")

	res = ask(t, reg, "get_call_hierarchy", map[string]any{"path": "shapes/shapes.go", "symbolName": "Total"})
	require.Contains(t, res.Content, "Total (shapes/shapes.go:24) is called by 1 function:")
	require.Contains(t, res.Content, "- describe (function) main.go:13")
	require.Contains(t, res.Content, "→ main.go:14: return fmt.Sprintf")

	res = ask(t, reg, "get_call_hierarchy", map[string]any{"path": "main.go", "symbolName": "describe", "direction": "outgoing"})
	require.Contains(t, res.Content, "describe (main.go:13) calls")
	require.Contains(t, res.Content, "- Total (function) shapes/shapes.go:24")

	res = ask(t, reg, "find_definition", map[string]any{"path": "main.go", "symbolName": "Totl"})
	require.Equal(t, ErrInvalidArguments, res.ErrorKind)
	require.Contains(t, res.Content, `"Totl" does not appear in the file as a name`)
}

func TestCodeIntelligenceToolsOnTypeScriptAndPython(t *testing.T) {
	t.Parallel()
	requireLanguageServer(t, "typescript-language-server")
	requireLanguageServer(t, "pyright-langserver")
	for _, tc := range []struct{ fixture, main, shapes string }{
		{"tsproj", "src/main.ts", "src/shapes.ts"}, {"pyproj", "main.py", "pkg/shapes.py"},
	} {
		_, reg := codeFixture(t, tc.fixture, PolicyApprover{})
		res := ask(t, reg, "find_references", map[string]any{"path": tc.main, "symbolName": "total"})
		require.False(t, res.Failed(), res.Content)
		require.Contains(t, res.Content, "── "+tc.shapes+" ──", tc.fixture)
		require.Contains(t, res.Content, "── "+tc.main+" ──", tc.fixture)
		res = ask(t, reg, "get_document_symbols", map[string]any{"path": tc.shapes})
		require.Contains(t, res.Content, "Square", tc.fixture)
	}
}

func TestCodeIntelligenceWithoutAServerSaysWhatToDo(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "main.rs"), []byte("fn main() {}\n"), 0o644))
	m := lsp.NewManager(lsp.Options{Root: root, ToolsDirs: []string{t.TempDir()}, Overrides: map[string]string{"rust": filepath.Join(root, "nowhere")}})
	t.Cleanup(m.Close)
	env := &Env{Root: root, Approver: PolicyApprover{TrustFolder: true}, Checkpoints: NoCheckpoints{}, Code: m}
	res, err := FindDefinition(env).Execute(context.Background(), map[string]any{"path": "main.rs", "symbolName": "main"}, Discard)
	require.NoError(t, err)
	require.Equal(t, ErrNotFound, res.ErrorKind)
	require.Contains(t, res.Content, "No language server for Rust files")
	require.Contains(t, res.Content, "Use search_workspace and read_file instead.")

	// Not offered at all where no server could answer.
	reg, err := NewBuiltinRegistry(env, terminal.NewSession(root))
	require.NoError(t, err)
	narrowed, err := reg.Select(func(t Tool) (Tool, bool) { return ForAccess(t, Access{Write: true}) })
	require.NoError(t, err)
	for _, tl := range narrowed.List() {
		require.False(t, strings.HasPrefix(tl.Name(), "find_"), tl.Name())
	}
}

func TestAnEditIsCheckedByTheLanguageServer(t *testing.T) {
	t.Parallel()
	requireLanguageServer(t, "gopls")
	root, reg := codeFixture(t, "goproj", PolicyApprover{AllowEdits: true, TrustFolder: true})
	// An error that was there before the edit is not the edit's.
	main := filepath.Join(root, "main.go")
	old, err := os.ReadFile(main)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(main, append(old, []byte("\nvar broken = missingBefore\n")...), 0o644))

	res := ask(t, reg, "edit_file", map[string]any{"path": "main.go", "old": "shapes.Total(", "new": "shapes.Totl("})
	require.False(t, res.Failed(), res.Content)
	require.Contains(t, res.Content, "gopls found 1 error in main.go that this change brought in; fix them next:")
	require.Contains(t, res.Content, "main.go:14:")
	require.Contains(t, res.Content, "Totl")
	require.NotContains(t, res.Content, "missingBefore")
	require.Len(t, res.Meta.Problems, 1)
	require.Equal(t, 14, res.Meta.Problems[0].Line)

	res = ask(t, reg, "edit_file", map[string]any{"path": "main.go", "old": "shapes.Totl(", "new": "shapes.Total("})
	require.False(t, res.Failed(), res.Content)
	require.NotContains(t, res.Content, "brought in", "fixing an error reports nothing new")
	require.Empty(t, res.Meta.Problems)

	res = ask(t, reg, "get_diagnostics", map[string]any{"path": "main.go"})
	require.Contains(t, res.Content, "gopls found 1 problem in main.go:")
	require.Contains(t, res.Content, "missingBefore")
}
