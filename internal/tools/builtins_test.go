package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/ignore"
	"gantry/internal/safety"
	"gantry/internal/terminal"
)

func builtinRegistry(t *testing.T) (*Registry, string) {
	t.Helper()
	root := t.TempDir()
	env := &Env{Root: root, Ignore: ignore.New(root), Approver: PolicyApprover{AllowCommands: true, AllowEdits: true},
		Checkpoints: NoCheckpoints{}, FileRules: safety.DefaultFileRules()}
	r, err := NewBuiltinRegistry(env, terminal.NewSession(root))
	require.NoError(t, err)
	return r, root
}

func TestBuiltinsAreTheSpecTools(t *testing.T) {
	t.Parallel()
	r, _ := builtinRegistry(t)
	var names []string
	for _, tl := range r.List() {
		names = append(names, tl.Name())
		require.NotEmpty(t, strings.TrimSpace(tl.Description()), tl.Name())
		require.Less(t, len(strings.Fields(tl.Description())), 120, "%s: descriptions stay short for small models", tl.Name())
	}
	require.ElementsMatch(t, []string{"read_file", "write_file", "edit_file", "list_files", "search_workspace", "glob",
		"run_terminal_command", "get_diagnostics", "undo_file", "undo_turn",
		"get_document_symbols", "find_definition", "find_references", "find_implementations", "find_symbol",
		"get_hover_info", "get_call_hierarchy", "get_type_hierarchy",
		"task_create", "task_update", "task_get", "task_list", "spawn_agent"}, names)
	require.Len(t, r.OllamaTools(DetailFull, nil), 23)
	readOnly := r.OllamaTools(DetailFull, func(tl Tool) bool { return tl.Kind().ReadOnly() })
	require.Len(t, readOnly, 17, "read, list, glob, search, diagnostics, the eight code intelligence tools and the task list's four")
}

// The text prompt is paid for on every request of a small-window model: keep it small.
func TestPromptTextStaysCompact(t *testing.T) {
	t.Parallel()
	r, _ := builtinRegistry(t)
	// Without a language server the code intelligence tools are not offered (Offerer).
	offered, err := r.Select(func(tl Tool) (Tool, bool) { return ForAccess(tl, Access{Write: true}) })
	require.NoError(t, err)
	text := offered.PromptText(DetailFull, nil)
	// About four characters per token for English and code.
	require.Less(t, len(text)/4, 1500, "the tool section is %d characters", len(text))
}

func TestSynonymsReachTheRightArguments(t *testing.T) {
	t.Parallel()
	r, root := builtinRegistry(t)
	require.NoError(t, os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\nfunc Load() {}\n"), 0o644))
	ctx := context.Background()

	res, err := r.Execute(ctx, "search_workspace", map[string]any{"pattern": "func Load"}, nil)
	require.NoError(t, err)
	require.False(t, res.Failed(), res.Content)
	require.Contains(t, res.Content, "a.go")

	res, err = r.Execute(ctx, "run_terminal_command", map[string]any{"cmd": "echo hi"}, nil)
	require.NoError(t, err)
	require.False(t, res.Failed(), res.Content)
	require.Contains(t, res.Content, "hi")

	res, err = r.Execute(ctx, "write_file", map[string]any{"filePath": "b.txt", "contents": "x\n"}, nil)
	require.NoError(t, err)
	require.False(t, res.Failed(), res.Content)
	got, err := os.ReadFile(filepath.Join(root, "b.txt"))
	require.NoError(t, err)
	require.Equal(t, "x\n", string(got))
}
