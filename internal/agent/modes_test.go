package agent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/llm/fakeollama"
	"gantry/internal/tools"
)

func TestModeTools(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, nil, allowAll)
	names := func(m Mode) []string {
		r, err := ModeTools(m, f.runner.deps.Tools)
		require.NoError(t, err)
		var out []string
		for _, tl := range r.List() {
			out = append(out, tl.Name())
		}
		return out
	}
	require.Contains(t, names(ModeAgent), "write_file")
	for _, m := range []Mode{ModeExplore, ModePlan} {
		require.NotContains(t, names(m), "run_terminal_command", m)
		require.NotContains(t, names(m), "edit_file", m)
	}
	review := names(ModeReview)
	require.Contains(t, review, "run_terminal_command")
	require.Contains(t, review, "read_file")
	require.NotContains(t, review, "write_file")
	require.NotContains(t, review, "undo_turn")

	// A tool the person turned off is refused with that reason in a read-only mode too.
	explore, err := ModeTools(ModeExplore, f.runner.deps.Tools.Without([]string{"search_workspace"}))
	require.NoError(t, err)
	_, _, refused := explore.Prepare("search_workspace", map[string]any{"query": "x"})
	require.NotNil(t, refused)
	require.Contains(t, refused.Content, "turned off in Gantry's settings")
}

func TestRunReviewGitCommands(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, []fakeollama.Turn{
		{Chunks: []fakeollama.Chunk{
			call("run_terminal_command", map[string]any{"command": "git status --short"}),
			call("run_terminal_command", map[string]any{"command": "git diff --output=leak.txt"}),
			call("run_terminal_command", map[string]any{"command": "echo hi > made.txt"}),
		}},
		textTurn("No findings. [TASK_COMPLETE]"),
	}, allowAll)
	gitInit(t, f.root)
	require.NoError(t, os.WriteFile(filepath.Join(f.root, "main.go"), []byte(runMainGo+"// new\n"), 0o644))

	res, err := f.runner.Run(context.Background(), RunRequest{SessionID: f.sessionID, RunID: "r", Workspace: f.root, Mode: ModeReview, Model: "coder", Text: "review my changes"})
	require.NoError(t, err)
	require.Equal(t, StatusDone, res.Status, res.Message)
	require.NoFileExists(t, filepath.Join(f.root, "leak.txt"))
	require.NoFileExists(t, filepath.Join(f.root, "made.txt"))

	second := f.fake.Requests()[1].Messages
	results := second[len(second)-3:]
	require.Contains(t, results[0].Content, "main.go", "git status ran")
	require.Contains(t, results[1].Content, "only read-only git commands")
	require.Contains(t, results[1].Content, "--output")
	require.Contains(t, results[2].Content, "git status, git diff, git log, git show or git blame")
	acts := f.actions()
	require.Equal(t, string(tools.ErrDenied), acts[len(acts)-1].ErrorKind)

	var wire []string
	for _, tl := range f.fake.Requests()[0].Tools {
		wire = append(wire, tl.Function.Name)
	}
	require.Contains(t, wire, "run_terminal_command")
	require.NotContains(t, wire, "edit_file")
}

func TestRunFromPlan(t *testing.T) {
	t.Parallel()
	plan := "1. In main.go, change \"helo\" to \"hello\" in greet."
	f := newRunFixture(t, []fakeollama.Turn{
		textTurn(plan + "\n[TASK_COMPLETE]"),
		{Chunks: []fakeollama.Chunk{call("edit_file", map[string]any{"path": "main.go", "old": `"helo"`, "new": `"hello"`})}},
		textTurn("Done. [TASK_COMPLETE]"),
	}, allowAll)
	ctx := context.Background()
	planned, err := f.runner.Run(ctx, RunRequest{SessionID: f.sessionID, RunID: "plan", Workspace: f.root, Mode: ModePlan, Model: "coder", Text: "plan the typo fix"})
	require.NoError(t, err)
	require.Equal(t, StatusDone, planned.Status)
	require.Equal(t, plan, planned.Message)

	res, err := f.runner.Run(ctx, RunRequest{SessionID: f.sessionID, RunID: "act", Workspace: f.root, Mode: ModeAgent, Model: "coder", Text: "go ahead", Plan: planned.Message})
	require.NoError(t, err)
	require.Equal(t, StatusDone, res.Status, res.Message)
	require.Contains(t, f.file("main.go"), `"hello"`)

	first := f.fake.Requests()[1].Messages
	user := first[len(first)-1]
	require.Equal(t, "user", user.Role)
	require.Equal(t, planLabel+"\n"+plan+"\n\ngo ahead", user.Content)
}

func TestWithPlan(t *testing.T) {
	t.Parallel()
	require.Equal(t, "text", withPlan("  ", "text"))
	require.Equal(t, planLabel+"\n1. x", withPlan("1. x\n", ""))
}

// gitInit makes dir a repository with its files committed on main.
func gitInit(t *testing.T, dir string) {
	t.Helper()
	runGit(t, dir, "init", "-q", "-b", "main")
	runGit(t, dir, "add", "-A")
	runGit(t, dir, "commit", "-q", "-m", "initial")
}

func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	return string(out)
}
