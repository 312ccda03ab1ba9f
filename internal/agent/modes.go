package agent

import (
	"strings"

	"gantry/internal/tools"
)

// ModeTools is the registry a run in mode may call (SPEC §3): agent mode gets every tool; the
// read-only modes only the tools that change nothing, so a write tool named in text is refused
// like an unknown one, and review mode also runs read-only git commands.
func ModeTools(mode Mode, all *tools.Registry) (*tools.Registry, error) {
	access := mode.Access()
	return all.Select(func(t tools.Tool) (tools.Tool, bool) { return tools.ForAccess(t, access) })
}

// Access is what the mode lets the tools do.
func (m Mode) Access() tools.Access {
	return tools.Access{Write: !m.ReadOnly(), ReadOnlyGit: m == ModeReview}
}

// planLabel introduces an approved plan in the first message of the agent run that carries it
// out, as user-provided context: small models otherwise re-plan instead of acting.
const planLabel = "APPROVED PLAN (from plan mode; the user approved it — carry it out step by step, do not plan again):"

// withPlan puts the approved plan, when there is one, before the person's message.
func withPlan(plan, content string) string {
	plan = strings.TrimSpace(plan)
	if plan == "" {
		return content
	}
	if strings.TrimSpace(content) == "" {
		return planLabel + "\n" + plan
	}
	return planLabel + "\n" + plan + "\n\n" + content
}
