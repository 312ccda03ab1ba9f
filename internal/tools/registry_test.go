package tools

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite golden files")

type sampleEdit struct {
	Old string `json:"old" jsonschema:"exact text to replace"`
	New string `json:"new" jsonschema:"replacement text"`
}

type sampleParams struct {
	Path     string       `json:"path" jsonschema:"file to change"`
	Count    int          `json:"count,omitempty" jsonschema:"how many times"`
	IsRegex  bool         `json:"isRegex,omitempty"`
	Include  []string     `json:"include,omitempty"`
	Edits    []sampleEdit `json:"edits,omitempty"`
	Language string       `json:"language,omitempty"`
}

// sampleTool echoes the decoded parameters so tests see exactly what a tool would receive.
func sampleTool(name string) Tool {
	return Define(name, KindEdit, "Changes a file.", About{}, func(_ context.Context, p sampleParams, _ Output) (Result, error) {
		raw, _ := json.Marshal(p)
		return Result{Content: string(raw)}, nil
	})
}

func TestRegisterRefusesDuplicatesAndKeepsOrder(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	require.NoError(t, r.Register(sampleTool("b")))
	require.NoError(t, r.Register(sampleTool("a")))
	require.NoError(t, r.Register(sampleTool("c")))
	require.ErrorContains(t, r.Register(sampleTool("a")), "already registered")

	names := func() []string {
		var out []string
		for _, tl := range r.List() {
			out = append(out, tl.Name())
		}
		return out
	}
	require.Equal(t, []string{"b", "a", "c"}, names())
	require.True(t, r.Unregister("a"))
	require.False(t, r.Unregister("a"))
	require.Equal(t, []string{"b", "c"}, names())
	_, ok := r.Get("a")
	require.False(t, ok)
	got, ok := r.Get("c")
	require.True(t, ok)
	require.Equal(t, "c", got.Name())
}

func run(t *testing.T, args map[string]any) Result {
	t.Helper()
	r := NewRegistry()
	require.NoError(t, r.Register(sampleTool("edit")))
	res, err := r.Execute(context.Background(), "edit", args, nil)
	require.NoError(t, err)
	return res
}

func decoded(t *testing.T, res Result) sampleParams {
	t.Helper()
	require.False(t, res.Failed(), res.Content)
	var p sampleParams
	require.NoError(t, json.Unmarshal([]byte(res.Content), &p))
	return p
}

func TestPathAliasesAndNameSpellings(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"path", "file", "filePath", "file_path", "filename"} {
		p := decoded(t, run(t, map[string]any{key: "a.go"}))
		require.Equal(t, "a.go", p.Path, key)
	}
	p := decoded(t, run(t, map[string]any{"path": "a.go", "is_regex": true}))
	require.True(t, p.IsRegex)
	p = decoded(t, run(t, map[string]any{"path": "a.go", "file": "b.go"}))
	require.Equal(t, "a.go", p.Path, "the schema's own name wins over an alias")
}

func TestWeakTypesAreCoerced(t *testing.T) {
	t.Parallel()
	p := decoded(t, run(t, map[string]any{
		"path": 42.0, "count": "5", "isRegex": "true", "include": "**/*.go",
		"edits": `[{"old": "a", "new": 7}]`,
	}))
	require.Equal(t, sampleParams{Path: "42", Count: 5, IsRegex: true, Include: []string{"**/*.go"},
		Edits: []sampleEdit{{Old: "a", New: "7"}}}, p)

	p = decoded(t, run(t, map[string]any{"path": "a", "isRegex": "no", "count": 3.0, "include": `["a","b"]`}))
	require.False(t, p.IsRegex)
	require.Equal(t, 3, p.Count)
	require.Equal(t, []string{"a", "b"}, p.Include)

	// JSON text for a string parameter that a call format decoded on the way (a file's content
	// that is JSON, in Qwen3-Coder's XML form) is text again.
	p = decoded(t, run(t, map[string]any{"path": "a", "language": map[string]any{"a": 1.0}}))
	require.Equal(t, `{"a":1}`, p.Language)
}

func TestExtraArgumentsAreIgnored(t *testing.T) {
	t.Parallel()
	p := decoded(t, run(t, map[string]any{"path": "a.go", "reasoning": "because"}))
	require.Equal(t, "a.go", p.Path)
}

func TestValidationErrorsNameTheField(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, `missing required argument(s): path`},
		{map[string]any{"path": "a", "count": "many"}, `argument "count": expected integer, got string (many)`},
		{map[string]any{"path": "a", "count": 2.5}, `argument "count": expected integer`},
		{map[string]any{"path": "a", "edits": []any{map[string]any{"old": "x"}}}, `argument "edits[]" is missing new`},
		{map[string]any{"path": "a", "edits": []any{map[string]any{"old": []any{1}, "new": "y"}}}, `argument "edits[].old": expected string, got array`},
	}
	for _, c := range cases {
		res := run(t, c.args)
		require.Equal(t, ErrInvalidArguments, res.ErrorKind, "%v", c.args)
		require.Contains(t, res.Content, c.want, "%v", c.args)
		require.Contains(t, res.Content, "Parameters: (path: string", "the model is shown the signature")
	}
}

func TestUnknownToolListsTheAvailableOnes(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	require.NoError(t, r.Register(sampleTool("write_file")))
	require.NoError(t, r.Register(sampleTool("read_file")))
	res, err := r.Execute(context.Background(), "readfile", nil, nil)
	require.NoError(t, err)
	require.Equal(t, ErrUnknownTool, res.ErrorKind)
	require.Contains(t, res.Content, "read_file, write_file")
}

func TestOllamaToolsKeepPropertyOrder(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	require.NoError(t, r.Register(sampleTool("edit")))
	tools := r.OllamaTools(DetailFull, nil)
	require.Len(t, tools, 1)
	raw, err := json.Marshal(tools[0])
	require.NoError(t, err)
	s := string(raw)
	order := []string{`"path"`, `"count"`, `"isRegex"`, `"include"`, `"edits"`, `"language"`}
	last := -1
	for _, key := range order {
		i := indexAfter(s, key, last)
		require.Greater(t, i, last, "%s out of order in %s", key, s)
		last = i
	}
	require.Contains(t, s, `"required":["path"]`)
	require.Contains(t, s, `"include":{"type":"array","items":{"type":"string"}}`)
	require.NotContains(t, s, `"null"`)
	require.Empty(t, r.OllamaTools(DetailFull, func(Tool) bool { return false }))
}

func indexAfter(s, sub string, after int) int {
	for i := after + 1; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func TestPromptTextGolden(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	require.NoError(t, r.Register(sampleTool("edit")))
	got := r.PromptText(DetailFull, nil)
	golden := filepath.Join("testdata", "TestPromptTextGolden", "edit.golden")
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	require.Equal(t, string(want), got)
}
