package app

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"gantry/internal/agent"
	"gantry/internal/approval"
	"gantry/internal/config"
	"gantry/internal/events"
	"gantry/internal/llm/fakeollama"
	"gantry/internal/store"
)

const chatModel = "coder:latest"

// chatFixture is browser mode over a fake Ollama with a project open.
type chatFixture struct {
	*testServer
	fake *fakeollama.Server
	root string
}

func startChat(t *testing.T, mode string, turns ...fakeollama.Turn) *chatFixture {
	t.Helper()
	fake := fakeollama.NewTest(t, fakeollama.Script{
		Models: []fakeollama.Model{{Name: chatModel, Capabilities: []string{"completion", "tools"}}},
		Turns:  turns,
	})
	ts := startServer(t, fake.URL())
	_, err := ts.app.Settings.Save(config.Settings{OllamaHost: fake.URL(), DefaultModel: chatModel, PermissionMode: mode})
	require.NoError(t, err)
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "notes.txt"), []byte("helo\n"), 0o644))
	_, err = ts.app.Workspace.Open(root)
	require.NoError(t, err)
	return &chatFixture{testServer: ts, fake: fake, root: root}
}

func done(text string) fakeollama.Turn {
	return fakeollama.Turn{Chunks: []fakeollama.Chunk{{Content: text + " " + agent.CompletionMarker}}}
}

// waitIdle waits for the session's run to end.
func (f *chatFixture) waitIdle(t *testing.T, sessionID string, within time.Duration) {
	t.Helper()
	require.Eventually(t, func() bool {
		id, err := f.app.Chat.ActiveRun(sessionID)
		return err == nil && id == ""
	}, within, 10*time.Millisecond)
}

func (f *chatFixture) replay(t *testing.T, sessionID string) []events.Event {
	t.Helper()
	require.NoError(t, f.app.emitter.Flush(t.Context()))
	evs, err := f.app.Chat.Replay(sessionID, 0, 0)
	require.NoError(t, err)
	return evs
}

// waitEvent waits until the session's log holds an event of typ and returns it.
func (f *chatFixture) waitEvent(t *testing.T, sessionID string, typ events.Type) events.Event {
	t.Helper()
	var found events.Event
	require.Eventually(t, func() bool {
		for _, ev := range f.replay(t, sessionID) {
			if ev.Type == typ {
				found = ev
				return true
			}
		}
		return false
	}, 10*time.Second, 20*time.Millisecond, "no %s event", typ)
	return found
}

// laterMillisecond waits until the wall clock is past after's millisecond: what is stored next
// is dated after it (the store keeps milliseconds).
func laterMillisecond(t *testing.T, after time.Time) {
	t.Helper()
	require.Eventually(t, func() bool { return time.Now().Truncate(time.Millisecond).After(after) }, 10*time.Second, time.Millisecond)
}

func finished(t *testing.T, ev events.Event) agent.RunFinishedPayload {
	t.Helper()
	require.Equal(t, events.RunFinished, ev.Type)
	var p agent.RunFinishedPayload
	require.NoError(t, json.Unmarshal(ev.Payload, &p))
	return p
}

func TestSendRunsInBackgroundAndReplays(t *testing.T) {
	t.Parallel()
	f := startChat(t, "", done("All good."), done("Still good."))

	res, err := f.app.Chat.Send(SendRequest{Text: "  Check the notes file please\nsecond line"})
	require.NoError(t, err)
	require.NotEmpty(t, res.SessionID)
	require.NotEmpty(t, res.RunID)
	f.waitIdle(t, res.SessionID, 10*time.Second)

	evs := f.replay(t, res.SessionID)
	require.NotEmpty(t, evs)
	require.Equal(t, events.RunStarted, evs[0].Type)
	require.Equal(t, agent.StatusDone, finished(t, evs[len(evs)-1]).Status)
	for i, ev := range evs {
		require.Equal(t, res.RunID, ev.RunID)
		if i > 0 {
			require.Greater(t, ev.Seq, evs[i-1].Seq)
		}
	}
	later, err := f.app.Chat.Replay(res.SessionID, evs[0].Seq, 0)
	require.NoError(t, err)
	require.Len(t, later, len(evs)-1, "paged after a seq")

	sessions, err := f.app.Chat.Sessions()
	require.NoError(t, err)
	require.Len(t, sessions, 1)
	require.Equal(t, "Check the notes file please", sessions[0].Title)
	require.Equal(t, chatModel, sessions[0].Model)

	// A second message continues the same session with a new run.
	res2, err := f.app.Chat.Send(SendRequest{SessionID: res.SessionID, Text: "again", Mode: "explore"})
	require.NoError(t, err)
	require.Equal(t, res.SessionID, res2.SessionID)
	require.NotEqual(t, res.RunID, res2.RunID)
	f.waitIdle(t, res.SessionID, 10*time.Second)
	evs = f.replay(t, res.SessionID)
	require.Equal(t, agent.StatusDone, finished(t, evs[len(evs)-1]).Status)
	require.Equal(t, res2.RunID, evs[len(evs)-1].RunID)
}

func TestSendValidates(t *testing.T) {
	t.Parallel()
	fake := fakeollama.NewTest(t, fakeollama.Script{})
	ts := startServer(t, fake.URL())

	_, err := ts.app.Chat.Send(SendRequest{Text: "hi", Model: chatModel})
	require.ErrorContains(t, err, "open a project folder first")
	sessions, err := ts.app.Chat.Sessions()
	require.NoError(t, err)
	require.Empty(t, sessions)

	_, err = ts.app.Workspace.Open(t.TempDir())
	require.NoError(t, err)
	_, err = ts.app.Chat.Send(SendRequest{Text: "  ", Model: chatModel})
	require.ErrorContains(t, err, "empty")
	_, err = ts.app.Chat.Send(SendRequest{Text: "hi", Mode: "yolo", Model: chatModel})
	require.ErrorContains(t, err, "unknown mode")
	_, err = ts.app.Chat.Send(SendRequest{Text: "hi"})
	require.ErrorContains(t, err, "no model")
	_, err = ts.app.Chat.Send(SendRequest{SessionID: "nope", Text: "hi", Model: chatModel})
	require.Error(t, err)
}

// stalled is an answer that stops after its first words: only a stop ends the run.
var stalled = fakeollama.Turn{ChunkDelay: time.Hour, Chunks: []fakeollama.Chunk{{Content: "Once upon a time "}, {Content: "never sent"}}}

func TestOneRunAtATimeAndStop(t *testing.T) {
	t.Parallel()
	f := startChat(t, "", stalled)

	res, err := f.app.Chat.Send(SendRequest{Text: "write a long story"})
	require.NoError(t, err)
	active, err := f.app.Chat.ActiveRun(res.SessionID)
	require.NoError(t, err)
	require.Equal(t, res.RunID, active)

	_, err = f.app.Chat.Send(SendRequest{SessionID: res.SessionID, Text: "and another"})
	require.ErrorIs(t, err, ErrRunInProgress)
	require.ErrorContains(t, f.app.Chat.DeleteSession(res.SessionID), "stop the run")

	f.waitEvent(t, res.SessionID, events.AssistantText)
	require.NoError(t, f.app.Chat.Stop(res.RunID))
	f.waitIdle(t, res.SessionID, 10*time.Second)
	require.Equal(t, agent.StatusCancelled, finished(t, f.waitEvent(t, res.SessionID, events.RunFinished)).Status)
	require.NoError(t, f.app.Chat.Stop(res.RunID), "stopping an ended run does nothing")
}

// fixTypo is the model's turn that fixes the typo startChat's notes.txt holds.
var fixTypo = fakeollama.Turn{Chunks: []fakeollama.Chunk{{ToolCalls: []fakeollama.ToolCall{{
	Name: "edit_file", Arguments: map[string]any{"path": "notes.txt", "old": "helo", "new": "hello"},
}}}}}

func TestEditWaitsForApproval(t *testing.T) {
	t.Parallel()
	f := startChat(t, config.PermissionAsk, fixTypo, done("Fixed."))

	res, err := f.app.Chat.Send(SendRequest{Text: "fix the typo in notes.txt"})
	require.NoError(t, err)
	ev := f.waitEvent(t, res.SessionID, events.ApprovalRequested)
	require.Equal(t, res.RunID, ev.RunID, "approval events belong to the run")
	var card approval.Card
	require.NoError(t, json.Unmarshal(ev.Payload, &card))
	require.Equal(t, approval.KindEdit, card.Kind)

	detail, err := f.app.Chat.Approval(card.ID)
	require.NoError(t, err)
	require.Equal(t, "notes.txt", detail.Card.Path)
	require.Equal(t, "helo\n", detail.Before)
	require.Equal(t, "hello\n", detail.After)
	require.Len(t, detail.Hunks, 1, "the diff view gets the backend's hunks")
	require.Equal(t, 0, detail.Hunks[0].ID)
	got, err := os.ReadFile(filepath.Join(f.root, "notes.txt"))
	require.NoError(t, err)
	require.Equal(t, "helo\n", string(got), "nothing is written before the answer")

	require.NoError(t, f.app.Chat.RespondApproval(card.ID, approval.Decision{Allowed: true}))
	f.waitIdle(t, res.SessionID, 10*time.Second)
	got, err = os.ReadFile(filepath.Join(f.root, "notes.txt"))
	require.NoError(t, err)
	require.Equal(t, "hello\n", string(got))
	require.ErrorIs(t, f.app.Chat.RespondApproval(card.ID, approval.Decision{Allowed: false}), approval.ErrAlreadyResolved)
	_, err = f.app.Chat.Approval(card.ID)
	require.ErrorIs(t, err, approval.ErrUnknown)
	evs := f.replay(t, res.SessionID)
	require.Equal(t, agent.StatusDone, finished(t, evs[len(evs)-1]).Status)
}

func TestSessionsListRenameDelete(t *testing.T) {
	t.Parallel()
	f := startChat(t, "", done("one"), done("two"))

	first, err := f.app.Chat.Send(SendRequest{Text: "first"})
	require.NoError(t, err)
	f.waitIdle(t, first.SessionID, 10*time.Second)
	second, err := f.app.Chat.Send(SendRequest{Text: "second"})
	require.NoError(t, err)
	f.waitIdle(t, second.SessionID, 10*time.Second)

	sessions, err := f.app.Chat.Sessions()
	require.NoError(t, err)
	require.Len(t, sessions, 2)
	require.Equal(t, second.SessionID, sessions[0].ID, "newest first")

	require.ErrorContains(t, f.app.Chat.RenameSession(first.SessionID, " "), "empty")
	laterMillisecond(t, sessions[0].UpdatedAt) // the list orders by millisecond times
	require.NoError(t, f.app.Chat.RenameSession(first.SessionID, "  Renamed  "))
	sessions, err = f.app.Chat.Sessions()
	require.NoError(t, err)
	require.Equal(t, "Renamed", sessions[0].Title, "renaming counts as activity")

	require.NoError(t, f.app.Chat.DeleteSession(first.SessionID))
	sessions, err = f.app.Chat.Sessions()
	require.NoError(t, err)
	require.Len(t, sessions, 1)
	require.Equal(t, second.SessionID, sessions[0].ID)
	evs, err := f.app.Chat.Replay(first.SessionID, 0, 0)
	require.NoError(t, err)
	require.Empty(t, evs, "its events went with it")
}

// Deleting a session lets go of the prior versions of files its checkpoints kept for undo.
func TestDeletingASessionEmptiesItsStash(t *testing.T) {
	t.Parallel()
	f := startChat(t, config.PermissionFull, fixTypo, done("Fixed."))
	res, err := f.app.Chat.Send(SendRequest{Text: "fix the typo in notes.txt"})
	require.NoError(t, err)
	f.waitIdle(t, res.SessionID, 10*time.Second)
	stash := filepath.Join(f.dirs.data, "stash")
	stashed := func() (n int) {
		require.NoError(t, filepath.WalkDir(stash, func(_ string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				n++
			}
			return err
		}))
		return n
	}
	require.Equal(t, 1, stashed(), "the file from before the edit waits for keep or undo")

	require.NoError(t, f.app.Chat.DeleteSession(res.SessionID))
	require.Zero(t, stashed())
	got, err := os.ReadFile(filepath.Join(f.root, "notes.txt"))
	require.NoError(t, err)
	require.Equal(t, "hello\n", string(got), "the workspace stays as it is")
}

func TestChatOverRPC(t *testing.T) {
	t.Parallel()
	f := startChat(t, "", done("Read it."))

	status, body := f.call(t, "ChatService/Send", map[string]any{
		"sessionId": "", "text": "look at the notes", "mode": "agent", "model": "", "plan": "",
		"attachments": []map[string]any{{"path": "notes.txt", "startLine": 1, "endLine": 0}},
	})
	require.Equal(t, http.StatusOK, status, string(body))
	var res map[string]string
	require.NoError(t, json.Unmarshal(body, &res))
	require.NotEmpty(t, res["sessionId"])
	require.NotEmpty(t, res["runId"])
	f.waitIdle(t, res["sessionId"], 10*time.Second)

	reqs := f.fake.Requests()
	require.NotEmpty(t, reqs)
	last := reqs[0].Messages[len(reqs[0].Messages)-1]
	require.Contains(t, last.Content, "helo", "the attachment reached the model")

	require.NoError(t, f.app.emitter.Flush(t.Context()))
	status, body = f.call(t, "ChatService/Replay", res["sessionId"], 0, 100)
	require.Equal(t, http.StatusOK, status, string(body))
	var evs []map[string]any
	require.NoError(t, json.Unmarshal(body, &evs))
	require.Equal(t, "runStarted", evs[0]["type"])
	require.Equal(t, "runFinished", evs[len(evs)-1]["type"])

	status, body = f.call(t, "ChatService/Approval", "nope")
	require.Equal(t, http.StatusInternalServerError, status)
	require.Contains(t, string(body), "no such approval")
}

type discardPoster struct{}

func (discardPoster) Post(events.Event) {}

func TestShutdownStopsRuns(t *testing.T) {
	t.Parallel()
	fake := fakeollama.NewTest(t, fakeollama.Script{Models: []fakeollama.Model{{Name: chatModel}}, Turns: []fakeollama.Turn{stalled}})
	dataDir, settingsPath := t.TempDir(), filepath.Join(t.TempDir(), "settings.json")
	require.NoError(t, config.Open(settingsPath).Save(config.Settings{OllamaHost: fake.URL(), DefaultModel: chatModel}))
	a, err := New(t.Context(), Options{DataDir: dataDir, SettingsPath: settingsPath, Mode: ModeBrowser})
	require.NoError(t, err)
	a.Start(t.Context(), discardPoster{}, nil)
	_, err = a.Workspace.Open(t.TempDir())
	require.NoError(t, err)
	res, err := a.Chat.Send(SendRequest{Text: "a long story"})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(fake.Requests()) == 1 }, 10*time.Second, 10*time.Millisecond, "the run is waiting for the model")

	require.NoError(t, a.Shutdown())

	db, err := store.Open(t.Context(), dataDir)
	require.NoError(t, err)
	defer db.Close()
	recs, err := db.ReplayEvents(t.Context(), res.SessionID, 0, 1000)
	require.NoError(t, err)
	require.Equal(t, string(events.RunFinished), recs[len(recs)-1].Type, "the stopped run recorded its end")
	require.Contains(t, string(recs[len(recs)-1].Payload), `"status":"cancelled"`)
}

// A run is often the first to find Ollama gone: its failure re-checks the status at once
// instead of at the next periodic check (30 s while the server was up).
func TestFailedRunRechecksOllamaStatus(t *testing.T) {
	t.Parallel()
	f := startChat(t, "")
	require.Eventually(t, func() bool { return f.app.Ollama.Status().Reachable }, 10*time.Second, 10*time.Millisecond)

	require.NoError(t, f.fake.Close())
	res, err := f.app.Chat.Send(SendRequest{Text: "Say hello"})
	require.NoError(t, err)
	f.waitIdle(t, res.SessionID, 10*time.Second)
	evs := f.replay(t, res.SessionID)
	require.Equal(t, agent.StatusFailed, finished(t, evs[len(evs)-1]).Status)

	require.Eventually(t, func() bool { return !f.app.Ollama.Status().Reachable }, 5*time.Second, 10*time.Millisecond,
		"the status says Ollama is down without waiting for the periodic check")
}

func TestSendWithoutAModelRechecksOllamaStatus(t *testing.T) {
	t.Parallel()
	f := startChat(t, "")
	saved := time.Now()
	_, err := f.app.Settings.Save(config.Settings{OllamaHost: f.fake.URL()})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return f.app.Ollama.Status().CheckedAt.After(saved) }, 10*time.Second, 10*time.Millisecond)
	require.True(t, f.app.Ollama.Refresh().Reachable)
	// A check the settings change started may still come; what is under test is that Send
	// itself asks for one.
	woken := make(chan struct{}, 1)
	wake := f.app.Chat.runFailed
	f.app.Chat.runFailed = func() {
		woken <- struct{}{}
		wake()
	}

	// Ollama goes away; the picker has nothing to offer, so the message names no model.
	require.NoError(t, f.fake.Close())
	_, err = f.app.Chat.Send(SendRequest{Text: "Say hello"})
	require.ErrorContains(t, err, "no model chosen")
	require.Len(t, woken, 1, "Send asked for a check of Ollama at once")
	require.Eventually(t, func() bool { return !f.app.Ollama.Status().Reachable }, 5*time.Second, 10*time.Millisecond,
		"the status says Ollama is down without waiting for the periodic check")
}

// Sessions share Ollama through one line: with the default of one model request at once, a
// second session's run waits, says so, and a Stop takes it out of the line at once; with room
// for two, the next run's request goes while the first is still with the model.
func TestSessionsTakeTurnsAtTheModel(t *testing.T) {
	t.Parallel()
	turn := func(when, hold string) fakeollama.Turn {
		tt := done(when + " answered.")
		tt.When, tt.Hold = when, hold
		return tt
	}
	f := startChat(t, "", turn("First task", "first"), turn("Third task", "third"))

	first, err := f.app.Chat.Send(SendRequest{Text: "First task"})
	require.NoError(t, err)
	require.NoError(t, f.fake.WaitHeld(t.Context(), "first", 1))

	second, err := f.app.Chat.Send(SendRequest{Text: "Second task"})
	require.NoError(t, err)
	var wait agent.ModelWaitingPayload
	require.NoError(t, json.Unmarshal(f.waitEvent(t, second.SessionID, events.ModelWaiting).Payload, &wait))
	require.Equal(t, agent.WaitQueued, wait.Phase)
	require.NoError(t, f.app.Chat.Stop(second.RunID))
	f.waitIdle(t, second.SessionID, 10*time.Second)
	require.Equal(t, agent.StatusCancelled, finished(t, f.waitEvent(t, second.SessionID, events.RunFinished)).Status)
	require.Equal(t, 1, f.fake.Held("first"), "stopped while the first run still had the model")

	st := f.app.Settings.Get().Settings
	st.ModelRequests = 2
	_, err = f.app.Settings.Save(st)
	require.NoError(t, err)
	third, err := f.app.Chat.Send(SendRequest{Text: "Third task"})
	require.NoError(t, err)
	require.NoError(t, f.fake.WaitHeld(t.Context(), "third", 1), "room for two: it went at once")

	f.fake.Release("first")
	f.fake.Release("third")
	f.waitIdle(t, first.SessionID, 10*time.Second)
	f.waitIdle(t, third.SessionID, 10*time.Second)
	for _, ev := range f.replay(t, third.SessionID) {
		if ev.Type == events.ModelWaiting {
			require.NoError(t, json.Unmarshal(ev.Payload, &wait))
			require.NotEqual(t, agent.WaitQueued, wait.Phase)
		}
	}
	for _, r := range f.fake.Requests() {
		require.NotContains(t, r.Messages[len(r.Messages)-1].Content, "Second task", "the stopped run never reached Ollama")
	}
}
