package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/require"

	"gantry/internal/events"
	"gantry/internal/llm/fakeollama"
)

// compactNumCtx is the window of the compaction tests, the fake model's context length. The
// native path's system prompt and tool schemas (the task list's included) cost some 1,800
// tokens of it, at the compact
// level PlanPrompt chooses for this window.
const compactNumCtx = 4096

// compactBigFile is about 480 tokens of text: two reads of such files still fit in 75 % of the
// window, three do not.
func compactBigFile(marker string) string {
	var b strings.Builder
	for i := range 24 {
		line := fmt.Sprintf("%s line %02d ", marker, i)
		b.WriteString(line + strings.Repeat("x", 79-len(line)) + "\n")
	}
	return b.String()
}

func TestRunCompactsLongSession(t *testing.T) {
	t.Parallel()
	read := func(p string) fakeollama.Turn {
		return fakeollama.Turn{Chunks: []fakeollama.Chunk{call("read_file", map[string]any{"path": p})}}
	}
	f := newRunFixture(t, []fakeollama.Turn{
		read("a.txt"), read("b.txt"), read("c.txt"),
		textTurn("The task: fix the typo in main.go. Read a.txt and b.txt; nothing relevant there."),
		{Chunks: []fakeollama.Chunk{call("edit_file", map[string]any{"path": "main.go", "old": `"helo"`, "new": `"hello"`})}},
		{Chunks: []fakeollama.Chunk{call("run_terminal_command", map[string]any{"command": "echo ok"})}},
		textTurn("Fixed the typo. [TASK_COMPLETE]"),
		// The second run: its history is too long again and the summary fails.
		{Status: 400, Error: "no summary today"},
		textTurn("I fixed the typo in main.go."),
	}, allowAll)
	for _, name := range []string{"a", "b", "c"} {
		require.NoError(t, os.WriteFile(filepath.Join(f.root, name+".txt"), []byte(compactBigFile(strings.ToUpper(name)+"MARK")), 0o644))
	}
	run := func(id, text string) RunResult {
		res, err := f.runner.Run(context.Background(), RunRequest{
			SessionID: f.sessionID, RunID: id, Workspace: f.root, Mode: ModeAgent, Model: "coder", Text: text, NumCtxCap: compactNumCtx,
		})
		require.NoError(t, err)
		return res
	}

	res := run("run-1", "read a.txt, b.txt and c.txt, then fix the typo in main.go")
	require.Equal(t, StatusDone, res.Status, res.Message)
	require.Contains(t, f.file("main.go"), `"hello"`)

	reqs := f.fake.Requests()
	require.Len(t, reqs, 7)
	require.Len(t, reqs[0].Tools, 14, "compact: every tool, described briefly")
	require.Equal(t, "Read a text file; its lines come numbered like `12| text` (the number and \"| \" are not part of the file).",
		reqs[0].Tools[0].Function.Description)
	for i, r := range reqs {
		if i != 3 {
			requireValidHistory(t, r.Messages)
		}
	}
	require.Contains(t, reqs[1].Messages[0].Content, "SESSION MEMORY", "memory joins the prompt once there is something to note")
	require.Contains(t, reqs[1].Messages[0].Content, "Files read: a.txt")

	// The summary request: no tools, the older turns as a transcript.
	summary := reqs[3]
	require.Empty(t, summary.Tools)
	require.Contains(t, summary.Messages[1].Content, "AMARK")
	require.Contains(t, summary.Messages[1].Content, "BMARK")
	require.NotContains(t, summary.Messages[1].Content, "CMARK", "the last exchange stays verbatim")

	after := reqs[4].Messages
	require.Equal(t, "user", after[1].Role)
	require.Equal(t, "read a.txt, b.txt and c.txt, then fix the typo in main.go", after[1].Content, "the task stays")
	require.Equal(t, compactSummaryPrefix+"The task: fix the typo in main.go. Read a.txt and b.txt; nothing relevant there.", after[2].Content)
	require.Equal(t, "c.txt", after[3].ToolCalls[0].Function.Arguments.ToMap()["path"])
	require.Contains(t, after[4].Content, "CMARK")
	for _, m := range after {
		require.NotContains(t, m.Content, "AMARK")
		require.NotContains(t, m.Content, "BMARK")
	}
	require.Contains(t, after[0].Content, "Files read: c.txt, b.txt, a.txt", "the memory keeps what the summary replaced")
	last := reqs[6].Messages[0].Content
	require.Contains(t, last, "Files changed: main.go (+1 −1)")
	require.Contains(t, last, "Commands run: `echo ok` (exit 0)")

	compacted := compactEvents(t, f)
	require.Len(t, compacted, 1)
	require.Equal(t, 4, compacted[0].SummarisedMessages)
	require.Empty(t, compacted[0].Fallback)
	require.Greater(t, compacted[0].Before, compactNumCtx*3/4)
	require.Less(t, compacted[0].After, compacted[0].Before)
	require.Len(t, f.messages(), 12, "the store keeps every message")

	// A second run loads the whole session: the memory is there from its first request, and
	// when the summary fails the older turns are dropped, leaving a valid history.
	res = run("run-2", "list what you did")
	require.Equal(t, StatusDone, res.Status, res.Message)
	reqs = f.fake.Requests()
	require.Len(t, reqs, 9)
	second := reqs[8].Messages
	requireValidHistory(t, second)
	require.Contains(t, second[0].Content, "Files changed: main.go (+1 −1)")
	require.Contains(t, second[0].Content, "Commands run: `echo ok` (exit 0)")
	require.Contains(t, second[1].Content, "earlier messages were dropped")
	require.Equal(t, "list what you did", second[len(second)-1].Content)
	compacted = compactEvents(t, f)
	require.Len(t, compacted, 2)
	require.Contains(t, compacted[1].Fallback, "no summary today")
	require.Less(t, compacted[1].After, compactNumCtx*3/4)
}

func compactEvents(t *testing.T, f *runFixture) []ContextCompactedPayload {
	t.Helper()
	var out []ContextCompactedPayload
	for _, ev := range f.log() {
		if ev.Type == events.ContextCompacted {
			var p ContextCompactedPayload
			require.NoError(t, json.Unmarshal(ev.Payload, &p))
			out = append(out, p)
		}
	}
	return out
}

// requireValidHistory checks a request as Ollama's native format needs it: the system prompt
// first, every tool message answering a call of the assistant message before it, every call
// answered, and no two assistant messages in a row.
func requireValidHistory(t *testing.T, msgs []api.Message) {
	t.Helper()
	require.Equal(t, "system", msgs[0].Role)
	open := 0 // calls of the last assistant message not yet answered
	for i, m := range msgs[1:] {
		switch m.Role {
		case "tool":
			require.Positive(t, open, "message %d: a tool result without its call", i+1)
			open--
			continue
		case "assistant":
			require.NotEqual(t, "assistant", msgs[i].Role, "message %d: two assistant messages in a row", i+1)
		}
		require.Zero(t, open, "message %d: a call without its result", i+1)
		open = len(m.ToolCalls)
	}
	require.Zero(t, open, "the last calls have no results")
}

func TestRecentTurnsStart(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 4000) // 1,000 tokens
	msgs := []api.Message{
		{Role: "user", Content: "task"},
		memNativeCall("read_file", map[string]any{"path": "a"}), {Role: "tool", Content: big},
		memNativeCall("read_file", map[string]any{"path": "b"}), {Role: "tool", Content: "short"},
		{Role: "assistant", Content: "done"}, {Role: "user", Content: "more"},
	}
	require.Equal(t, 3, recentTurnsStart(msgs, 100), "earlier turns while they fit")
	require.Equal(t, 1, recentTurnsStart(msgs, 2000))
	require.Equal(t, 5, recentTurnsStart(msgs[:6], 1), "the last exchange whatever its size")
	require.Equal(t, 0, recentTurnsStart(msgs[:1], 100), "no assistant message: nothing to keep apart")
}
