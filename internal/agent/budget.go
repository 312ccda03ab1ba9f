package agent

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"

	"gantry/internal/tools"
)

// PromptLevel is how much of the prompt and the tool descriptions a run's window affords.
type PromptLevel string

const (
	// PromptFull is the whole system prompt and every tool with its whole description.
	PromptFull PromptLevel = "full"
	// PromptCompact is the whole system prompt and every tool compact: the first sentence of
	// its description, descriptions of required parameters only, enum values kept.
	PromptCompact PromptLevel = "compact"
	// PromptCore is the short system prompt and the mode's core tools compact. The mode's other
	// tools are never dropped silently: the text path lists their signatures (its calls are
	// parsed from the text, so they work); the native path names them as left out, because
	// Ollama recognises calls only to the tools the request carries. A call to one still runs.
	PromptCore PromptLevel = "core"
)

// promptLevels are tried richest first.
var promptLevels = []PromptLevel{PromptFull, PromptCompact, PromptCore}

// promptShare is the budget rule (SPEC §3 step 3, §10): what every request pays before the
// conversation — the system prompt and, on the native path, tools[] — may take at most this
// share of num_ctx, so that the conversation (the task, tool results, the answer) keeps at
// least the other half. A run uses the richest level within it, or the core level when none
// is. The memory notes the prompt gains during the run count as conversation: compaction
// measures the real prompt, memory included, before every request.
const promptShare = 0.5

// coreTools are each mode's tools that a small window still describes: enough to find, read,
// change and check code (agent), or to find and read it (the read-only modes; review keeps its
// git command).
var coreTools = map[Mode][]string{
	ModeAgent:   {"read_file", "list_files", "search_workspace", "edit_file", "write_file", "run_terminal_command"},
	ModeExplore: {"read_file", "list_files", "search_workspace"},
	ModePlan:    {"read_file", "list_files", "search_workspace"},
	ModeReview:  {"read_file", "list_files", "search_workspace", "run_terminal_command"},
}

// PromptPlan is what a run sends before its conversation, at the level its window affords.
type PromptPlan struct {
	Level PromptLevel
	// Input is the prompt input with the level's tool text, MoreTools and Short filled in.
	Input PromptInput
	// Wire is the native path's tools[]; nil on the text path.
	Wire api.Tools
	// Tokens estimates the system prompt (as planned, before any memory) and tools[].
	Tokens int
}

// System is the plan's system prompt.
func (p PromptPlan) System() string { return BuildSystemPrompt(p.Input) }

// PlanPrompt chooses the richest level whose fixed part fits promptShare of numCtx (see
// promptShare) and renders the mode's tools (registry, already narrowed by ModeTools) for it.
// Tools left out of a rendering stay in the registry: a call to one still runs.
func PlanPrompt(in PromptInput, registry *tools.Registry, numCtx int) PromptPlan {
	budget := int(promptShare * float64(numCtx))
	var plan PromptPlan
	for _, level := range promptLevels {
		plan = renderLevel(in, registry, level)
		if plan.Tokens <= budget {
			break
		}
	}
	return plan
}

// renderLevel renders the prompt and tools of one level.
func renderLevel(in PromptInput, registry *tools.Registry, level PromptLevel) PromptPlan {
	in.ToolsText, in.MoreTools, in.LeftOut, in.Short = "", "", nil, level == PromptCore
	detail := tools.DetailFull
	if level != PromptFull {
		detail = tools.DetailCompact
	}
	var core, rest func(tools.Tool) bool
	if level == PromptCore {
		names := coreTools[in.Mode]
		if names == nil {
			names = coreTools[ModeExplore]
		}
		core = func(t tools.Tool) bool { return slices.Contains(names, t.Name()) }
		rest = func(t tools.Tool) bool { return !core(t) }
	}

	plan := PromptPlan{Level: level}
	if in.NativeTools {
		plan.Wire = registry.OllamaTools(detail, core)
		if rest != nil {
			for _, t := range registry.List() {
				if rest(t) {
					in.LeftOut = append(in.LeftOut, t.Name())
				}
			}
		}
	} else {
		in.ToolsText = registry.PromptText(detail, core)
		if rest != nil {
			in.MoreTools = strings.TrimSpace(registry.PromptText(tools.DetailBare, rest))
		}
	}
	plan.Input = in
	plan.Tokens = EstimateTokens(BuildSystemPrompt(in)) + wireTokens(plan.Wire)
	return plan
}

// wireTokens estimates tools[] as the model reads it: chat templates render each tool as its
// JSON.
func wireTokens(wire api.Tools) int {
	if len(wire) == 0 {
		return 0
	}
	b, _ := json.Marshal(wire)
	return EstimateTokens(string(b))
}
