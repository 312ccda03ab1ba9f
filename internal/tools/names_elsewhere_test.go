package tools

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A tool is its file and its description: nothing outside this package may know a built-in
// tool by name (issue 13), or renaming one would silently break whatever did.
func TestNoBuiltInToolIsNamedOutsideThisPackage(t *testing.T) {
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	names := map[string]bool{}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".md") {
			names[strings.TrimSuffix(e.Name(), ".md")] = true
		}
	}
	require.Contains(t, names, "read_file", "the tool descriptions are the .md files here")

	var files []string
	for _, dir := range []string{"../agent", "../../app", "../.."} {
		matches, err := filepath.Glob(filepath.Join(dir, "*.go"))
		require.NoError(t, err)
		require.NotEmpty(t, matches, dir)
		for _, m := range matches {
			if !strings.HasSuffix(m, "_test.go") {
				files = append(files, m)
			}
		}
	}
	fset := token.NewFileSet()
	for _, file := range files {
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && names[s] {
				t.Errorf("%s names the tool %q", fset.Position(lit.Pos()), s)
			}
			return true
		})
	}
}
