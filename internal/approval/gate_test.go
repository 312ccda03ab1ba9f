package approval

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"gantry/internal/safety"
	"gantry/internal/tools"
	"gantry/internal/trust"
)

func command(cmd string) tools.CommandApproval {
	return tools.CommandApproval{Command: cmd, Cwd: "/ws", Analysis: safety.AnalyzeCommand(cmd)}
}

func edit(path string, sensitive bool) tools.EditApproval {
	return tools.EditApproval{Path: path, Existed: true, Before: "old\n", After: "new\n", Sensitive: sensitive}
}

type gateResult struct {
	d   tools.Decision
	err error
}

func approveAsync(ctx context.Context, approve func(context.Context) (tools.Decision, error)) <-chan gateResult {
	done := make(chan gateResult, 1)
	go func() {
		d, err := approve(ctx)
		done <- gateResult{d, err}
	}()
	return done
}

func waitGate(t *testing.T, done <-chan gateResult) gateResult {
	t.Helper()
	select {
	case r := <-done:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("the gate did not decide")
		return gateResult{}
	}
}

func TestModeTable(t *testing.T) {
	t.Parallel()
	const (
		auto = "auto"
		ask  = "ask"
	)
	type want struct{ harmless, high, critical, plainEdit, sensitiveEdit string }
	cases := []struct {
		policy Policy
		want   want
	}{
		{Policy{Mode: ModeAsk}, want{ask, ask, ask, ask, ask}},
		{Policy{Mode: ModeAsk, AutoApproveCommands: true}, want{ask, ask, ask, ask, ask}},
		{Policy{Mode: ModeDefault}, want{ask, ask, ask, auto, ask}},
		{Policy{Mode: ModeDefault, AutoApproveCommands: true}, want{auto, auto, ask, auto, ask}},
		{Policy{}, want{ask, ask, ask, auto, ask}}, // "" is the default mode
		{Policy{Mode: ModeFull}, want{auto, auto, ask, auto, auto}},
		{Policy{Mode: ModeFull, AllowCritical: true}, want{auto, auto, auto, auto, auto}},
		{Policy{Mode: "bogus", AutoApproveCommands: true}, want{ask, ask, ask, ask, ask}}, // fails closed
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%+v", tc.policy), func(t *testing.T) {
			t.Parallel()
			rec := newRecorder()
			// Unattended, so every question comes back at once as a denial.
			g := NewManager(rec.emit, &MemoryRuleStore{}, trustAll, tc.policy).Gate(GateOptions{Workspace: "/ws", Unattended: true})
			ctx := t.Context()
			outcome := func(d tools.Decision, err error) string {
				require.NoError(t, err)
				if d.Allowed {
					require.True(t, d.AutoApproved)
					return auto
				}
				require.Contains(t, d.Message, "needs your approval")
				return ask
			}
			got := want{
				harmless:      outcome(g.ApproveCommand(ctx, command("ls -la"))),
				high:          outcome(g.ApproveCommand(ctx, command("sudo apt update"))),
				critical:      outcome(g.ApproveCommand(ctx, command("rm -rf /"))),
				plainEdit:     outcome(g.ApproveEdit(ctx, edit("src/main.go", false))),
				sensitiveEdit: outcome(g.ApproveEdit(ctx, edit(".env", true))),
			}
			require.Equal(t, tc.want, got)
			rec.requireNoRequest(t)
		})
	}
}

func TestGateAsksAPersonAndPassesTheAnswerOn(t *testing.T) {
	t.Parallel()
	rec := newRecorder()
	m := NewManager(rec.emit, &MemoryRuleStore{}, trustAll, Policy{Mode: ModeAsk})
	g := m.Gate(GateOptions{Workspace: "/ws"})

	done := approveAsync(t.Context(), func(ctx context.Context) (tools.Decision, error) {
		return g.ApproveEdit(ctx, edit("src/main.go", false))
	})
	p := rec.nextRequest(t)
	require.Equal(t, KindEdit, p.Kind)
	mine := "mine\n"
	require.NoError(t, m.Respond(p.ID, Decision{Allowed: true, Content: &mine, Message: "used my version"}))
	r := waitGate(t, done)
	require.NoError(t, r.err)
	require.Equal(t, tools.Decision{Allowed: true, Content: &mine, Message: "used my version"}, r.d)

	ctx, cancel := context.WithCancel(t.Context())
	done = approveAsync(ctx, func(ctx context.Context) (tools.Decision, error) {
		return g.ApproveCommand(ctx, command("go build ./..."))
	})
	rec.nextRequest(t)
	cancel()
	r = waitGate(t, done)
	require.ErrorIs(t, r.err, context.Canceled, "the tools report a cancelled approval from the error")
	require.False(t, r.d.Allowed)
}

func TestCriticalAlwaysAsks(t *testing.T) {
	t.Parallel()
	rec := newRecorder()
	rules := &MemoryRuleStore{}
	require.NoError(t, rules.AddRule(Rule{Kind: KindCommand, CommandPrefix: "rm", Severity: safety.SeverityHigh, Scope: ScopeUser}))
	m := NewManager(rec.emit, rules, trustAll, Policy{Mode: ModeFull, AutoApproveCommands: true})
	g := m.Gate(GateOptions{Workspace: "/ws"})

	d, err := g.ApproveCommand(t.Context(), command("rm build.log"))
	require.NoError(t, err)
	require.True(t, d.AutoApproved, "the rule covers a plain rm")

	done := approveAsync(t.Context(), func(ctx context.Context) (tools.Decision, error) {
		return g.ApproveCommand(ctx, command("rm -rf /"))
	})
	p := rec.nextRequest(t)
	require.Equal(t, safety.SeverityCritical, p.Severity)
	require.NotEmpty(t, p.Reason)
	require.NoError(t, m.Respond(p.ID, Decision{Allowed: false}))
	require.False(t, waitGate(t, done).d.Allowed)

	// Even a rule that claims to cover critical commands does not: such a rule is refused.
	require.Error(t, rules.AddRule(Rule{Kind: KindCommand, CommandPrefix: "rm", Severity: safety.SeverityCritical, Scope: ScopeUser}))
}

func TestAlwaysAllowIsReused(t *testing.T) {
	t.Parallel()
	for _, scope := range []RuleScope{ScopeProject, ScopeUser} {
		t.Run(string(scope), func(t *testing.T) {
			t.Parallel()
			rec := newRecorder()
			m := NewManager(rec.emit, &MemoryRuleStore{}, trustAll, Policy{Mode: ModeAsk})
			here := m.Gate(GateOptions{Workspace: "/work/a"})
			elsewhere := m.Gate(GateOptions{Workspace: "/work/b", Unattended: true})

			for _, tc := range []struct {
				first, same, other func(context.Context, *Gate) (tools.Decision, error)
			}{
				{
					first: func(ctx context.Context, g *Gate) (tools.Decision, error) {
						return g.ApproveCommand(ctx, command("npm test"))
					},
					same: func(ctx context.Context, g *Gate) (tools.Decision, error) {
						return g.ApproveCommand(ctx, command("npm test -- --watch"))
					},
					other: func(ctx context.Context, g *Gate) (tools.Decision, error) {
						return g.ApproveCommand(ctx, command("npm publish"))
					},
				},
				{
					first: func(ctx context.Context, g *Gate) (tools.Decision, error) {
						return g.ApproveEdit(ctx, edit("src/app.go", false))
					},
					same: func(ctx context.Context, g *Gate) (tools.Decision, error) {
						return g.ApproveEdit(ctx, edit("src/app.go", false))
					},
					other: func(ctx context.Context, g *Gate) (tools.Decision, error) {
						return g.ApproveEdit(ctx, edit("src/other.go", false))
					},
				},
			} {
				done := approveAsync(t.Context(), func(ctx context.Context) (tools.Decision, error) { return tc.first(ctx, here) })
				require.NoError(t, m.Respond(rec.nextRequest(t).ID, Decision{Allowed: true, Always: true, RuleScope: scope}))
				require.True(t, waitGate(t, done).d.Allowed)

				d, err := tc.same(t.Context(), here)
				require.NoError(t, err)
				require.Equal(t, tools.Decision{Allowed: true, AutoApproved: true}, d)
				rec.requireNoRequest(t)

				d, err = tc.other(t.Context(), elsewhere)
				require.NoError(t, err)
				require.False(t, d.Allowed, "a different command or file is not covered")

				d, err = tc.same(t.Context(), elsewhere)
				require.NoError(t, err)
				require.Equal(t, scope == ScopeUser, d.Allowed, "project rules stay in their workspace; user rules go everywhere")
			}
		})
	}
}

func TestUnattendedDenialSaysHowToAllow(t *testing.T) {
	t.Parallel()
	rec := newRecorder()
	m := NewManager(rec.emit, &MemoryRuleStore{}, trustAll, Policy{Mode: ModeAsk})
	g := m.Gate(GateOptions{Workspace: "/ws", Unattended: true})

	d, err := g.ApproveCommand(t.Context(), command("npm install"))
	require.NoError(t, err)
	require.Equal(t, tools.Decision{Message: "Running `npm install` needs your approval, and nobody can give it in this run; run again with --yes to allow it.", NotAsked: true}, d)

	d, err = g.ApproveEdit(t.Context(), edit("README.md", false))
	require.NoError(t, err)
	require.Equal(t, tools.Decision{Message: "Writing README.md needs your approval, and nobody can give it in this run; run again with --yes to allow it.", NotAsked: true}, d)

	m.SetPolicy(HeadlessPolicy(Policy{Mode: ModeAsk}, true, false))
	d, err = g.ApproveCommand(t.Context(), command("npm install"))
	require.NoError(t, err)
	require.True(t, d.Allowed)
	d, err = g.ApproveCommand(t.Context(), command("rm -rf /"))
	require.NoError(t, err)
	require.False(t, d.Allowed)
	require.Contains(t, d.Message, "run again with --yes-critical")

	m.SetPolicy(HeadlessPolicy(Policy{Mode: ModeAsk}, false, true))
	d, err = g.ApproveCommand(t.Context(), command("rm -rf /"))
	require.NoError(t, err)
	require.Equal(t, tools.Decision{Allowed: true, AutoApproved: true}, d)
	rec.requireNoRequest(t)
}

// trustAll trusts every folder: these tests are about modes and rules, not workspace trust.
var trustAll = trust.Trusting("/")

// A background subagent asks nobody: the policy and the rules decide, and what would need a
// click is denied with words for its model. A foreground subagent's cards name it.
func TestSubagentGates(t *testing.T) {
	t.Parallel()
	rec := newRecorder()
	m := NewManager(rec.emit, &MemoryRuleStore{}, trustAll, Policy{Mode: ModeDefault})
	bg := m.Gate(GateOptions{Workspace: "/ws", Background: true, Subagent: "Fix the typo"})

	d, err := bg.ApproveEdit(t.Context(), edit("main.go", false))
	require.NoError(t, err)
	require.True(t, d.Allowed, "the default mode writes files that are not sensitive, in the background too")
	d, err = bg.ApproveEdit(t.Context(), edit(".env", true))
	require.NoError(t, err)
	require.False(t, d.Allowed)
	require.True(t, d.NotAsked)
	require.Contains(t, d.Message, "Writing .env needs the user's approval, which a background task cannot ask for")
	d, err = bg.ApproveCommand(t.Context(), command("npm install"))
	require.NoError(t, err)
	require.False(t, d.Allowed)
	require.Contains(t, d.Message, "what is left for the main agent")
	rec.requireNoRequest(t)

	fg := m.Gate(GateOptions{Workspace: "/ws", Subagent: "Fix the typo"})
	done := approveAsync(t.Context(), func(ctx context.Context) (tools.Decision, error) {
		return fg.ApproveEdit(ctx, edit(".env", true))
	})
	p := rec.nextRequest(t)
	require.Equal(t, "Fix the typo", p.Subagent)
	require.NoError(t, m.Respond(p.ID, Decision{Allowed: true}))
	require.True(t, waitGate(t, done).d.Allowed)
}
