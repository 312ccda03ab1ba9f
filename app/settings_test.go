package app

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/require"

	"gantry/internal/agent"
	"gantry/internal/approval"
	"gantry/internal/config"
	"gantry/internal/events"
	"gantry/internal/git"
	"gantry/internal/llm"
	"gantry/internal/llm/fakeollama"
	"gantry/internal/tools"
)

func toolNames(req api.ChatRequest) []string {
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Function.Name)
	}
	return names
}

func (f *chatFixture) save(t *testing.T, change func(*config.Settings)) {
	t.Helper()
	st := f.app.settings.Get()
	change(&st)
	_, err := f.app.Settings.Save(st)
	require.NoError(t, err)
}

func call(name string, args map[string]any) fakeollama.Turn {
	return fakeollama.Turn{Chunks: []fakeollama.Chunk{{ToolCalls: []fakeollama.ToolCall{{Name: name, Arguments: args}}}}}
}

func TestDisabledToolIsNotOfferedAndRefused(t *testing.T) {
	t.Parallel()
	f := startChat(t, config.PermissionFull,
		call("write_file", map[string]any{"path": "new.txt", "content": "x"}), done("Could not."),
		done("Now with all tools."))
	f.save(t, func(s *config.Settings) { s.DisabledTools = []string{"write_file", "run_terminal_command"} })

	res, err := f.app.Chat.Send(SendRequest{Text: "make new.txt"})
	require.NoError(t, err)
	f.waitIdle(t, res.SessionID, 10*time.Second)
	reqs := f.fake.Requests()
	require.Len(t, reqs, 2)
	require.NotEmpty(t, toolNames(reqs[0]))
	require.NotContains(t, toolNames(reqs[0]), "write_file")
	require.NotContains(t, toolNames(reqs[0]), "run_terminal_command")
	require.Contains(t, toolNames(reqs[0]), "edit_file")
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	require.Equal(t, "tool", last.Role)
	require.Contains(t, last.Content, "write_file is turned off in Gantry's settings")
	require.NoFileExists(t, filepath.Join(f.root, "new.txt"))

	// Turning it back on applies to the same session's next run.
	f.save(t, func(s *config.Settings) { s.DisabledTools = nil })
	_, err = f.app.Chat.Send(SendRequest{SessionID: res.SessionID, Text: "again"})
	require.NoError(t, err)
	f.waitIdle(t, res.SessionID, 10*time.Second)
	reqs = f.fake.Requests()
	require.Contains(t, toolNames(reqs[len(reqs)-1]), "write_file")
	require.Contains(t, toolNames(reqs[len(reqs)-1]), "run_terminal_command")
}

func TestSaveRefusesUnknownTool(t *testing.T) {
	t.Parallel()
	ts := startServer(t, "127.0.0.1:1")
	_, err := ts.app.Settings.Save(config.Settings{DisabledTools: []string{"format_disk"}})
	require.ErrorContains(t, err, `there is no tool named "format_disk"`)
	tools := ts.app.Settings.Tools()
	require.Equal(t, "read_file", tools[0].Name)
	for _, tool := range tools {
		require.NotEmpty(t, tool.Summary, tool.Name)
		require.NotContains(t, tool.Summary, "\n")
	}
}

// A language server chosen in Code intelligence survives a save of another setting from a
// screen that read the settings before the choice.
func TestSaveKeepsTheLanguageServerChosenSince(t *testing.T) {
	t.Parallel()
	ts := startServer(t, "127.0.0.1:1")
	stale := ts.app.Settings.Get().Settings
	program, err := os.Executable()
	require.NoError(t, err)
	_, err = ts.app.Settings.SetLanguageServer("go", program)
	require.NoError(t, err)

	stale.Theme = "dark"
	view, err := ts.app.Settings.Save(stale)
	require.NoError(t, err)
	require.Equal(t, "dark", view.Settings.Theme)
	require.Equal(t, map[string]string{"go": program}, view.Settings.LanguageServers)
}

// editAsks runs an edit of path in a new session and reports whether it waited for a person.
func (f *chatFixture) editAsks(t *testing.T, path string) bool {
	t.Helper()
	f.fake.Enqueue(call("write_file", map[string]any{"path": path, "content": time.Now().String()}), done("Written."))
	res, err := f.app.Chat.Send(SendRequest{Text: "write " + path})
	require.NoError(t, err)
	var asked bool
	require.Eventually(t, func() bool {
		for _, ev := range f.replay(t, res.SessionID) {
			switch ev.Type {
			case events.ApprovalRequested:
				var card approval.Card
				require.NoError(t, json.Unmarshal(ev.Payload, &card))
				asked = true
				require.NoError(t, f.app.Chat.RespondApproval(card.ID, approval.Decision{Allowed: true}))
				return true
			case events.RunFinished:
				return true
			}
		}
		return false
	}, 10*time.Second, 20*time.Millisecond)
	f.waitIdle(t, res.SessionID, 10*time.Second)
	if os.Getenv("H2DEBUG") != "" {
		for _, ev := range f.replay(t, res.SessionID) {
			t.Logf("%s %s", ev.Type, ev.Payload)
		}
	}
	return asked
}

func TestFileRulesAndSensitiveAutoApproveReachTheRun(t *testing.T) {
	t.Parallel()
	f := startChat(t, config.PermissionDefault)
	require.True(t, f.editAsks(t, ".env"), "the built-in rules call .env sensitive")
	require.False(t, f.editAsks(t, "notes.md"))

	// Last match wins: .env.* asks, but the example file is allowed.
	f.save(t, func(s *config.Settings) {
		s.FileRules = []config.FileRule{{Pattern: "*.md", Action: config.FileAsk}, {Pattern: "README.md", Action: config.FileAllow}}
	})
	require.False(t, f.editAsks(t, ".env"), "the person's rules replace the built-in ones")
	require.True(t, f.editAsks(t, "notes.md"))
	require.False(t, f.editAsks(t, "README.md"))

	f.save(t, func(s *config.Settings) { s.AutoApproveSensitiveEdits = true })
	require.False(t, f.editAsks(t, "other.md"), "sensitive edits no longer ask in the default mode")

	f.save(t, func(s *config.Settings) { s.PermissionMode = config.PermissionAsk })
	require.True(t, f.editAsks(t, "plain.txt"), "the ask mode still asks")
}

func TestGitBranchSettingReachesTheRun(t *testing.T) {
	t.Parallel()
	f := startChat(t, config.PermissionDefault, done("One."), done("Two."))
	res, err := f.app.Chat.Send(SendRequest{Text: "no branch"})
	require.NoError(t, err)
	f.waitIdle(t, res.SessionID, 10*time.Second)
	var p agent.RunStartedPayload
	require.NoError(t, json.Unmarshal(f.waitEvent(t, res.SessionID, events.RunStarted).Payload, &p))
	require.Nil(t, p.GitBranch)

	f.save(t, func(s *config.Settings) { s.GitBranch = true })
	res, err = f.app.Chat.Send(SendRequest{Text: "with a branch"})
	require.NoError(t, err)
	f.waitIdle(t, res.SessionID, 10*time.Second)
	require.NoError(t, json.Unmarshal(f.waitEvent(t, res.SessionID, events.RunStarted).Payload, &p))
	require.NotNil(t, p.GitBranch, "the run was asked for a branch")
	require.Equal(t, git.BranchSkipped, p.GitBranch.Status, "the project is not a git repository")
}

func TestTerminalTimeoutSetting(t *testing.T) {
	t.Parallel()
	// The command outlives any wait here: only the 1 s timeout can have ended it, and the result
	// says that it did (the default timeout is 30 s).
	f := startChat(t, config.PermissionFull, call("run_terminal_command", map[string]any{"command": "sleep 600"}), done("Slow."))
	f.save(t, func(s *config.Settings) { s.TerminalTimeout = 1 })
	res, err := f.app.Chat.Send(SendRequest{Text: "sleep"})
	require.NoError(t, err)
	f.waitIdle(t, res.SessionID, 20*time.Second)
	reqs := f.fake.Requests()
	last := reqs[len(reqs)-1].Messages
	require.Contains(t, last[len(last)-1].Content, "killed after timeout of 1s")
}

func TestAlwaysAllowRulesListAndRemove(t *testing.T) {
	t.Parallel()
	ts := startServer(t, "127.0.0.1:1")
	root := t.TempDir()
	project := approval.Rule{Kind: approval.KindCommand, CommandPrefix: "npm test", Severity: "medium", Scope: approval.ScopeProject, Workspace: root}
	user := approval.Rule{Kind: approval.KindEdit, PathGlob: "docs/**", Scope: approval.ScopeUser}
	require.NoError(t, ts.app.Settings.rules.AddRule(project))
	require.NoError(t, ts.app.Settings.rules.AddRule(user))
	require.Equal(t, []approval.Rule{project, user}, ts.app.Settings.Rules())

	left, err := ts.app.Settings.RemoveRule(project)
	require.NoError(t, err)
	require.Equal(t, []approval.Rule{user}, left)
	data, err := os.ReadFile(filepath.Join(ts.dirs.config, "approval-rules.json"))
	require.NoError(t, err)
	require.NotContains(t, string(data), "npm test", "the removal is saved")

	code, body := ts.call(t, "SettingsService/RemoveRule", user)
	require.Equal(t, http.StatusOK, code, string(body))
	require.Empty(t, ts.app.Settings.Rules())
}

func TestTestHost(t *testing.T) {
	t.Parallel()
	fake := fakeollama.NewTest(t, fakeollama.Script{Models: []fakeollama.Model{{Name: "a:1b"}, {Name: "b:1b"}}})
	ts := startServer(t, "127.0.0.1:1")

	st, err := ts.app.Ollama.TestHost(fake.URL())
	require.NoError(t, err)
	require.True(t, st.Reachable)
	require.Equal(t, "0.17.4", st.Version)
	require.Len(t, st.Models, 2)
	require.Equal(t, "127.0.0.1:1", ts.app.settings.Get().OllamaHost, "testing saves nothing")

	st, err = ts.app.Ollama.TestHost("127.0.0.1:1")
	require.NoError(t, err)
	require.False(t, st.Reachable)
	require.Contains(t, st.Error, "connection refused")

	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { http.NotFound(w, nil) }))
	t.Cleanup(other.Close)
	st, err = ts.app.Ollama.TestHost(other.URL)
	require.NoError(t, err)
	require.Contains(t, st.Error, "not an Ollama server")

	_, err = ts.app.Ollama.TestHost("not a host")
	require.ErrorContains(t, err, "must not contain spaces")
}

func TestPullReportsProgressToEveryWindow(t *testing.T) {
	t.Parallel()
	fake := fakeollama.NewTest(t, fakeollama.Script{
		Models:  []fakeollama.Model{{Name: "a:1b"}},
		Library: []fakeollama.Model{{Name: "qwen3:4b", Size: 5 << 20, Capabilities: []string{"completion", "tools"}}},
	})
	ts := startServer(t, fake.URL())
	first, second := openEvents(t, ts), openEvents(t, ts)

	st, err := ts.app.Ollama.Pull(" qwen3:4b ")
	require.NoError(t, err)
	require.Equal(t, PullRunning, st.State)
	var percents []float64
	var final map[string]any
	for final == nil {
		p := next(t, first, "modelPull")["payload"].(map[string]any)
		percents = append(percents, p["percent"].(float64))
		if p["state"] != PullRunning {
			final = p
		}
	}
	require.Equal(t, PullDone, final["state"], "%v", final)
	require.EqualValues(t, 100, final["percent"])
	require.EqualValues(t, final["total"], final["completed"])
	require.IsNonDecreasing(t, percents)
	for {
		if p := next(t, second, "modelPull")["payload"].(map[string]any); p["state"] == PullDone {
			break
		}
	}
	require.Contains(t, modelNames(ts.app.Ollama.Status()), "qwen3:4b", "the model list was re-read")
	require.Empty(t, ts.app.Ollama.Pulls())

	models, err := ts.app.Ollama.Models()
	require.NoError(t, err)
	require.Len(t, models, 2)
	require.Equal(t, "qwen3:4b", models[1].Name)
	require.True(t, models[1].Known && models[1].Capabilities.Tools)
	require.False(t, models[0].Capabilities.Tools)
}

func TestPullUnknownModelAndCancel(t *testing.T) {
	t.Parallel()
	fake := fakeollama.NewTest(t, fakeollama.Script{Library: []fakeollama.Model{{Name: "big:7b"}}})
	// Held halfway: the download cannot finish before it is cancelled.
	fake.SetScript(fakeollama.Script{Library: []fakeollama.Model{{Name: "big:7b"}}, PullHold: true})
	ts := startServer(t, fake.URL())
	evs := openEvents(t, ts)

	_, err := ts.app.Ollama.Pull("nope:1b")
	require.NoError(t, err)
	p := waitPull(t, evs, "nope:1b")
	require.Equal(t, PullFailed, p["state"])
	require.Contains(t, p["error"], `Ollama could not find a model named "nope:1b"`)

	_, err = ts.app.Ollama.Pull("big:7b")
	require.NoError(t, err)
	again, err := ts.app.Ollama.Pull("BIG:7b")
	require.NoError(t, err)
	require.Equal(t, "big:7b", again.Model, "a second pull of the same model joins the first")
	require.Eventually(t, func() bool { return len(ts.app.Ollama.Pulls()) == 1 && ts.app.Ollama.Pulls()[0].Completed > 0 }, 10*time.Second, 10*time.Millisecond)
	require.NoError(t, ts.app.Ollama.CancelPull("big:7b"))
	p = waitPull(t, evs, "big:7b")
	require.Equal(t, PullCancelled, p["state"])
	require.Empty(t, ts.app.Ollama.Refresh().Models, "a cancelled pull installs nothing")

	_, err = ts.app.Ollama.Pull("two words")
	require.ErrorContains(t, err, "no spaces")
}

// waitPull returns the final modelPull payload of model.
func waitPull(t *testing.T, evs <-chan map[string]any, model string) map[string]any {
	t.Helper()
	for {
		p := next(t, evs, "modelPull")["payload"].(map[string]any)
		if strings.EqualFold(p["model"].(string), model) && p["state"] != PullRunning {
			return p
		}
	}
}

func modelNames(st llm.Status) []string {
	var names []string
	for _, m := range st.Models {
		names = append(names, m.Name)
	}
	return names
}

// A tool registered at run time gets a Settings row from what it says of itself.
func TestSettingsRowOfAToolRegisteredAtRunTime(t *testing.T) {
	t.Parallel()
	type params struct {
		City string `json:"city"`
	}
	weather := tools.Define("get_weather", tools.KindFetch, "Tells the weather in a city. Asks a web service.", tools.About{},
		func(context.Context, params, tools.Output) (tools.Result, error) { return tools.Result{}, nil })
	require.Equal(t, ToolInfo{Name: "get_weather", Label: "get weather", Summary: "Tells the weather in a city.", Kind: tools.KindFetch}, toolInfo(weather))
	for _, info := range builtinTools() {
		require.NotEmpty(t, info.Label, info.Name)
		require.NotEmpty(t, info.Summary, info.Name)
	}
}
