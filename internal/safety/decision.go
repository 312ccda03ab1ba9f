// Package safety decides which commands and file writes the agent may run without asking a
// person: it rates shell commands by how much damage they can do and matches file paths
// against ordered sensitivity rules.
package safety

// Severity is the danger tier of a command.
type Severity string

const (
	SeverityNone     Severity = "none"
	SeverityMedium   Severity = "medium"
	SeverityHigh     Severity = "high"
	SeverityCritical Severity = "critical"
)

// Rank orders severities so the worst part of a command can win. An unknown value ranks as
// critical: a corrupted or hand-edited severity must fail closed, never open.
func (s Severity) Rank() int {
	switch s {
	case SeverityNone:
		return 0
	case SeverityMedium:
		return 1
	case SeverityHigh:
		return 2
	default:
		return 3
	}
}

// TerminalDecision is what happens to a command before it runs.
type TerminalDecision struct {
	RequiresApproval bool
	AutoApproved     bool // recorded with the result so the history shows nobody was asked
}

// DecideTerminal follows SPEC §8 and the reference terminalApproval flow it is drawn from:
// critical always asks, whatever the setting; otherwise auto-approve (when on) runs the
// command; otherwise a person is asked. That holds for the none tier too: in the reference,
// none is "auto-approved if toggle enabled", not run silently with the toggle off. Whether a
// harmless command needs the toggle is the permission mode's business (full mode turns it on),
// so this function never skips the approval card on its own.
func DecideTerminal(a CommandAnalysis, autoApprove bool) TerminalDecision {
	switch {
	case a.Severity.Rank() >= SeverityCritical.Rank():
		return TerminalDecision{RequiresApproval: true}
	case autoApprove:
		return TerminalDecision{AutoApproved: true}
	default:
		return TerminalDecision{RequiresApproval: true}
	}
}
