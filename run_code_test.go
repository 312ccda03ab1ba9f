package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/llm/fakeollama"
	"gantry/internal/lsp"
)

// testToolsDir is where `make test` installs the language servers (scripts/install-deps.sh --test).
func testToolsDir() string {
	if d := os.Getenv("GANTRY_TOOLS_DIR"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "gantry", "tools")
}

// copyTree copies the folder src into a new test folder.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	root := t.TempDir()
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
	return root
}

// processesIn are the processes whose working folder is dir (a language server runs in its
// workspace).
func processesIn(dir string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err == nil && cwd == dir {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestRunHeadlessAsksTheLanguageServerAndLeavesNoServerBehind(t *testing.T) {
	t.Parallel()
	tools := testToolsDir()
	if lsp.Find("gopls", "", "", []string{tools}) == "" {
		if os.Getenv("GANTRY_LSP_REQUIRED") != "" {
			t.Fatal("gopls is not installed; scripts/install-deps.sh --test installs it")
		}
		t.Skip("gopls is not installed")
	}
	root := copyTree(t, filepath.Join("internal", "lsp", "testdata", "goproj"))
	root, err := filepath.EvalSymlinks(root)
	require.NoError(t, err)
	fake := fakeollama.NewTest(t, fakeollama.Script{
		// A window large enough for the full prompt, where every offered tool is listed.
		Models: []fakeollama.Model{{Name: "coder:latest", Arch: "qwen3", ContextLength: 40960, Capabilities: []string{"completion", "tools"}}},
		Turns: []fakeollama.Turn{
			call("find_references", map[string]any{"path": "shapes/shapes.go", "symbolName": "Total"}),
			finished,
		},
	})
	cmd, stdout, stderr := gantryCommand(buildGantry(t), fake, "run", "--workspace", root, "--model", "coder",
		"--data-dir", t.TempDir(), "--config-dir", t.TempDir(), "who uses Total?")
	cmd.Env = append(cmd.Env, "GANTRY_TOOLS_DIR="+tools)
	res := headlessResult(t, cmd.Run(), stdout, stderr)
	require.Equal(t, 0, res.code, res.stderr)

	reqs := fake.Requests()
	var offered []string
	for _, tool := range reqs[0].Tools {
		offered = append(offered, tool.Function.Name)
	}
	require.Contains(t, offered, "find_references", "a Go project with gopls installed gets the code tools")
	got := toolResults(fake)
	require.Contains(t, got, "── main.go ──", got)
	require.Contains(t, got, "shapes.Total(", got)

	// gantry run shut gopls down before it exited: nothing is left running in the project.
	require.Empty(t, processesIn(root))
}
