package agent

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"gantry/internal/checkpoint"
	"gantry/internal/events"
	"gantry/internal/ignore"
	"gantry/internal/llm"
	"gantry/internal/llm/fakeollama"
	"gantry/internal/safety"
	"gantry/internal/store"
	"gantry/internal/terminal"
	"gantry/internal/tools"
)

// The sessions of testdata/legacy/gantry-v2.db (see its README).
const (
	legacyNativeSession = "d2b4dbeeb1770eb232d7e14d326f9f7c"
	legacyTextSession   = "f1cb479a9a3728b520ad5af99b70d216"
)

// legacyDB opens a copy of the database written before messages kept their meta, which the
// migration upgrades in place, and a workspace holding the files as that session left them,
// dated before the session (so nothing in it changed since, until a test touches a file).
func legacyDB(t *testing.T) (*store.DB, string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "legacy", "gantry-v2.db"))
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "gantry.db"), data, 0o644))
	db, err := store.Open(context.Background(), dir)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })

	root := t.TempDir()
	long := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for name, content := range map[string]string{
		"README.md": "# Sample\nmore\n", "main.go": "package main // edited\n// tail\n", "notes.txt": "helo world\n",
	} {
		p := filepath.Join(root, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		require.NoError(t, os.Chtimes(p, long, long))
	}
	return db, root
}

func legacyMemory(t *testing.T, db *store.DB, session string) *sessionMemory {
	t.Helper()
	h, err := loadHistory(context.Background(), db, session, "r", time.Now)
	require.NoError(t, err)
	m := newSessionMemory()
	m.observe(h.msgs, h.times, h.metas)
	return m
}

func TestALegacyDatabaseKeepsItsSessionMemory(t *testing.T) {
	t.Parallel()
	db, root := legacyDB(t)

	native := legacyMemory(t, db, legacyNativeSession)
	require.Equal(t, "Files changed: gen/f11.txt (+1 −0), gen/f10.txt (+1 −0), gen/f09.txt (+1 −0), gen/f08.txt (+1 −0), "+
		"gen/f07.txt (+1 −0), gen/f06.txt (+1 −0), gen/f05.txt (+1 −0), gen/f04.txt (+1 −0), gen/f03.txt (+1 −0), "+
		"gen/f02.txt (+1 −0), gen/f01.txt (+1 −0), gen/f00.txt (+1 −0), new.txt (+2 −0), notes.txt (+1 −1)\n"+
		"Files read: README.md\n"+
		"Commands run: `echo more >> README.md && ls` (exit 0)", native.String())
	// The undo of notes.txt (one file's sentence) is known: the model is not told of it.
	note, _ := native.staleNote(root)
	require.Empty(t, note, "nothing changed since the session, and its own undos are no news")

	text := legacyMemory(t, db, legacyTextSession)
	require.Equal(t, "Files changed: main.go (+1 −1)\nCommands run: `echo '// tail' >> main.go` (exit 0)", text.String())
}

// A database written by the main branch before metas opens, replays its events as they were
// shown, and resumes: the next run knows the session, is told only of what changed since, and
// stores metas from then on.
func TestALegacyDatabaseReplaysAndResumes(t *testing.T) {
	t.Parallel()
	db, root := legacyDB(t)
	ctx := context.Background()
	emitter := events.NewEmitter(db)
	t.Cleanup(func() { _ = emitter.Close(context.Background()) })

	replayed, err := emitter.Replay(ctx, legacyNativeSession, 0, 1000)
	require.NoError(t, err)
	var finished int
	for _, ev := range replayed {
		if ev.Type == events.RunFinished {
			finished++
		}
	}
	require.Equal(t, 1, finished, "the old run replays to its end")

	readme := filepath.Join(root, "README.md")
	require.NoError(t, os.WriteFile(readme, []byte("# Sample\nmore\nmine\n"), 0o644))
	now := time.Now()
	require.NoError(t, os.Chtimes(readme, now, now))

	fake := fakeollama.NewTest(t, fakeollama.Script{
		Models: []fakeollama.Model{runNativeModel},
		Turns: []fakeollama.Turn{
			{Chunks: []fakeollama.Chunk{call("read_file", map[string]any{"path": "README.md"})}},
			textTurn("It has three lines now. [TASK_COMPLETE]"),
		},
	})
	base, err := url.Parse(fake.URL())
	require.NoError(t, err)
	cps := checkpoint.New(db, legacyNativeSession)
	env := &tools.Env{Root: root, Ignore: ignore.New(root), Approver: allowAll, Checkpoints: cps.Checkpointer(), FileRules: safety.DefaultFileRules()}
	reg, err := tools.NewBuiltinRegistry(env, terminal.NewSession(root))
	require.NoError(t, err)
	runner := NewRunner(Deps{LLM: llm.NewClient(base, http.DefaultClient), Events: emitter, Messages: db, Tools: reg, Checkpoints: cps})

	res, err := runner.Run(ctx, RunRequest{SessionID: legacyNativeSession, RunID: "resumed", Workspace: root, Mode: ModeAgent, Model: "coder", Text: "what is in the readme now?"})
	require.NoError(t, err)
	require.Equal(t, StatusDone, res.Status, res.Message)

	first := fake.Requests()[0]
	require.Contains(t, first.Messages[0].Content, "Files read: README.md", "the session memory of the old rows")
	require.Equal(t, []string{"- README.md"}, staleNotes(first)[len(staleNotes(first))-1:], "told of the person's edit, and only of it")

	msgs, err := db.Messages(ctx, legacyNativeSession)
	require.NoError(t, err)
	var meta messageMeta
	last := msgs[len(msgs)-2] // the read's result, before the final answer
	require.Equal(t, "tool", last.Role)
	require.NoError(t, json.Unmarshal(last.Meta, &meta))
	require.Equal(t, []tools.ReadSpan{{Path: "README.md", From: 1, To: 3, Total: 3}}, meta.Results[0].Read)
	require.True(t, strings.HasPrefix(msgs[0].Content, "fix the spelling"), "the old messages are still there")
}
