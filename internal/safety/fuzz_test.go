package safety

import (
	"strings"
	"testing"
)

// FuzzAnalyzeCommand checks that any input yields a valid verdict: no panic, one of the four
// tiers, and a reason exactly when there is something to explain.
func FuzzAnalyzeCommand(f *testing.F) {
	f.Fuzz(func(t *testing.T, cmd string) {
		got := AnalyzeCommand(cmd)
		switch got.Severity {
		case SeverityNone:
			if got.Reason != "" {
				t.Fatalf("%q: none with reason %q", cmd, got.Reason)
			}
		case SeverityMedium, SeverityHigh, SeverityCritical:
			if got.Reason == "" {
				t.Fatalf("%q: %s without a reason", cmd, got.Severity)
			}
		default:
			t.Fatalf("%q: unknown severity %q", cmd, got.Severity)
		}
		if got.Severity == SeverityCritical && !DecideTerminal(got, true).RequiresApproval {
			t.Fatalf("%q: critical auto-approved", cmd)
		}
	})
}

func BenchmarkAnalyzeCommandPipeline200(b *testing.B) {
	stages := []string{
		"cat internal/app/main.go", "grep -n 'func '", "sed 's/func //'", "sort", "uniq -c",
		`awk '{print $2}'`, "head -n 50", "tr a-z A-Z", "cut -d: -f1", "wc -l",
		"go test ./... 2>&1", `grep -v "^ok"`, "tee test.log", "git diff --stat", "xargs echo",
		"find . -name '*.go'", "rg TODO", `jq '.items[]'`, "npm run lint", "tail -n 5",
	}
	var sb strings.Builder
	for i := range 200 {
		if i > 0 {
			sb.WriteString([]string{" | ", " | ", " | ", " && ", " ; "}[i%5])
		}
		sb.WriteString(stages[i%len(stages)])
	}
	cmd := sb.String()
	if got := AnalyzeCommand(cmd); got.Severity != SeverityNone {
		b.Fatalf("benchmark command is %s: %s", got.Severity, got.Reason)
	}
	b.ReportAllocs()
	for b.Loop() {
		AnalyzeCommand(cmd)
	}
}
