package agent

import (
	"fmt"
	"strings"

	"gantry/internal/project"
	"gantry/internal/safety"
)

// shortProjectChars bounds the project context in the short prompt (≈150 tokens): the
// instructions files alone may hold 3,000 characters, more than a 2k window can give.
const shortProjectChars = 600

// shortPromptSections is the system prompt for a small window (PlanPrompt's core level). It
// keeps what a small model most needs to finish a task: paths relative to the project, read
// before editing, report only what the tools confirmed, the completion marker, on the text path
// the call format with one call at a time, the mode's job, the person's own instructions and
// the session memory. The navigation tips and the long wording of the full prompt go.
func shortPromptSections(in PromptInput) []string {
	var role strings.Builder
	fmt.Fprintf(&role, "You are Gantry, a coding agent in the project folder %q", in.WorkspaceName)
	if in.OS != "" {
		fmt.Fprintf(&role, " on %s", in.OS)
	}
	role.WriteString(".")
	if in.Date != "" {
		fmt.Fprintf(&role, " Today is %s.", in.Date)
	}
	role.WriteString(` A person approves changes and commands.

RULES:
- Paths are relative to the project folder, e.g. "src/main.go".
- Read a file before editing it; copy the text you replace exactly.
- Report only what tool results confirm. If a tool fails, fix the call.
- Do not re-read code attached "(already provided — do not re-read)".
- When the task is done, end your final answer with ` + CompletionMarker + `. Never write it while work remains.`)

	sections := []string{role.String()}
	if !in.NativeTools {
		sections = append(sections, toolCallingSection(promptShortToolCalling, in.Example), toolsSection(in))
	} else if len(in.LeftOut) > 0 {
		sections = append(sections, "TOOLS: to save room, "+strings.Join(in.LeftOut, ", ")+
			" are not offered in this small context window; do the task with the tools you have.")
	}
	return append(sections, lazySection(in), promptShortModeText(in.Mode), subagentSection(in), shortProjectSection(in.Project), rulesSection(in), memorySection(in))
}

// promptShortToolCalling asks for one call at a time: a small model that writes several tends
// to invent the results of the first to write the next.
const promptShortToolCalling = `TOOL CALLS:
To use a tool, write exactly:
{{example}}
Make one call at a time, then stop: its result comes in the next message.`

func promptShortModeText(m Mode) string {
	switch m {
	case ModeExplore:
		return "MODE: EXPLORE (read-only)\nAnswer by reading and searching the code; do not change files. Name the files your answer rests on."
	case ModePlan:
		return "MODE: PLAN (read-only)\nInvestigate, then end with a numbered plan: each step names the file and what to change. Do not change files."
	case ModeReview:
		return "MODE: REVIEW (read-only)\nReview the changes for security and correctness. Start with git status and git diff; only " + safety.ReadOnlyGitPhrase() +
			" run. Report each finding as file:line, severity, problem, fix; say so when you find nothing. Do not change files."
	default:
		return "MODE: AGENT\nMake the requested change with the tools, check it when you can, then say in a sentence or two what you changed."
	}
}

// shortProjectSection is the project context with short headings, cut to shortProjectChars at
// a line end with a note saying so, so that the model knows there is more to read.
func shortProjectSection(p project.Context) string {
	if p.Summary == "" && p.Instructions == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("PROJECT:")
	if p.Name != "" {
		b.WriteString(" " + p.Name)
		if len(p.Languages) > 0 {
			b.WriteString(" (" + strings.Join(p.Languages, ", ") + ")")
		}
	}
	if p.Summary != "" {
		b.WriteString("\n" + p.Summary)
	}
	if p.Instructions != "" {
		b.WriteString("\nPROJECT INSTRUCTIONS (follow them):\n" + p.Instructions)
	}
	s := strings.TrimRight(b.String(), "\n")
	if len([]rune(s)) <= shortProjectChars {
		return s
	}
	cut := string([]rune(s)[:shortProjectChars])
	if i := strings.LastIndex(cut, "\n"); i > shortProjectChars/2 {
		cut = cut[:i]
	}
	return cut + "\n(… cut to fit the context window; the project's files have the rest.)"
}
