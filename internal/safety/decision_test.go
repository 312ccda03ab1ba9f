package safety

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDecideTerminal(t *testing.T) {
	t.Parallel()
	ask := TerminalDecision{RequiresApproval: true}
	auto := TerminalDecision{AutoApproved: true}
	cases := []struct {
		sev         Severity
		autoApprove bool
		want        TerminalDecision
	}{
		{SeverityCritical, true, ask},
		{SeverityCritical, false, ask},
		{SeverityHigh, true, auto},
		{SeverityHigh, false, ask},
		{SeverityMedium, true, auto},
		{SeverityMedium, false, ask},
		{SeverityNone, true, auto},
		{SeverityNone, false, ask},
		{Severity(""), true, ask},
		{Severity("bogus"), true, ask},
	}
	for _, tc := range cases {
		got := DecideTerminal(CommandAnalysis{Severity: tc.sev, Reason: "r"}, tc.autoApprove)
		require.Equal(t, tc.want, got, "%q auto=%v", tc.sev, tc.autoApprove)
	}
}

func TestDecideTerminalFromAnalysis(t *testing.T) {
	t.Parallel()
	require.True(t, DecideTerminal(AnalyzeCommand("rm -rf /"), true).RequiresApproval)
	require.True(t, DecideTerminal(AnalyzeCommand("git push -f"), true).AutoApproved)
}
