package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/require"

	"gantry/internal/events"
	"gantry/internal/llm/fakeollama"
	"gantry/internal/tools"
)

// staleNotes are the stale-file notes a request carried.
func staleNotes(req api.ChatRequest) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == "user" && strings.HasPrefix(m.Content, staleNoteHead) {
			out = append(out, strings.TrimPrefix(m.Content, staleNoteHead+"\n"))
		}
	}
	return out
}

// nextMillisecond waits for the wall clock to enter its next millisecond: a file dated after
// that is newer, at the history's precision, than everything saved before the call.
func nextMillisecond(t *testing.T) {
	t.Helper()
	now := msTrunc(time.Now())
	require.Eventually(t, func() bool { return msTrunc(time.Now()).After(now) }, time.Minute, 100*time.Microsecond)
}

// touch writes a file the way the person's editor would, a moment after the run.
func touch(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	now := time.Now()
	require.NoError(t, os.Chtimes(path, now, now))
}

func TestStaleFilesAreNamedAtTheNextRunOnce(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, []fakeollama.Turn{
		{Chunks: []fakeollama.Chunk{call("read_file", map[string]any{"path": "main.go"}), call("read_file", map[string]any{"path": "./notes.txt"})}},
		textTurn("Read both. [TASK_COMPLETE]"),
		{Chunks: []fakeollama.Chunk{call("read_file", map[string]any{"path": "main.go"})}},
		textTurn("Read it again. [TASK_COMPLETE]"),
	}, allowAll)
	require.NoError(t, os.WriteFile(filepath.Join(f.root, "notes.txt"), []byte("todo\n"), 0o644))
	run := func(id, text string) {
		res, err := f.runner.Run(context.Background(), RunRequest{SessionID: f.sessionID, RunID: id, Workspace: f.root, Mode: ModeAgent, Model: "coder", Text: text})
		require.NoError(t, err)
		require.Equal(t, StatusDone, res.Status, res.Message)
	}

	run("run-1", "read main.go and the notes")
	for _, req := range f.fake.Requests() {
		require.Empty(t, staleNotes(req), "nothing changed during the first run")
	}

	nextMillisecond(t)
	touch(t, filepath.Join(f.root, "main.go"), "package main // the person's edit\n")
	require.NoError(t, os.Remove(filepath.Join(f.root, "notes.txt")))
	run("run-2", "and now?")

	reqs := f.fake.Requests()
	require.Len(t, reqs, 4)
	require.Equal(t, []string{"- main.go\n- notes.txt (deleted)"}, staleNotes(reqs[2]), "named by the workspace path, however the model spelt it")
	require.Equal(t, staleNotes(reqs[2]), staleNotes(reqs[3]), "said once: the next request only carries the same note in its history")
	last := reqs[2].Messages[len(reqs[2].Messages)-1]
	require.True(t, strings.HasPrefix(last.Content, staleNoteHead), "the note follows the person's message")

	// The person sees that the model was told, once, in run 2.
	var told []FilesChangedOnDiskPayload
	for _, ev := range f.log() {
		if ev.Type == events.FilesChangedOnDisk {
			require.Equal(t, "run-2", ev.RunID)
			var p FilesChangedOnDiskPayload
			require.NoError(t, json.Unmarshal(ev.Payload, &p))
			told = append(told, p)
		}
	}
	require.Equal(t, []FilesChangedOnDiskPayload{{Changed: []string{"main.go"}, Deleted: []string{"notes.txt"}}}, told)

	// A third run, after a restart of the session's runner, has nothing new to say.
	f.fake.Enqueue(textTurn("Nothing to do. [TASK_COMPLETE]"))
	run("run-3", "anything else?")
	reqs = f.fake.Requests()
	require.Len(t, staleNotes(reqs[4]), 1, "the history still holds the one note; no new one")
}

func TestStaleFilesSkipTheModelsOwnEditsButNotItsCommands(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, []fakeollama.Turn{
		{Chunks: []fakeollama.Chunk{call("read_file", map[string]any{"path": "main.go"})}},
		{Chunks: []fakeollama.Chunk{call("edit_file", map[string]any{"path": "main.go", "old": `"helo"`, "new": `"hello"`})}},
		{Chunks: []fakeollama.Chunk{call("run_terminal_command", map[string]any{"command": "sleep 0.01; echo '// formatted' >> main.go"})}},
		textTurn("Done. [TASK_COMPLETE]"),
	}, allowAll)
	res := f.run(context.Background(), "coder", "fix the typo")
	require.Equal(t, StatusDone, res.Status, res.Message)

	reqs := f.fake.Requests()
	require.Len(t, reqs, 4)
	require.Empty(t, staleNotes(reqs[1]), "its own read")
	require.Empty(t, staleNotes(reqs[2]), "its own edit")
	require.Equal(t, []string{"- main.go"}, staleNotes(reqs[3]), "a command it ran rewrote the file")
}

func TestStaleNoteListIsCapped(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	m := newSessionMemory()
	seen := time.Now().Add(-time.Hour)
	var msgs []api.Message
	var times []time.Time
	var metas []messageMeta
	for i := range staleListCap + 5 {
		p := "pkg/" + strings.Repeat("x", i+1) + ".go"
		require.NoError(t, os.MkdirAll(filepath.Join(root, "pkg"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, p), []byte("x"), 0o644))
		msgs = append(msgs, api.Message{Role: "tool"})
		times = append(times, seen)
		metas = append(metas, messageMeta{Results: []resultMeta{{Meta: tools.Meta{Read: []tools.ReadSpan{{Path: p, From: 1, To: 1}}}}}})
	}
	m.observe(msgs, times, metas)
	note, told := m.staleNote(root)
	require.Len(t, told.Changed, staleListCap)
	require.Equal(t, staleListCap, strings.Count(note, "\n"+staleItem))
	require.True(t, strings.HasSuffix(note, "\n(and 5 more)"), note)

	m.observe([]api.Message{{Role: "user", Content: note}}, []time.Time{time.Now().Add(time.Hour)}, []messageMeta{{Told: &told}})
	rest, _ := m.staleNote(root)
	require.Equal(t, 5, strings.Count(rest, "\n"+staleItem), "the files told count as seen; the ones left out come next")
	require.Contains(t, rest, "\n- pkg/x.go", "newest first: the first file read was left out")
}

func TestStaleFilesSeenInTheSameBatch(t *testing.T) {
	t.Parallel()
	// The command runs after the edit in one batch: the edit's result is dated when the edit
	// finished, so the command's rewrite is news; the batch's own read and edit are not.
	f := newRunFixture(t, []fakeollama.Turn{
		{Chunks: []fakeollama.Chunk{
			call("edit_file", map[string]any{"path": "main.go", "old": `"helo"`, "new": `"hello"`}),
			call("run_terminal_command", map[string]any{"command": "sleep 0.01; echo '// formatted' >> main.go"}),
		}},
		textTurn("Done. [TASK_COMPLETE]"),
	}, allowAll)
	res := f.run(context.Background(), "coder", "fix the typo and format")
	require.Equal(t, StatusDone, res.Status, res.Message)
	reqs := f.fake.Requests()
	require.Len(t, reqs, 2)
	require.Equal(t, []string{"- main.go"}, staleNotes(reqs[1]))
}

func TestStaleFilesNotForTheModelsOwnUndo(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, []fakeollama.Turn{
		{Chunks: []fakeollama.Chunk{call("edit_file", map[string]any{"path": "main.go", "old": `"helo"`, "new": `"hello"`})}},
		{Chunks: []fakeollama.Chunk{call("write_file", map[string]any{"path": "new.go", "content": "package main\n"})}},
		{Chunks: []fakeollama.Chunk{call("undo_turn", map[string]any{})}},
		textTurn("Undone. [TASK_COMPLETE]"),
	}, allowAll)
	res := f.run(context.Background(), "coder", "try, then undo")
	require.Equal(t, StatusDone, res.Status, res.Message)
	reqs := f.fake.Requests()
	require.Len(t, reqs, 4)
	require.Contains(t, reqs[3].Messages[len(reqs[3].Messages)-1].Content, "Restored 1 file: main.go")
	for i, req := range reqs {
		require.Empty(t, staleNotes(req), "request %d", i)
	}
}

func TestStaleFilesDatedInTheFutureAreLeftAlone(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, []fakeollama.Turn{
		{Chunks: []fakeollama.Chunk{call("read_file", map[string]any{"path": "main.go"})}},
		{Chunks: []fakeollama.Chunk{call("run_terminal_command", map[string]any{"command": "echo hi"})}},
		textTurn("Done. [TASK_COMPLETE]"),
	}, allowAll)
	future := time.Now().Add(time.Hour) // an archive from a machine whose clock runs ahead
	require.NoError(t, os.Chtimes(filepath.Join(f.root, "main.go"), future, future))
	res := f.run(context.Background(), "coder", "look at main.go")
	require.Equal(t, StatusDone, res.Status, res.Message)
	for i, req := range f.fake.Requests() {
		require.Empty(t, staleNotes(req), "request %d", i)
	}
}

func TestStaleNoteIsNeverTakenForThePersonsRequest(t *testing.T) {
	t.Parallel()
	h := &history{
		msgs:  []api.Message{{Role: "user", Content: "REQUEST"}, {Role: "user", Content: staleNoteHead + "\n- a.txt"}},
		metas: []messageMeta{{}, {Told: &FilesChangedOnDiskPayload{Changed: []string{"a.txt"}}}},
	}
	require.Equal(t, 0, h.lastUserMessage(), "compaction keeps the person's request verbatim, not the note")
}
