package agent

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/require"

	"gantry/internal/tools"
)

func memNativeCall(name string, args map[string]any) api.Message {
	fa := api.NewToolCallFunctionArguments()
	for k, v := range args {
		fa.Set(k, v)
	}
	return api.Message{Role: "assistant", ToolCalls: []api.ToolCall{{Function: api.ToolCallFunction{Name: name, Arguments: fa}}}}
}

// observeLegacy has m observe messages written before metas were stored, read from their
// words as loadHistory does.
func observeLegacy(m *sessionMemory, msgs []api.Message) {
	var l legacyReader
	metas := make([]messageMeta, len(msgs))
	for i, msg := range msgs {
		metas[i] = l.meta(msg)
	}
	m.observe(msgs, nil, metas)
}

func TestSessionMemoryFromMetas(t *testing.T) {
	t.Parallel()
	m := newSessionMemory()
	results := func(ms ...tools.Meta) messageMeta {
		var out messageMeta
		for _, r := range ms {
			out.Results = append(out.Results, resultMeta{Tool: "any", Meta: r})
		}
		return out
	}
	msgs := []api.Message{{Role: "user", Content: "fix it"}, {Role: "tool"}, {Role: "tool"}, {Role: "user"}}
	m.observe(msgs, nil, []messageMeta{
		{},
		results(tools.Meta{Read: []tools.ReadSpan{{Path: "main.go", From: 1, To: 3, Total: 3}}}),
		results(tools.Meta{Changed: []tools.FileChange{{Path: "main.go", Added: 2, Removed: 1}}}),
		results(tools.Meta{Command: &tools.CommandRun{Command: "go test ./...", ExitCode: 1}},
			tools.Meta{Changed: []tools.FileChange{{Path: "new.go", Added: 3, Created: true}}}),
	})
	require.Equal(t, "Files changed: new.go (+3 −0), main.go (+2 −1)\n"+
		"Commands run: `go test ./...` (exit 1)", m.String())
}

// The same notes from messages written before metas were stored, read from their words.
func TestSessionMemoryNative(t *testing.T) {
	t.Parallel()
	m := newSessionMemory()
	observeLegacy(m, []api.Message{
		{Role: "user", Content: "fix it"},
		memNativeCall("read_file", map[string]any{"path": "main.go"}),
		{Role: "tool", ToolName: "read_file", Content: "main.go (3 lines):\n1\tpackage main"},
		memNativeCall("read_file", map[string]any{"path": "gone.go"}),
		{Role: "tool", ToolName: "read_file", Content: `"gone.go" does not exist.`},
		memNativeCall("edit_file", map[string]any{"path": "main.go", "old": "a", "new": "b"}),
		{Role: "tool", ToolName: "edit_file", Content: "Edited main.go (+1 −1)."},
		memNativeCall("edit_file", map[string]any{"path": "main.go", "old": "c", "new": "d\ne"}),
		{Role: "tool", ToolName: "edit_file", Content: "Edited main.go (+2 −1)."},
		memNativeCall("write_file", map[string]any{"path": "new.go", "content": "x"}),
		{Role: "tool", ToolName: "write_file", Content: "Created new.go (3 lines)."},
		memNativeCall("run_terminal_command", map[string]any{"command": "go test ./..."}),
		{Role: "tool", ToolName: "run_terminal_command", Content: "FAIL\n[exit code 1, 2s]"},
		memNativeCall("run_terminal_command", map[string]any{"command": "rm -rf /"}),
		{Role: "tool", ToolName: "run_terminal_command", Content: "The user did not allow this command."},
		memNativeCall("read_file", map[string]any{"path": "util.go"}),
		{Role: "tool", ToolName: "read_file", Content: "util.go (10 lines):\n1\tpackage main"},
	})
	require.Equal(t, "Files changed: new.go (+3 −0), main.go (+3 −2)\n"+
		"Files read: util.go\n"+
		"Commands run: `go test ./...` (exit 1)", m.String())
}

func TestSessionMemoryTextPath(t *testing.T) {
	t.Parallel()
	m := newSessionMemory()
	calls := "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}</tool_call>\n" +
		"<tool_call>{\"name\": \"run_terminal_command\", \"arguments\": {\"command\": \"ls\"}}</tool_call>"
	results, _ := resultMessages(nil, []toolFeedback{
		{tool: "read_file", content: "a.go (1 line):\n1\tpackage a"},
		{tool: "run_terminal_command", content: "a.go\n[exit code 0, 3ms]"},
	})
	observeLegacy(m, append([]api.Message{{Role: "assistant", Content: calls}}, results...))
	require.Equal(t, "Files read: a.go\nCommands run: `ls` (exit 0)", m.String())
}

func TestSessionMemoryKeepsNewest(t *testing.T) {
	t.Parallel()
	m := newSessionMemory()
	var msgs []api.Message
	for i := range 200 {
		p := fmt.Sprintf("src/package%03d/file.go", i)
		msgs = append(msgs, memNativeCall("read_file", map[string]any{"path": p}),
			api.Message{Role: "tool", ToolName: "read_file", Content: p + " (1 line):\n1\tx"})
	}
	observeLegacy(m, msgs)
	s := m.String()
	require.LessOrEqual(t, len(s), memoryCap)
	require.True(t, strings.HasPrefix(s, "Files read: src/package199/file.go, src/package198/file.go"), s)
	require.NotContains(t, s, "package000")
}
