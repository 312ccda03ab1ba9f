package tools

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFirstSentence(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Read a text file. Returns its lines.":                         "Read a text file.",
		"Find files by pattern, e.g. `*.go` or src/**. Returns paths.": "Find files by pattern, e.g. `*.go` or src/**.",
		"Run a command, e.g. to build.\n\nReturns the output.":         "Run a command, e.g. to build.",
		"No full stop here": "No full stop here",
		"One paragraph\nover two lines, v1.2 included.\n\nSecond one.": "One paragraph over two lines, v1.2 included.",
		"  Ends with a stop.  ": "Ends with a stop.",
		"List a folder (folders end with \"/\"). Paths are relative.":      "List a folder (folders end with \"/\").",
		"Check a file: Go (gofmt, go vet). Use it after editing. Returns.": "Check a file: Go (gofmt, go vet).",
		"Run checkers, e.g. Go vet or TypeScript. Returns the output.":     "Run checkers, e.g. Go vet or TypeScript.",
	} {
		require.Equal(t, want, FirstSentence(in), in)
	}
}

// enumTool is sampleTool with an enum on an optional parameter, which inferred schemas never
// carry but a hand-written tool may.
type enumTool struct{ Tool }

func (e enumTool) Description() string {
	return "Changes a file. Several edits apply in order.\n\nReturns what changed."
}

func (e enumTool) Params() *Schema {
	s := *e.Tool.Params()
	props := map[string]*Schema{}
	for k, v := range s.Properties {
		props[k] = v
	}
	lang := *props["language"]
	lang.Enum = []any{"go", "ts"}
	lang.Description = "the file's language"
	props["language"] = &lang
	s.Properties = props
	return &s
}

func TestCompactRenderingKeepsWhatAModelNeeds(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	require.NoError(t, r.Register(enumTool{sampleTool("edit")}))

	full, err := json.Marshal(r.OllamaTools(DetailFull, nil))
	require.NoError(t, err)
	require.Contains(t, string(full), "Several edits apply in order")
	require.Contains(t, string(full), `"how many times"`)
	require.Contains(t, string(full), `"the file's language"`)

	raw, err := json.Marshal(r.OllamaTools(DetailCompact, nil))
	require.NoError(t, err)
	compact := string(raw)
	require.Contains(t, compact, `"description":"Changes a file."`, "the first sentence")
	require.NotContains(t, compact, "Several edits")
	require.Contains(t, compact, `"file to change"`, "a required parameter keeps its description")
	require.NotContains(t, compact, "how many times", "an optional one loses it")
	require.NotContains(t, compact, "the file's language")
	require.Contains(t, compact, `"enum":["go","ts"]`, "enum values stay")
	require.Contains(t, compact, `"exact text to replace"`, "required fields of list items keep theirs")
	for _, name := range []string{`"count"`, `"isRegex"`, `"include"`, `"edits"`, `"language"`} {
		require.Contains(t, compact, name, "every parameter is still offered")
	}
	require.Contains(t, compact, `"required":["path"]`)
	require.Less(t, len(compact), len(full))

	text := r.PromptText(DetailCompact, nil)
	require.Equal(t, `- edit(path: string, count?: integer, isRegex?: boolean, include?: [string], edits?: [{old: string, new: string}], language?: "go"|"ts"): Changes a file.`+"\n", text)
	require.Equal(t, `edit(path: string, count?: integer, isRegex?: boolean, include?: [string], edits?: [{old: string, new: string}], language?: string)`,
		Signature(sampleTool("edit")))
}

// Rendering less of a tool never takes it away: a call to a tool left out of the rendering
// still runs, since the registry still has it.
func TestRenderingFilterLeavesCallsWorking(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	require.NoError(t, r.Register(sampleTool("edit")))
	require.NoError(t, r.Register(sampleTool("other")))
	keep := func(tl Tool) bool { return tl.Name() == "edit" }
	require.Len(t, r.OllamaTools(DetailCompact, keep), 1)
	require.NotContains(t, r.PromptText(DetailCompact, keep), "other")
	res, err := r.Execute(context.Background(), "other", map[string]any{"path": "a.go"}, nil)
	require.NoError(t, err)
	require.False(t, res.Failed(), res.Content)
}

// Every built-in tool's first sentence must say what it is for on its own, since a small
// window gets nothing else; the compact forms must be much smaller than the full ones.
func TestBuiltinsCompactForms(t *testing.T) {
	t.Parallel()
	r, _ := builtinRegistry(t)
	for _, tl := range r.List() {
		s := FirstSentence(tl.Description())
		require.GreaterOrEqual(t, len(s), 15, tl.Name())
		require.Less(t, len(s), 200, "%s: %q", tl.Name(), s)
	}
	full, err := json.Marshal(r.OllamaTools(DetailFull, nil))
	require.NoError(t, err)
	compact, err := json.Marshal(r.OllamaTools(DetailCompact, nil))
	require.NoError(t, err)
	require.Less(t, len(compact)*10, len(full)*7, "compact tools[] %d chars, full %d", len(compact), len(full))
	fullText, compactText := r.PromptText(DetailFull, nil), r.PromptText(DetailCompact, nil)
	require.Less(t, len(compactText)*10, len(fullText)*7, "compact list %d chars, full %d", len(compactText), len(fullText))
	t.Logf("tools[]: full %d chars, compact %d; text list: full %d, compact %d", len(full), len(compact), len(fullText), len(compactText))
}
