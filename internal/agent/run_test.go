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

	"github.com/ollama/ollama/api"
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

var (
	runNativeModel = fakeollama.Model{Name: "coder:latest", Capabilities: []string{"completion", "tools", "thinking"}}
	runTextModel   = fakeollama.Model{Name: "small:latest", Capabilities: []string{"completion"}}
)

const runMainGo = "package main\n\nfunc greet() string { return \"helo\" }\n"

// runFixture is a session over a real workspace, a real database and a scripted Ollama.
type runFixture struct {
	t         *testing.T
	fake      *fakeollama.Server
	db        *store.DB
	emitter   *events.Emitter
	env       *tools.Env // approvals go through env.Approver, which a test may swap per run
	runner    *Runner
	root      string
	sessionID string
}

func newRunFixture(t *testing.T, turns []fakeollama.Turn, approver tools.Approver) *runFixture {
	t.Helper()
	return newRunFixtureWith(t, []fakeollama.Model{runNativeModel, runTextModel}, turns, approver)
}

// newRunFixtureWith is newRunFixture with other models.
func newRunFixtureWith(t *testing.T, models []fakeollama.Model, turns []fakeollama.Turn, approver tools.Approver) *runFixture {
	t.Helper()
	return newRunFixtureScript(t, fakeollama.Script{Models: models, Turns: turns}, approver)
}

// newRunFixtureScript is newRunFixture with the fake's whole script.
func newRunFixtureScript(t *testing.T, script fakeollama.Script, approver tools.Approver) *runFixture {
	t.Helper()
	ctx := context.Background()
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "main.go"), []byte(runMainGo), 0o644))

	db, err := store.Open(ctx, t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	sess, err := db.CreateSession(ctx, store.Session{WorkspacePath: root, Mode: "agent", Model: "coder"})
	require.NoError(t, err)
	emitter := events.NewEmitter(db)
	t.Cleanup(func() { _ = emitter.Close(context.Background()) })

	cps := checkpoint.New(db, sess.ID)
	env := &tools.Env{Root: root, Ignore: ignore.New(root), Approver: approver, Checkpoints: cps.Checkpointer(), FileRules: safety.DefaultFileRules(),
		Tasks: sessionTasks{db: db, sessionID: sess.ID}}
	reg, err := tools.NewBuiltinRegistry(env, terminal.NewSession(root))
	require.NoError(t, err)

	fake := fakeollama.NewTest(t, script)
	base, err := url.Parse(fake.URL())
	require.NoError(t, err)
	runner := NewRunner(Deps{LLM: llm.NewClient(base, http.DefaultClient), Events: emitter, Messages: db, Tools: reg, Checkpoints: cps})
	return &runFixture{t: t, fake: fake, db: db, emitter: emitter, env: env, runner: runner, root: root, sessionID: sess.ID}
}

func (f *runFixture) run(ctx context.Context, model, text string) RunResult {
	f.t.Helper()
	res, err := f.runner.Run(ctx, RunRequest{SessionID: f.sessionID, RunID: "run-1", Workspace: f.root, Mode: ModeAgent, Model: model, Text: text})
	require.NoError(f.t, err)
	return res
}

// log is the session's stored event log.
func (f *runFixture) log() []events.Event {
	f.t.Helper()
	require.NoError(f.t, f.emitter.Flush(context.Background()))
	evs, err := f.emitter.Replay(context.Background(), f.sessionID, 0, 100000)
	require.NoError(f.t, err)
	return evs
}

func (f *runFixture) finished() RunFinishedPayload {
	f.t.Helper()
	evs := f.log()
	require.NotEmpty(f.t, evs)
	last := evs[len(evs)-1]
	require.Equal(f.t, events.RunFinished, last.Type, "runFinished is the last event")
	var p RunFinishedPayload
	require.NoError(f.t, json.Unmarshal(last.Payload, &p))
	return p
}

func (f *runFixture) actions() []ToolActionPayload {
	var out []ToolActionPayload
	for _, ev := range f.log() {
		if ev.Type == events.ToolAction {
			var p ToolActionPayload
			require.NoError(f.t, json.Unmarshal(ev.Payload, &p))
			out = append(out, p)
		}
	}
	return out
}

func (f *runFixture) messages() []store.Message {
	msgs, err := f.db.Messages(context.Background(), f.sessionID)
	require.NoError(f.t, err)
	return msgs
}

func (f *runFixture) file(name string) string {
	b, err := os.ReadFile(filepath.Join(f.root, name))
	require.NoError(f.t, err)
	return string(b)
}

func call(name string, args map[string]any) fakeollama.Chunk {
	return fakeollama.Chunk{ToolCalls: []fakeollama.ToolCall{{Name: name, Arguments: args}}}
}

func textTurn(s string) fakeollama.Turn {
	return fakeollama.Turn{Chunks: []fakeollama.Chunk{{Content: s}}}
}

var allowAll = tools.PolicyApprover{AllowCommands: true, AllowEdits: true}

func TestRunNative(t *testing.T) {
	t.Parallel()
	edit := map[string]any{"path": "main.go", "old": `"helo"`, "new": `"hello"`}
	f := newRunFixture(t, []fakeollama.Turn{
		{Chunks: []fakeollama.Chunk{{Thinking: "I should read the file first."}, call("read_file", map[string]any{"path": "main.go"})}},
		{Chunks: []fakeollama.Chunk{{Content: "Fixing the typo."}, call("edit_file", edit)}},
		{Chunks: []fakeollama.Chunk{call("run_terminal_command", map[string]any{"command": "echo ok"})}},
		textTurn("Fixed the typo in greet. [TASK_COMPLETE]"),
	}, allowAll)

	res := f.run(context.Background(), "coder", "fix the typo in main.go")
	require.Equal(t, StatusDone, res.Status, res.Message)
	require.Equal(t, "Fixed the typo in greet.", res.Message)
	require.Contains(t, f.file("main.go"), `"hello"`)

	fin := f.finished()
	require.Equal(t, StatusDone, fin.Status)
	require.Len(t, fin.FilesChanged, 1)
	require.Equal(t, "main.go", fin.FilesChanged[0].Path)
	require.Equal(t, 1, fin.FilesChanged[0].Added)

	types := map[events.Type]int{}
	for _, ev := range f.log() {
		types[ev.Type]++
	}
	require.Equal(t, 1, types[events.RunStarted])
	require.Equal(t, 1, types[events.ThinkingDone], "thinking collapses when the call arrives")
	require.Equal(t, 3, types[events.ProgressGroupStarted])
	require.Equal(t, 3, types[events.ProgressGroupFinished])
	var groupTitles []string
	for _, ev := range f.log() {
		if ev.Type == events.ProgressGroupFinished {
			var p ProgressGroupPayload
			require.NoError(t, json.Unmarshal(ev.Payload, &p))
			groupTitles = append(groupTitles, p.Title)
		}
	}
	require.Equal(t, []string{"Read files", "Edited main.go", "Ran command"}, groupTitles, "a finished group says what was done")

	var finals []ToolActionPayload
	for _, a := range f.actions() {
		if a.Status != ActionRunning && !strings.Contains(a.ActionID, ".0.") {
			finals = append(finals, a)
		}
	}
	require.Len(t, finals, 3)
	require.Equal(t, ActionSuccess, finals[0].Status)
	require.Equal(t, "main.go", finals[0].Path)
	require.Equal(t, "+1 −1", finals[1].Detail)
	require.Equal(t, "echo ok", finals[2].Command)
	require.Equal(t, "exit 0", finals[2].Detail)
	// A finished row says what was done, not what is being done.
	require.Equal(t, []string{"Read main.go", "Edited main.go", "Ran echo ok"},
		[]string{finals[0].Title, finals[1].Title, finals[2].Title})

	msgs := f.messages()
	roles := []string{}
	for _, m := range msgs {
		roles = append(roles, m.Role+":"+m.ToolName)
	}
	require.Equal(t, []string{"user:", "assistant:", "tool:read_file", "assistant:", "tool:edit_file", "assistant:", "tool:run_terminal_command", "assistant:"}, roles)
	require.Equal(t, "I should read the file first.", msgs[1].Thinking)
	require.Contains(t, msgs[6].Content, "ok")

	// The second request carries the history in the shape Ollama documents.
	reqs := f.fake.Requests()
	require.Len(t, reqs, 4)
	second := reqs[1].Messages
	require.Len(t, second, 4)
	require.Equal(t, "system", second[0].Role)
	require.Equal(t, api.Message{Role: "user", Content: "fix the typo in main.go"}, second[1])
	require.Equal(t, "assistant", second[2].Role)
	require.Equal(t, "I should read the file first.", second[2].Thinking)
	require.Len(t, second[2].ToolCalls, 1)
	require.Equal(t, "read_file", second[2].ToolCalls[0].Function.Name)
	require.Equal(t, map[string]any{"path": "main.go"}, second[2].ToolCalls[0].Function.Arguments.ToMap())
	require.Equal(t, "tool", second[3].Role)
	require.Equal(t, "read_file", second[3].ToolName)
	require.Contains(t, second[3].Content, `return "helo"`)
	require.NotEmpty(t, reqs[0].Tools, "the native path sends tools")
	require.NotNil(t, reqs[0].Think)
	require.NotContains(t, second[0].Content, "<tool_call>", "no tool text on the native path")
}

func TestRunTextPath(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, []fakeollama.Turn{
		textTurn("Let me look.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"main.go\"}}\n</tool_call>"),
		textTurn("```json\n<tool_call>{\"tool\": \"edit_file\", \"args\": {\"file\": \"main.go\", \"old\": \"\\\"helo\\\"\", \"new\": \"\\\"hello\\\"\"}}</tool_call>\n```"),
		textTurn("<tool_call>{\"name\":\"run_terminal_command\",\"parameters\":{\"command\":\"echo ok\"}}"),
		textTurn("All fixed.\n[TASK_COMPLETE]"),
	}, allowAll)

	res := f.run(context.Background(), "small", "fix the typo in main.go")
	require.Equal(t, StatusDone, res.Status, res.Message)
	require.Equal(t, "All fixed.", res.Message)
	require.Contains(t, f.file("main.go"), `"hello"`)
	require.Len(t, f.finished().FilesChanged, 1)

	reqs := f.fake.Requests()
	require.Len(t, reqs, 4)
	require.Empty(t, reqs[0].Tools)
	require.Contains(t, reqs[0].Messages[0].Content, "read_file", "the text path describes the tools in the prompt")
	second := reqs[1].Messages
	require.Len(t, second, 4)
	require.Equal(t, "assistant", second[2].Role)
	require.Contains(t, second[2].Content, "<tool_call>")
	require.Equal(t, "user", second[3].Role)
	require.Contains(t, second[3].Content, `<tool_result name="read_file">`)
	fourth := reqs[3].Messages
	require.Contains(t, fourth[len(fourth)-1].Content, "ok")

	for _, ev := range f.log() {
		if ev.Type == events.AssistantText {
			require.NotContains(t, string(ev.Payload), "tool_call", "raw calls never reach the screen")
		}
	}
}

func TestRunDeniedCommand(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, []fakeollama.Turn{
		{Chunks: []fakeollama.Chunk{call("run_terminal_command", map[string]any{"command": "echo ok"})}},
		textTurn("I was not allowed to run it. [TASK_COMPLETE]"),
	}, tools.PolicyApprover{AllowEdits: true})

	res := f.run(context.Background(), "coder", "run echo ok")
	require.Equal(t, StatusDone, res.Status)
	acts := f.actions()
	require.Equal(t, ActionError, acts[len(acts)-1].Status)
	require.Equal(t, string(tools.ErrDenied), acts[len(acts)-1].ErrorKind)
	second := f.fake.Requests()[1].Messages
	require.Contains(t, second[len(second)-1].Content, "not allowed")
}

func TestRunWriteValidation(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, []fakeollama.Turn{
		textTurn("The bug is fixed. [TASK_COMPLETE]"),
		{Chunks: []fakeollama.Chunk{call("edit_file", map[string]any{"path": "main.go", "old": "helo", "new": "hello"})}},
		textTurn("Now it is really fixed. [TASK_COMPLETE]"),
	}, allowAll)

	res := f.run(context.Background(), "coder", "fix the bug")
	require.Equal(t, StatusDone, res.Status)
	require.Equal(t, "Now it is really fixed.", res.Message)
	second := f.fake.Requests()[1].Messages
	require.Contains(t, second[len(second)-1].Content, "Make the change now with edit_file or write_file (read the file first).")
	require.Contains(t, f.file("main.go"), "hello")
}

// A write that leaves the file as it was, and a change the model undid again, are not the
// change the task asked for: the completion is refused once, as with no write at all.
func TestRunWriteValidationIgnoresNoOpsAndUndos(t *testing.T) {
	t.Parallel()
	tests := map[string][]fakeollama.Chunk{
		"a write of the same content": {call("write_file", map[string]any{"path": "main.go", "content": runMainGo})},
		"an edit undone in the same batch": {
			call("edit_file", map[string]any{"path": "main.go", "old": "helo", "new": "hello"}),
			call("undo_file", map[string]any{"path": "main.go"}),
		},
	}
	for name, chunks := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newRunFixture(t, []fakeollama.Turn{
				{Chunks: append(chunks, fakeollama.Chunk{Content: "Fixed. [TASK_COMPLETE]"})},
				textTurn("No change was needed after all. [TASK_COMPLETE]"),
			}, allowAll)
			res := f.run(context.Background(), "coder", "fix the typo in main.go")
			require.Equal(t, StatusDone, res.Status)
			require.Equal(t, "No change was needed after all.", res.Message)
			second := f.fake.Requests()[1].Messages
			require.Contains(t, second[len(second)-1].Content, "no file has been changed in this run")
			require.Equal(t, runMainGo, f.file("main.go"))
		})
	}
}

func TestRunDoomLoop(t *testing.T) {
	t.Parallel()
	read := fakeollama.Turn{Chunks: []fakeollama.Chunk{call("read_file", map[string]any{"path": "main.go"})}}
	f := newRunFixture(t, []fakeollama.Turn{read, read, read, textTurn("never asked")}, allowAll)

	res := f.run(context.Background(), "coder", "look at main.go")
	require.Equal(t, StatusFailed, res.Status)
	require.Contains(t, res.Message, "same call")
	require.Contains(t, res.Message, "read_file")
	require.Len(t, f.fake.Requests(), 3)
	msgs := f.messages()
	require.Equal(t, "tool", msgs[len(msgs)-1].Role, "every call in the history has its result")
	require.Contains(t, msgs[len(msgs)-1].Content, "Not run")
}

func TestRunSummaryWhenNoText(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, []fakeollama.Turn{
		{Chunks: []fakeollama.Chunk{call("read_file", map[string]any{"path": "main.go"})}},
		textTurn("[TASK_COMPLETE]"),
		textTurn("I read main.go; nothing changed."),
	}, allowAll)
	res := f.run(context.Background(), "coder", "read main.go")
	require.Equal(t, StatusDone, res.Status)
	require.Equal(t, "I read main.go; nothing changed.", res.Message)
	reqs := f.fake.Requests()
	require.Len(t, reqs, 3)
	require.Empty(t, reqs[2].Tools, "the summary is asked for without tools")
}

func TestRunStreamCut(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, []fakeollama.Turn{{
		Chunks:   []fakeollama.Chunk{{Content: "Here is the first part of my answer, "}, {Content: "and more."}, {Content: "never"}},
		CutAfter: 2,
	}}, allowAll)
	res := f.run(context.Background(), "coder", "explain main.go")
	require.Equal(t, StatusFailed, res.Status)
	require.Contains(t, res.Message, "Ollama stopped answering")
	require.Equal(t, StatusFailed, f.finished().Status)
	msgs := f.messages()
	require.Equal(t, "assistant", msgs[len(msgs)-1].Role)
	require.Equal(t, "Here is the first part of my answer, and more.", msgs[len(msgs)-1].Content)
}

func TestRunReportsACutAnswer(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, []fakeollama.Turn{{Chunks: []fakeollama.Chunk{{Content: "The first half of a long"}}, DoneReason: "length"}}, allowAll)
	res := f.run(context.Background(), "coder", "explain main.go")
	require.Equal(t, StatusDone, res.Status)
	require.True(t, res.Truncated)
	require.Equal(t, "The first half of a long", res.Message)
	require.True(t, f.finished().Truncated, "the runFinished event says the answer was cut")

	whole := newRunFixture(t, []fakeollama.Turn{textTurn("A whole answer.")}, allowAll)
	require.False(t, whole.run(context.Background(), "coder", "explain main.go").Truncated)
	require.False(t, whole.finished().Truncated)
}

func TestRunUnknownModel(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, nil, allowAll)
	res := f.run(context.Background(), "nope", "hello")
	require.Equal(t, StatusFailed, res.Status)
	require.Contains(t, res.Message, "coder:latest")
	require.Contains(t, res.Message, "small:latest")
	require.Equal(t, StatusFailed, f.finished().Status)
	require.Equal(t, "user", f.messages()[0].Role, "the message is kept")
}

func TestRunCancelDuringStream(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, []fakeollama.Turn{{
		Chunks:     []fakeollama.Chunk{{Content: "Slowly thinking about it "}, {Content: "word "}, {Content: "by word"}},
		ChunkDelay: time.Hour,
	}}, allowAll)
	runCancelledOn(t, f, "explain main.go", func(ev events.Event) bool { return ev.Type == events.AssistantText })
}

func TestRunCancelDuringCommand(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, []fakeollama.Turn{
		{Chunks: []fakeollama.Chunk{call("run_terminal_command", map[string]any{"command": "echo waiting; sleep 1000"})}},
	}, allowAll)
	runCancelledOn(t, f, "wait a while", commandSaid("waiting"))
	msgs := f.messages()
	require.Equal(t, "tool", msgs[len(msgs)-1].Role, "the stopped call's result is kept")
	require.Contains(t, msgs[len(msgs)-1].Content, "cancelled by the user", "the stop ended the command, not its timeout")
}

// runCancelledOn runs task, stops it at the first posted event for which stop holds, and checks
// that it ended as cancelled. The runs here would go on for an hour or more otherwise: ending
// at all shows that the stop reached them (a minute only spares a broken build that hour).
func runCancelledOn(t *testing.T, f *runFixture, task string, stop func(events.Event) bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.emitter.Attach(posterFunc(func(ev events.Event) {
		if stop(ev) {
			cancel()
		}
	}))
	ended := make(chan RunResult, 1)
	go func() {
		res, err := f.runner.Run(ctx, RunRequest{SessionID: f.sessionID, RunID: "run-1", Workspace: f.root, Mode: ModeAgent, Model: "coder", Text: task})
		if err != nil {
			res.Message = err.Error()
		}
		ended <- res
	}()
	var res RunResult
	select {
	case res = <-ended:
	case <-time.After(time.Minute):
		t.Fatal("the stop did not end the run")
	}
	require.Equal(t, StatusCancelled, res.Status, res.Message)
	require.Equal(t, StatusCancelled, f.finished().Status)
}

// commandSaid holds for the output event that carries marker: the command is under way.
func commandSaid(marker string) func(events.Event) bool {
	return func(ev events.Event) bool {
		return ev.Type == events.CommandOutput && strings.Contains(string(ev.Payload), marker)
	}
}

// posterFunc receives the emitter's events as the UI would, as they are posted.
type posterFunc func(events.Event)

func (f posterFunc) Post(ev events.Event) { f(ev) }

func TestRunReadOnlyModeRefusesWrites(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, []fakeollama.Turn{
		textTurn(`<tool_call>{"name": "write_file", "arguments": {"path": "x.txt", "content": "x"}}</tool_call>`),
		textTurn("I cannot write here."),
	}, allowAll)
	res, err := f.runner.Run(context.Background(), RunRequest{SessionID: f.sessionID, RunID: "r", Workspace: f.root, Mode: ModeExplore, Model: "small", Text: "create x.txt"})
	require.NoError(t, err)
	require.Equal(t, StatusDone, res.Status)
	require.NoFileExists(t, filepath.Join(f.root, "x.txt"))
	require.NotContains(t, f.fake.Requests()[0].Messages[0].Content, "write_file")
	require.Contains(t, f.messages()[2].Content, "There is no tool named")
}
