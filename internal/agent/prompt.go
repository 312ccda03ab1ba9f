package agent

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"gantry/internal/project"
)

// Mode is what a run may do: agent changes the workspace; the others only read it.
type Mode string

const (
	ModeAgent   Mode = "agent"
	ModeExplore Mode = "explore"
	ModePlan    Mode = "plan"
	ModeReview  Mode = "review"
)

// ReadOnly reports whether the mode must leave the workspace unchanged. Anything but agent is
// read-only, so a mode value that slipped past ParseMode never gains write access.
func (m Mode) ReadOnly() bool { return m != ModeAgent }

// ParseMode reads a mode name as the UI or the command line sends it (case and surrounding space
// ignored). An empty name is an error rather than a default: silently falling back to agent would
// hand write access to a request that never asked for it.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case ModeAgent, ModeExplore, ModePlan, ModeReview:
		return m, nil
	}
	return "", fmt.Errorf("unknown mode %q: want agent, explore, plan or review", s)
}

// PromptInput is everything the system prompt depends on. Date and OS are inputs rather than
// looked up so that the prompt is reproducible (golden tests, cache-friendly across a session).
type PromptInput struct {
	Mode          Mode
	Workspace     string // absolute path of the workspace root
	WorkspaceName string
	// ToolsText describes the tools for the text path (the registry's PromptText of the mode's
	// tools, at the level PlanPrompt chose). Unused on the native path, where the tools travel
	// in the request.
	ToolsText   string
	NativeTools bool
	// MoreTools lists, on the text path, the tools the window could not afford to describe, by
	// signature, so the model still knows it may call them (PlanPrompt fills it in).
	MoreTools string
	// LeftOut names, on the native path, the mode's tools the window could not afford to send.
	LeftOut []string
	// HasLazy says tools registered at run time (MCP servers') are offered; LazyLines lists
	// them on the text path, and LazyOmitted counts those the budget left out (lazytools.go).
	HasLazy     bool
	LazyLines   []string
	LazyOmitted int
	// Example is a call in the text path's format, made from the first offered tool that gives
	// one (tools.About.Example); Hints are the offered tools' lines for CODE NAVIGATION STRATEGY.
	Example string
	Hints   []string
	// Practices are the offered tools' advice for LARGER TASKS (keeping a task list, delegating).
	Practices []string
	// Short asks for the variant for small windows: the rules that matter most to a small
	// model, the mode in a sentence or two, the project context cut short (PlanPrompt sets it).
	Short   bool
	Project project.Context
	Memory  string // session memory notes; "" when there are none yet
	// Rules are the person's own standing instructions from the app settings. Instructions the
	// project carries (AGENTS.md and the like) come with Project instead.
	Rules string
	// Subagent: the run is a subagent's, whose brief comes from another agent and whose final
	// answer goes back to it.
	Subagent bool
	OS       string
	Date     string // e.g. "2025-01-15"
}

// BuildSystemPrompt assembles the system prompt from its sections (SPEC §10). Every token here
// is paid on every request of a model whose whole window may be 4k, so each section says only
// what changes the model's behaviour; for smaller windows PlanPrompt asks for the Short
// variant (prompt_short.go).
func BuildSystemPrompt(in PromptInput) string {
	if in.Short {
		return joinSections(shortPromptSections(in))
	}
	sections := []string{promptRole(in)}
	if !in.NativeTools {
		sections = append(sections, toolCallingSection(promptToolCalling, in.Example), toolsSection(in))
	}
	sections = append(sections, lazySection(in), promptModeText(in.Mode), subagentSection(in), in.Project.Section(), promptUserContext)
	sections = append(sections, rulesSection(in))
	sections = append(sections, navigationSection(in), practiceSection(in), memorySection(in))
	return joinSections(sections)
}

// toolCallingSection is the text path's call format, with the run's example call.
func toolCallingSection(format, example string) string {
	if example == "" {
		example = `{"name": "tool_name", "arguments": {}}`
	}
	return strings.Replace(format, "{{example}}", "<tool_call>"+example+"</tool_call>", 1)
}

// navigationSection says how to find code with the tools offered, one line per tool that has
// advice (tools.About.Hint).
func navigationSection(in PromptInput) string {
	if len(in.Hints) == 0 {
		return ""
	}
	return "CODE NAVIGATION STRATEGY:\n- " + strings.Join(in.Hints, "\n- ")
}

// practiceSection says how to work through a task too large for one go, from the tools that
// help (tools.About.Practice).
func practiceSection(in PromptInput) string {
	if len(in.Practices) == 0 {
		return ""
	}
	return "LARGER TASKS:\n- " + strings.Join(in.Practices, "\n- ")
}

func toolsSection(in PromptInput) string {
	var b strings.Builder
	if t := strings.TrimSpace(in.ToolsText); t != "" {
		b.WriteString("TOOLS:\n" + t)
	}
	if m := strings.TrimSpace(in.MoreTools); m != "" {
		b.WriteString("\nMore tools, same call format:\n" + m)
	}
	return strings.TrimLeft(b.String(), "\n")
}

func rulesSection(in PromptInput) string {
	if r := strings.TrimSpace(in.Rules); r != "" {
		return "THE USER'S STANDING INSTRUCTIONS (follow them):\n" + r
	}
	return ""
}

func memorySection(in PromptInput) string {
	if m := strings.TrimSpace(in.Memory); m != "" {
		return "SESSION MEMORY (your notes from earlier in this session):\n" + m
	}
	return ""
}

func joinSections(sections []string) string {
	var b strings.Builder
	for _, s := range sections {
		if s == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(strings.TrimRight(s, "\n"))
	}
	b.WriteString("\n")
	return b.String()
}

// EstimateTokens approximates how many tokens s costs: about four characters per token, the
// usual ratio for English and code in the BPE vocabularies of local models (Llama, Qwen,
// Mistral). It is for budgets and tests, not billing; exact counts need the model's tokenizer.
func EstimateTokens(s string) int {
	return (utf8.RuneCountInString(s) + 3) / 4
}

func promptRole(in PromptInput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are Gantry, a coding agent working in the project folder %q", in.WorkspaceName)
	if in.Workspace != "" {
		fmt.Fprintf(&b, " (%s)", in.Workspace)
	}
	if in.OS != "" {
		fmt.Fprintf(&b, " on %s", in.OS)
	}
	b.WriteString(".")
	if in.Date != "" {
		fmt.Fprintf(&b, " Today is %s.", in.Date)
	}
	b.WriteString(" A person follows your work and approves changes and commands.\n\n")
	b.WriteString(`RULES:
- Paths are relative to the workspace root, e.g. "src/main.go".
- Read a file before editing it, and copy the text you replace exactly.
- Never claim a change you did not make: report only what tool results confirm.
- When a tool fails, read its message and fix the call; do not repeat a failing call unchanged.
- Be brief. When the task is fully done, end your final answer with ` + CompletionMarker + `. Never write it while work remains or while you wait for tool results.`)
	return b.String()
}

const promptToolCalling = `TOOL CALLS:
To use a tool, write exactly:
{{example}}
- The JSON must be valid; "arguments" holds the tool's parameters as listed under TOOLS.
- You may write several calls in one answer.
- After your calls, stop and wait: the results arrive in the next message. Never invent results.`

// subagentSection tells a subagent whom it works for: its answer is all the other agent sees.
func subagentSection(in PromptInput) string {
	if !in.Subagent {
		return ""
	}
	return "SUBAGENT:\nAnother agent gave you this task as a brief. It sees none of your work, only your final answer. " +
		"Do what the brief asks and no more, then end with a short report: what you found or changed, with file paths and line numbers, and " + CompletionMarker + "."
}

func promptModeText(m Mode) string {
	switch m {
	case ModeExplore:
		return `MODE: EXPLORE (read-only)
Answer the user's question by reading and searching the code. Do not change files. Name the files (and lines) your answer rests on.`
	case ModePlan:
		return `MODE: PLAN (read-only)
Investigate the code, then end with a numbered plan of concrete steps. Each step names the file (and function) to change and what to change in it. Do not change files: the plan is carried out later.`
	case ModeReview:
		return `MODE: REVIEW (read-only)
Review the changes, or the code the user names, for security and correctness: injection, path traversal, leaked secrets, unchecked errors, races, missed edge cases. Start with the changes (git status, git diff). You may run only read-only git commands: git status, git diff, git log, git show, git blame. Report each finding as file:line, severity (high/medium/low), the problem and a fix; say plainly when you find nothing. Do not change files.`
	default:
		return `MODE: AGENT
Make the requested change with the tools: find the relevant code, read it, edit it, then check it (the file's diagnostics, the project's tests) when you can. Finish with a short summary of what you changed.`
	}
}

// promptUserContext reinforces the labels that RenderAttachments puts on attached code (reference
// 001, "System Prompt Reinforcement"): without it small models re-read what they were given.
const promptUserContext = `USER-PROVIDED CONTEXT:
The user may attach files or line ranges at the start of a message, labelled "(already provided — do not re-read)". That code is ALREADY AVAILABLE to you: use it directly and do not read it again. Read only other files, or lines outside the given range.`
