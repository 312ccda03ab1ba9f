package agent

import (
	"encoding/json"
	"maps"
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
	// PromptLean is the compact level without the optional tools (tools.About.Optional: the
	// task list, delegation), which are not offered at all: they help a model that has room
	// to plan, and should not cost a small window the descriptions of the tools that do work.
	PromptLean PromptLevel = "lean"
	// PromptCore is the short system prompt and the mode's core tools compact, without the
	// optional tools. The mode's other
	// tools are never dropped silently: the text path lists their signatures (its calls are
	// parsed from the text, so they work); the native path names them as left out, because
	// Ollama recognises calls only to the tools the request carries. A call to one still runs.
	PromptCore PromptLevel = "core"
)

// promptLevels are tried richest first.
var promptLevels = []PromptLevel{PromptFull, PromptCompact, PromptLean, PromptCore}

// promptShare is the budget rule (SPEC §3 step 3, §10): what every request pays before the
// conversation — the system prompt and, on the native path, tools[] — may take at most this
// share of num_ctx, so that the conversation (the task, tool results, the answer) keeps at
// least the other half. A run uses the richest level within it, or the core level when none
// is. The memory notes the prompt gains during the run count as conversation: compaction
// measures the real prompt, memory included, before every request.
const promptShare = 0.5

// PromptPlan is what a run sends before its conversation, at the level its window affords.
type PromptPlan struct {
	Level PromptLevel
	// Input is the prompt input with the level's tool text, MoreTools and Short filled in.
	Input PromptInput
	// Wire is the native path's tools[]; nil on the text path.
	Wire api.Tools
	// Tools are the tools the run offers at this level: the mode's, less the optional ones at
	// the lean and core levels. A call to a tool left out of it is refused like an unknown one.
	Tools *tools.Registry
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
		plan = renderLevel(in, registry, level, int(lazyShare*float64(numCtx)))
		if plan.Tokens <= budget {
			break
		}
	}
	return plan
}

// renderLevel renders the prompt and tools of one level; the tools registered at run time
// (MCP servers') are listed apart, within lazyBudget tokens, whatever the level.
func renderLevel(in PromptInput, registry *tools.Registry, level PromptLevel, lazyBudget int) PromptPlan {
	in.ToolsText, in.MoreTools, in.LeftOut, in.Short = "", "", nil, level == PromptCore
	if level == PromptLean || level == PromptCore {
		registry = withoutOptional(registry)
	}
	in.Example, in.Hints, in.Practices = toolGuidance(registry)
	detail := tools.DetailFull
	if level != PromptFull {
		detail = tools.DetailCompact
	}
	core := func(t tools.Tool) bool { return !isLazy(t) }
	var rest func(tools.Tool) bool
	if level == PromptCore {
		// The tools that find, read, change and check code (tools.About.Core) are still
		// described; the mode's registry already holds only the ones it may use.
		core = func(t tools.Tool) bool { return !isLazy(t) && tools.AboutOf(t).Core }
		rest = func(t tools.Tool) bool { return !isLazy(t) && !tools.AboutOf(t).Core }
	}
	lazyWire, lazyLines, omitted := lazyListing(registry.List(), in.NativeTools, lazyBudget)
	in.HasLazy = slices.ContainsFunc(registry.List(), isLazy)
	in.LazyLines, in.LazyOmitted = lazyLines, omitted

	plan := PromptPlan{Level: level, Tools: registry}
	if in.NativeTools {
		plan.Wire = append(registry.OllamaTools(detail, core), lazyWire...)
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

// withoutOptional is registry less the tools a small window goes without (tools.About.Optional).
func withoutOptional(registry *tools.Registry) *tools.Registry {
	lean, err := registry.Select(func(t tools.Tool) (tools.Tool, bool) { return t, !tools.AboutOf(t).Optional })
	if err != nil { // only a name registered twice, which registry already refused
		return registry
	}
	return lean
}

// toolGuidance is the example call for the text path (from the first tool that gives one), and
// the navigation hints and working practices of the registry's tools, in its order.
func toolGuidance(registry *tools.Registry) (example string, hints, practices []string) {
	for _, t := range registry.List() {
		about := tools.AboutOf(t)
		if example == "" && about.Example != nil {
			example = exampleCall(t.Name(), about.Example)
		}
		if about.Hint != "" {
			hints = append(hints, strings.Split(about.Hint, "\n")...)
		}
		if about.Practice != "" {
			practices = append(practices, about.Practice)
		}
	}
	return example, hints, practices
}

// exampleCall writes a call as the prompt shows it: {"name": "x", "arguments": {"k": "v"}}.
func exampleCall(name string, args map[string]any) string {
	keys := slices.Sorted(maps.Keys(args))
	parts := make([]string, len(keys))
	for i, k := range keys {
		key, _ := json.Marshal(k)
		value, _ := json.Marshal(args[k])
		parts[i] = string(key) + ": " + string(value)
	}
	n, _ := json.Marshal(name)
	return `{"name": ` + string(n) + `, "arguments": {` + strings.Join(parts, ", ") + `}}`
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
