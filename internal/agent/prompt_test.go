package agent

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gantry/internal/project"

	"github.com/stretchr/testify/require"

	"gantry/internal/terminal"
	"gantry/internal/tools"
)

// Other test files of the package may define -update too; whichever comes first defines it and
// the rest share it, since defining a flag twice panics.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files")
	}
}

func promptUpdatingGolden() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// promptGolden compares got with testdata/<Test>/<case>.golden (the subtest's name), rewriting it
// under -update.
func promptGolden(t *testing.T, got string) {
	t.Helper()
	path := filepath.Join("testdata", filepath.FromSlash(t.Name())+".golden")
	if promptUpdatingGolden() {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create it")
	require.Equal(t, string(want), got)
}

var promptTestModes = []Mode{ModeAgent, ModeExplore, ModePlan, ModeReview}

func promptTestInput(mode Mode, native bool) PromptInput {
	in := PromptInput{
		Mode:          mode,
		Workspace:     "/home/dev/shop",
		WorkspaceName: "shop",
		NativeTools:   native,
		Project: project.Context{
			Name:         "example.com/shop",
			Languages:    []string{"Go"},
			Instructions: "From AGENTS.md:\nRun `make test` before finishing.",
			Summary:      "Go module example.com/shop (go 1.22, 3 direct deps)\nMakefile targets: build, test",
		},
		Memory: "- Files touched: internal/cart/cart.go\n- Decided: keep prices in cents",
		Rules:  "Prefer table-driven tests.",
		OS:     "linux",
		Date:   "2025-01-15",
	}
	if !native {
		in.ToolsText = "## read_file(path: string)\nRead a text file.\n\n## edit_file(path: string, edits: [{old: string, new: string}])\nChange part of a file.\n"
	}
	in.Example, in.Hints, in.Practices = toolGuidance(builtinModeTools(mode))
	return in
}

// keptTasks stands for a session's task list where only whether one is kept matters (the
// prompt offers the task tools).
type keptTasks struct{ tools.Tasks }

// builtinModeTools are the built-in tools a run in mode is offered, in a session that keeps a
// task list.
func builtinModeTools(mode Mode) *tools.Registry {
	env := &tools.Env{Root: os.TempDir(), Approver: tools.PolicyApprover{}, Checkpoints: tools.NoCheckpoints{}, Tasks: keptTasks{}}
	all, err := tools.NewBuiltinRegistry(env, terminal.NewSession(os.TempDir()))
	if err != nil {
		panic(err)
	}
	reg, err := ModeTools(mode, all)
	if err != nil {
		panic(err)
	}
	return reg
}

func TestSystemPrompt(t *testing.T) {
	t.Parallel()
	for _, mode := range promptTestModes {
		for _, native := range []bool{true, false} {
			name := string(mode) + "-text"
			if native {
				name = string(mode) + "-native"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				got := BuildSystemPrompt(promptTestInput(mode, native))
				promptGolden(t, got)
			})
		}
	}
}

func TestSystemPromptSections(t *testing.T) {
	t.Parallel()
	native := BuildSystemPrompt(promptTestInput(ModeAgent, true))
	require.NotContains(t, native, "<tool_call>", "the native path gets its tools in the request")
	require.NotContains(t, native, "TOOLS:")
	require.Contains(t, native, "[TASK_COMPLETE]")
	require.Contains(t, native, "PROJECT CONTEXT:")
	require.Contains(t, native, "Run `make test` before finishing.")
	require.Contains(t, native, "Prefer table-driven tests.")
	require.Contains(t, native, "keep prices in cents")
	require.Contains(t, native, "ALREADY AVAILABLE")

	text := BuildSystemPrompt(promptTestInput(ModeAgent, false))
	require.Contains(t, text, `<tool_call>{"name": "read_file", "arguments": {"path": "src/main.go"}}</tool_call>`)
	require.Contains(t, text, "TOOLS:\n## read_file(path: string)")
	require.Less(t, strings.Index(text, "TOOL CALLS:"), strings.Index(text, "MODE: AGENT"))

	review := BuildSystemPrompt(promptTestInput(ModeReview, true))
	for _, git := range []string{"git status", "git diff", "git log", "git show", "git blame"} {
		require.Contains(t, review, git)
	}
	require.Contains(t, BuildSystemPrompt(promptTestInput(ModePlan, true)), "numbered plan")

	bare := BuildSystemPrompt(PromptInput{Mode: ModeExplore, WorkspaceName: "x", NativeTools: true})
	require.NotContains(t, bare, "PROJECT CONTEXT")
	require.NotContains(t, bare, "SESSION MEMORY")
	require.NotContains(t, bare, "STANDING INSTRUCTIONS")
	require.NotContains(t, bare, "\n\n\n", "empty sections leave no gaps")
}

// Local models may have 4k windows: the prompt must leave room for the conversation.
func TestSystemPromptStaysSmall(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, mode := range promptTestModes {
		in := PromptInput{Mode: mode, Workspace: root, WorkspaceName: "project", OS: "linux", Date: "2025-01-15", NativeTools: true}
		in.Example, in.Hints, in.Practices = toolGuidance(builtinModeTools(mode))
		native := EstimateTokens(BuildSystemPrompt(in))
		require.Less(t, native, 900, "%s native prompt", mode)

		in.NativeTools, in.ToolsText = false, builtinModeTools(mode).PromptText(tools.DetailFull, nil)
		text := EstimateTokens(BuildSystemPrompt(in))
		require.Less(t, text, 2500, "%s text prompt", mode)
		t.Logf("%s: native ≈%d tokens, text ≈%d tokens", mode, native, text)
	}
}

func TestEstimateTokens(t *testing.T) {
	t.Parallel()
	require.Equal(t, 0, EstimateTokens(""))
	require.Equal(t, 1, EstimateTokens("abc"))
	require.Equal(t, 2, EstimateTokens("abcdefgh"))
	require.Equal(t, 1, EstimateTokens("ääää"), "characters, not bytes")
}

func TestParseMode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Mode{"agent": ModeAgent, "explore": ModeExplore, " Plan ": ModePlan, "REVIEW": ModeReview} {
		got, err := ParseMode(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got)
	}
	for _, in := range []string{"", "write", "agents"} {
		_, err := ParseMode(in)
		require.Error(t, err, in)
	}
	require.False(t, ModeAgent.ReadOnly())
	for _, m := range []Mode{ModeExplore, ModePlan, ModeReview, Mode("bogus")} {
		require.True(t, m.ReadOnly(), m)
	}
}

// availableCode says a Go server exists without ever starting one: enough to offer the code
// intelligence tools, for measuring the prompt that describes them.
type availableCode struct{ tools.CodeIntel }

func (availableCode) Available() []string { return []string{"go"} }

// With every code intelligence tool and the task list offered the full prompt still leaves a 4k window most of
// itself; smaller windows get the compact or core level (budget.go).
func TestSystemPromptWithCodeIntelligenceStaysSmall(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	env := &tools.Env{Root: root, Approver: tools.PolicyApprover{}, Checkpoints: tools.NoCheckpoints{}, Code: availableCode{}, Tasks: keptTasks{}}
	all, err := tools.NewBuiltinRegistry(env, terminal.NewSession(root))
	require.NoError(t, err)
	for _, mode := range promptTestModes {
		reg, err := ModeTools(mode, all)
		require.NoError(t, err)
		_, ok := reg.Get("find_references")
		require.True(t, ok, "the code tools are offered")
		in := PromptInput{Mode: mode, Workspace: root, WorkspaceName: "project", OS: "linux", Date: "2025-01-15", ToolsText: reg.PromptText(tools.DetailFull, nil)}
		in.Example, in.Hints, in.Practices = toolGuidance(reg)
		text := EstimateTokens(BuildSystemPrompt(in))
		native := EstimateTokens(BuildSystemPrompt(PromptInput{Mode: mode, WorkspaceName: "project", NativeTools: true, Hints: in.Hints, Practices: in.Practices})) + wireTokens(reg.OllamaTools(tools.DetailFull, nil))
		t.Logf("%s with code intelligence: text ≈%d tokens, native (prompt and tools[]) ≈%d", mode, text, native)
		require.Less(t, text, 3000, "%s text prompt", mode)
	}
}
