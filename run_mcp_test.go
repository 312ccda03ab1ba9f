package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/llm/fakeollama"
	"gantry/internal/mcp/mcptest"
)

// `gantry run` offers the person's MCP servers as the app does: a read-only tool runs in the
// default mode, one that may change things needs --yes (nobody can approve), and a project's
// own server file runs only in a trusted folder.
func TestRunHeadlessUsesMCPServers(t *testing.T) {
	t.Parallel()
	bin := buildGantry(t)
	server := mcptest.Build(t)
	fake := fakeollama.NewTest(t, fakeollama.Script{
		Models: []fakeollama.Model{{Name: "coder:latest", Capabilities: []string{"completion", "tools"}}},
	})
	notes := t.TempDir()
	entry := map[string]any{"command": server, "args": []string{"--dir", notes}}
	setup := func(t *testing.T, place string) (root, config string) {
		root, config = t.TempDir(), t.TempDir()
		servers, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"notes": entry}})
		require.NoError(t, err)
		file := filepath.Join(config, "settings.json")
		if place == "project" {
			file = filepath.Join(root, ".gantry", "mcp.json")
			require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
		}
		require.NoError(t, os.WriteFile(file, servers, 0o644))
		return root, config
	}
	run := func(t *testing.T, root, config string, flags ...string) {
		t.Helper()
		args := append([]string{"run", "--workspace", root, "--model", "coder", "--data-dir", t.TempDir(), "--config-dir", config}, flags...)
		res := runGantry(t, bin, fake, append(args, "keep a note")...)
		require.Equal(t, 0, res.code, res.stderr)
	}
	echo := call("mcp__notes__echo", map[string]any{"message": "hello"})
	write := call("mcp__notes__write_note", map[string]any{"name": "todo.txt", "text": "buy milk"})

	t.Run("settings' server: read-only runs, writing needs --yes", func(t *testing.T) {
		root, config := setup(t, "settings")
		fake.Enqueue(echo, write, finished)
		run(t, root, config)
		require.Contains(t, toolResults(fake), "echo: hello")
		require.Contains(t, toolResults(fake), "needs your approval, and nobody can give it in this run; run again with --yes")
		require.NoFileExists(t, filepath.Join(notes, "todo.txt"))

		fake.Enqueue(write, finished)
		run(t, root, config, "--yes")
		require.FileExists(t, filepath.Join(notes, "todo.txt"))
		require.NoError(t, os.Remove(filepath.Join(notes, "todo.txt")))
	})
	t.Run("a project's server runs only with --trust", func(t *testing.T) {
		root, config := setup(t, "project")
		fake.Enqueue(echo, finished)
		run(t, root, config)
		require.Contains(t, toolResults(fake), "comes with this project, which the user has not trusted")

		fake.Enqueue(echo, finished)
		run(t, root, config, "--trust")
		require.Contains(t, toolResults(fake), "echo: hello")
	})
}
