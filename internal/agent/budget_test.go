package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gantry/internal/project"

	"github.com/stretchr/testify/require"

	"gantry/internal/ignore"
	"gantry/internal/llm/fakeollama"
	"gantry/internal/safety"
	"gantry/internal/terminal"
	"gantry/internal/tools"
)

// budgetRegistry is a session's tools, the task list's included.
func budgetRegistry(t *testing.T) *tools.Registry {
	t.Helper()
	root := t.TempDir()
	env := &tools.Env{Root: root, Ignore: ignore.New(root), Approver: tools.PolicyApprover{},
		Checkpoints: tools.NoCheckpoints{}, FileRules: safety.DefaultFileRules(), Tasks: keptTasks{}}
	reg, err := tools.NewBuiltinRegistry(env, terminal.NewSession(root))
	require.NoError(t, err)
	return reg
}

func budgetModeTools(t *testing.T, mode Mode) *tools.Registry {
	t.Helper()
	reg, err := ModeTools(mode, budgetRegistry(t))
	require.NoError(t, err)
	return reg
}

// budgetInput is the golden tests' project without memory (a run plans before it has any).
func budgetInput(mode Mode, native bool) PromptInput {
	in := promptTestInput(mode, native)
	in.ToolsText, in.Memory = "", ""
	return in
}

// budgetHeavyInput is a project whose agent instructions fill their whole budget (3,000
// characters, project.Discover's cap).
func budgetHeavyInput(mode Mode, native bool) PromptInput {
	in := budgetInput(mode, native)
	in.Project.Instructions = "From AGENTS.md:\n" + strings.Repeat("Keep functions small and name them for what they do.\n", 56)
	return in
}

func pathName(native bool) string {
	if native {
		return "native"
	}
	return "text"
}

// The fixed part of every request (system prompt and tools[]) leaves the conversation at least
// half of num_ctx, with the richest rendering that does.
func TestPromptPlanPerWindow(t *testing.T) {
	t.Parallel()
	type row struct {
		numCtx int
		level  PromptLevel
	}
	// The levels the golden project gets, by mode and path: the text path's list is cheaper
	// than tools[], and the agent's tools cost the most.
	want := map[string][]row{
		"agent/native":   {{2048, PromptCore}, {4096, PromptCompact}, {8192, PromptFull}, {32768, PromptFull}},
		"agent/text":     {{2048, PromptLean}, {4096, PromptFull}, {8192, PromptFull}, {32768, PromptFull}},
		"explore/native": {{2048, PromptLean}, {4096, PromptFull}, {8192, PromptFull}, {32768, PromptFull}},
		"explore/text":   {{2048, PromptCompact}, {4096, PromptFull}, {8192, PromptFull}, {32768, PromptFull}},
		"plan/native":    {{2048, PromptLean}, {4096, PromptFull}, {8192, PromptFull}, {32768, PromptFull}},
		"plan/text":      {{2048, PromptCompact}, {4096, PromptFull}, {8192, PromptFull}, {32768, PromptFull}},
		"review/native":  {{2048, PromptCore}, {4096, PromptCompact}, {8192, PromptFull}, {32768, PromptFull}},
		"review/text":    {{2048, PromptLean}, {4096, PromptFull}, {8192, PromptFull}, {32768, PromptFull}},
	}
	for _, mode := range promptTestModes {
		reg := budgetModeTools(t, mode)
		for _, native := range []bool{true, false} {
			key := string(mode) + "/" + pathName(native)
			var table []string
			for _, r := range want[key] {
				plan := PlanPrompt(budgetInput(mode, native), reg, r.numCtx)
				share := 1 - float64(plan.Tokens)/float64(r.numCtx)
				table = append(table, fmt.Sprintf("%dk %s %d tok (%.0f%% left)", r.numCtx/1024, plan.Level, plan.Tokens, 100*share))
				require.Equal(t, r.level, plan.Level, "%s at %d", key, r.numCtx)
				require.GreaterOrEqual(t, share, 0.5, "%s at %d: the conversation keeps half the window", key, r.numCtx)
				require.Equal(t, EstimateTokens(plan.System())+wireTokens(plan.Wire), plan.Tokens)
				require.Equal(t, native, len(plan.Wire) > 0, "tools[] only on the native path")
				// The task list is offered only where the window describes every tool.
				_, tasks := plan.Tools.Get("task_create")
				lean := plan.Level == PromptLean || plan.Level == PromptCore
				require.Equal(t, !lean, tasks, "%s at %d: task tools", key, r.numCtx)
				require.Equal(t, !lean, strings.Contains(plan.System(), "LARGER TASKS"), "%s at %d", key, r.numCtx)

				// Heavy project instructions still leave half of a 2k window.
				heavy := PlanPrompt(budgetHeavyInput(mode, native), reg, r.numCtx)
				require.LessOrEqual(t, heavy.Tokens, r.numCtx/2, "%s at %d with 3,000 characters of instructions", key, r.numCtx)
			}
			t.Logf("%-15s %s", key, strings.Join(table, " | "))
		}
	}
}

// Each level is smaller than the one before, so the first that fits is the richest.
func TestPromptLevelsShrink(t *testing.T) {
	t.Parallel()
	for _, mode := range promptTestModes {
		reg := budgetModeTools(t, mode)
		for _, native := range []bool{true, false} {
			full := renderLevel(budgetInput(mode, native), reg, PromptFull, 0)
			compact := renderLevel(budgetInput(mode, native), reg, PromptCompact, 0)
			lean := renderLevel(budgetInput(mode, native), reg, PromptLean, 0)
			core := renderLevel(budgetInput(mode, native), reg, PromptCore, 0)
			require.Less(t, compact.Tokens, full.Tokens, mode)
			require.Less(t, lean.Tokens, compact.Tokens, mode)
			require.Less(t, core.Tokens, lean.Tokens, mode)
			// A window too small for any level gets the smallest.
			require.Equal(t, PromptCore, PlanPrompt(budgetInput(mode, native), reg, 512).Level)
		}
	}
}

// The core level never drops a tool without telling the model: the text path lists the others
// by signature, the native path names them as not offered.
func TestPromptCoreNamesTheOtherTools(t *testing.T) {
	t.Parallel()
	reg := budgetModeTools(t, ModeAgent)
	native := renderLevel(budgetInput(ModeAgent, true), reg, PromptCore, 0)
	var names []string
	for _, w := range native.Wire {
		names = append(names, w.Function.Name)
	}
	require.Equal(t, []string{"read_file", "list_files", "search_workspace", "edit_file", "write_file", "run_terminal_command"}, names)
	require.Contains(t, native.System(), "glob, get_diagnostics, undo_file, undo_turn are not offered")

	text := renderLevel(budgetInput(ModeAgent, false), reg, PromptCore, 0)
	sys := text.System()
	require.Contains(t, sys, "- edit_file(path: string, edits?: [{old: string, new: string}], old?: string, new?: string): Change part of a file")
	require.Contains(t, sys, "More tools, same call format:\n- glob(pattern: string, path?: string)\n- get_diagnostics(path: string)")
	require.Contains(t, sys, "Make one call at a time")

	for _, plan := range []PromptPlan{native, text} {
		s := plan.System()
		require.Contains(t, s, "[TASK_COMPLETE]")
		require.Contains(t, s, "Paths are relative to the project folder")
		require.Contains(t, s, "Prefer table-driven tests.", "the person's own instructions stay")
		require.Contains(t, s, "Run `make test` before finishing.", "so do the project's")
		require.NotContains(t, s, "CODE NAVIGATION STRATEGY")
	}

	// A tool the person turned off is not the window's doing: it is not named as left out.
	off := renderLevel(budgetInput(ModeAgent, true), reg.Without([]string{"glob"}), PromptCore, 0)
	require.Equal(t, []string{"get_diagnostics", "undo_file", "undo_turn"}, off.Input.LeftOut)

	review := renderLevel(budgetInput(ModeReview, true), budgetModeTools(t, ModeReview), PromptCore, 0)
	require.Len(t, review.Wire, 4)
	require.Contains(t, review.Wire[3].Function.Description, "read-only git command")
	require.Contains(t, review.System(), "git status and git diff")
	require.Contains(t, review.System(), "glob, get_diagnostics are not offered")
}

func TestShortProjectSectionIsCut(t *testing.T) {
	t.Parallel()
	s := shortProjectSection(budgetHeavyInput(ModeAgent, true).Project)
	require.LessOrEqual(t, len([]rune(s)), shortProjectChars+80)
	require.True(t, strings.HasSuffix(s, "the project's files have the rest.)"), s)
	require.True(t, strings.HasPrefix(s, "PROJECT: example.com/shop (Go)\nGo module"), s)
	require.Empty(t, shortProjectSection(project.Context{}))
	small := project.Context{Name: "x", Summary: "Go module x"}
	require.Equal(t, "PROJECT: x\nGo module x", shortProjectSection(small))
}

// Golden prompts per level and path: the system prompt, then (native) the tools[] as sent.
func TestPromptLevels(t *testing.T) {
	t.Parallel()
	type tc struct {
		mode  Mode
		level PromptLevel
	}
	cases := []tc{{ModeAgent, PromptFull}, {ModeAgent, PromptCompact}, {ModeAgent, PromptCore},
		{ModeExplore, PromptCore}, {ModePlan, PromptCore}, {ModeReview, PromptCore}}
	for _, c := range cases {
		for _, native := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s-%s-%s", c.mode, c.level, pathName(native)), func(t *testing.T) {
				t.Parallel()
				plan := renderLevel(budgetInput(c.mode, native), budgetModeTools(t, c.mode), c.level, 0)
				got := plan.System()
				if native {
					wire, err := json.MarshalIndent(plan.Wire, "", "  ")
					require.NoError(t, err)
					got += "\n--- tools[] ---\n" + string(wire) + "\n"
				}
				got = fmt.Sprintf("# ≈%d tokens\n%s", plan.Tokens, got)
				promptGolden(t, got)
			})
		}
	}
}

var smallNativeModel = fakeollama.Model{Name: "tiny:latest", ContextLength: 2048, Capabilities: []string{"completion", "tools"}}
var smallTextModel = fakeollama.Model{Name: "tinytext:latest", ContextLength: 2048, Capabilities: []string{"completion"}}

// A 2,048-token model finishes a read-then-edit task with the core prompt: tools[] compact,
// num_ctx 2048, and half the window left to the conversation.
func TestRunSmallWindowNative(t *testing.T) {
	t.Parallel()
	f := newRunFixtureWith(t, []fakeollama.Model{smallNativeModel}, []fakeollama.Turn{
		{Chunks: []fakeollama.Chunk{call("read_file", map[string]any{"path": "main.go"})}},
		{Chunks: []fakeollama.Chunk{call("edit_file", map[string]any{"path": "main.go", "old": `"helo"`, "new": `"hello"`})}},
		textTurn("Fixed the typo. [TASK_COMPLETE]"),
	}, allowAll)

	res := f.run(context.Background(), "tiny", "fix the typo in main.go")
	require.Equal(t, StatusDone, res.Status, res.Message)
	require.Contains(t, f.file("main.go"), `"hello"`)

	reqs := f.fake.Requests()
	require.Len(t, reqs, 3)
	for _, r := range reqs {
		require.EqualValues(t, 2048, r.Options["num_ctx"])
		require.Len(t, r.Tools, 6, "the agent's core tools")
		wire, err := json.Marshal(r.Tools)
		require.NoError(t, err)
		require.LessOrEqual(t, EstimateTokens(r.Messages[0].Content)+EstimateTokens(string(wire)), 1024)
	}
	first := reqs[0]
	require.Equal(t, "Change part of a file by replacing exact text copied from it.", first.Tools[3].Function.Description)
	require.NotContains(t, first.Messages[0].Content, "CODE NAVIGATION STRATEGY", "the short prompt")
	require.Contains(t, first.Messages[0].Content, "not offered in this small context window")
	for _, tool := range first.Tools {
		for name, p := range tool.Function.Parameters.Properties.All() {
			if !contains(tool.Function.Parameters.Required, name) {
				require.Empty(t, p.Description, "%s.%s: optional parameters go undescribed", tool.Function.Name, name)
			}
		}
	}
	require.Contains(t, reqs[1].Messages[3].Content, `return "helo"`, "the read result reached the model")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// The same task on the text path, whose tool list is cheaper: the whole prompt with the
// compact list fits a 2k window.
func TestRunSmallWindowText(t *testing.T) {
	t.Parallel()
	f := newRunFixtureWith(t, []fakeollama.Model{smallTextModel}, []fakeollama.Turn{
		textTurn(`<tool_call>{"name": "read_file", "arguments": {"path": "main.go"}}</tool_call>`),
		textTurn(`<tool_call>{"name": "edit_file", "arguments": {"path": "main.go", "old": "\"helo\"", "new": "\"hello\""}}</tool_call>`),
		textTurn("Fixed the typo. [TASK_COMPLETE]"),
	}, allowAll)
	res := f.run(context.Background(), "tinytext", "fix the typo in main.go")
	require.Equal(t, StatusDone, res.Status, res.Message)
	require.Contains(t, f.file("main.go"), `"hello"`)
	reqs := f.fake.Requests()
	require.Len(t, reqs, 3)
	sys := reqs[0].Messages[0].Content
	require.Empty(t, reqs[0].Tools)
	require.EqualValues(t, 2048, reqs[0].Options["num_ctx"])
	require.Contains(t, sys, "- read_file(path: string, startLine?: integer): Read a text file;", "the compact list")
	require.NotContains(t, sys, "## read_file")
	require.LessOrEqual(t, EstimateTokens(sys), 1024)
}

// A tool left out of a small window's rendering still runs when the model calls it: the
// registry keeps every tool of the mode.
func TestRunSmallWindowLeftOutToolStillRuns(t *testing.T) {
	t.Parallel()
	for _, model := range []fakeollama.Model{smallNativeModel, smallTextModel} {
		turn := fakeollama.Turn{Chunks: []fakeollama.Chunk{call("glob", map[string]any{"pattern": "*.go"})}}
		if model.Name == smallTextModel.Name {
			turn = textTurn(`<tool_call>{"name": "glob", "arguments": {"pattern": "*.go"}}</tool_call>`)
		}
		f := newRunFixtureWith(t, []fakeollama.Model{model}, []fakeollama.Turn{turn, textTurn("main.go is the only Go file.")}, allowAll)
		// Long agent instructions push the text path to the core level too.
		require.NoError(t, os.WriteFile(filepath.Join(f.root, "AGENTS.md"), []byte(strings.Repeat("Keep functions small and name them for what they do.\n", 56)), 0o644))
		res := f.run(context.Background(), strings.TrimSuffix(model.Name, ":latest"), "which Go files are there?")
		require.Equal(t, StatusDone, res.Status, res.Message)

		reqs := f.fake.Requests()
		require.Len(t, reqs, 2)
		require.Contains(t, reqs[0].Messages[0].Content, "PROJECT INSTRUCTIONS (follow them)", "the short prompt")
		for _, tool := range reqs[0].Tools {
			require.NotEqual(t, "glob", tool.Function.Name, "glob is not in a 2k window's tools[]")
		}
		var result string
		for _, m := range reqs[1].Messages {
			if m.Role == "tool" || strings.Contains(m.Content, "<tool_result") {
				result = m.Content
			}
		}
		require.Contains(t, result, "main.go", model.Name)
		require.NotContains(t, result, "no tool named", model.Name)
	}
}

// Compaction measures the prompt the run really sends: in a 2k window the core prompt, whose
// size the contextCompacted event's estimate is made of.
func TestRunSmallWindowCompactsWithRealPromptSize(t *testing.T) {
	t.Parallel()
	read := func(p string) fakeollama.Turn {
		return fakeollama.Turn{Chunks: []fakeollama.Chunk{call("read_file", map[string]any{"path": p})}}
	}
	f := newRunFixtureWith(t, []fakeollama.Model{smallNativeModel}, []fakeollama.Turn{
		read("a.txt"), read("b.txt"),
		textTurn("Read a.txt: nothing there."),
		textTurn("Both files hold filler lines."),
	}, allowAll)
	for _, name := range []string{"a", "b"} {
		var b strings.Builder
		for i := range 18 { // about 360 tokens: one read fits beside the prompt, two do not
			line := fmt.Sprintf("%sMARK line %02d ", strings.ToUpper(name), i)
			b.WriteString(line + strings.Repeat("x", 79-len(line)) + "\n")
		}
		require.NoError(t, os.WriteFile(filepath.Join(f.root, name+".txt"), []byte(b.String()), 0o644))
	}
	res := f.run(context.Background(), "tiny", "what do a.txt and b.txt say?")
	require.Equal(t, StatusDone, res.Status, res.Message)

	reqs := f.fake.Requests()
	require.Len(t, reqs, 4)
	require.Empty(t, reqs[2].Tools, "the summary request")
	compacted := compactEvents(t, f)
	require.Len(t, compacted, 1)
	require.Greater(t, compacted[0].Before, 2048*3/4)

	// The request after compaction is exactly what the event's After estimated.
	next := reqs[3]
	requireValidHistory(t, next.Messages)
	require.Len(t, next.Tools, 6)
	sent := EstimateTokens(next.Messages[0].Content) + wireTokens(next.Tools) + messageTokens(next.Messages[1:])
	require.Equal(t, sent, compacted[0].After)
	require.Less(t, sent, 2048*3/4)
}
