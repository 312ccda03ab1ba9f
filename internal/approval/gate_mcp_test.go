package approval

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/tools"
)

func mcpCall(tool string, readOnly bool, source string) tools.MCPApproval {
	return tools.MCPApproval{Server: "github", Source: source, Tool: tool, Title: "Create issue",
		Summary: "Creates an issue.", Arguments: map[string]any{"title": "Bug", "body": "It <b>breaks</b>"}, ReadOnly: readOnly}
}

func TestMCPToolsAskUnlessReadOnlyInTheDefaultMode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode            Mode
		readOnly, write string
	}{
		{ModeAsk, "ask", "ask"},
		{ModeDefault, "auto", "ask"},
		{ModeFull, "auto", "auto"},
	} {
		g := NewManager(newRecorder().emit, &MemoryRuleStore{}, trustAll, Policy{Mode: tc.mode}).Gate(GateOptions{Workspace: "/ws", Unattended: true})
		outcome := func(d tools.Decision, err error) string {
			require.NoError(t, err)
			if d.Allowed {
				return "auto"
			}
			require.Contains(t, d.Message, "needs your approval")
			require.Contains(t, d.Message, "--yes")
			return "ask"
		}
		require.Equal(t, tc.readOnly, outcome(g.ApproveMCP(t.Context(), mcpCall("list_issues", true, "settings"))), tc.mode)
		require.Equal(t, tc.write, outcome(g.ApproveMCP(t.Context(), mcpCall("create_issue", false, "settings"))), tc.mode)
	}
}

func TestAnMCPCardShowsServerToolAndArgumentsAndAlwaysAllowHoldsPerTool(t *testing.T) {
	t.Parallel()
	rec := newRecorder()
	rules := &MemoryRuleStore{}
	m := NewManager(rec.emit, rules, trustAll, Policy{Mode: ModeDefault})
	g := m.Gate(GateOptions{Workspace: "/ws"})

	done := approveAsync(t.Context(), func(ctx context.Context) (tools.Decision, error) {
		return g.ApproveMCP(ctx, mcpCall("create_issue", false, "settings"))
	})
	card := rec.nextRequest(t)
	require.Equal(t, KindMCP, card.Kind)
	require.Equal(t, "github", card.Server)
	require.Equal(t, "create_issue", card.Tool)
	require.Equal(t, "Create issue", card.ToolTitle)
	require.Contains(t, card.Arguments, `"title": "Bug"`)
	require.NoError(t, m.Respond(card.ID, Decision{Allowed: true, Always: true, RuleScope: ScopeUser}))
	require.True(t, waitGate(t, done).d.Allowed)
	require.Equal(t, []Rule{{Kind: KindMCP, Server: "github", Tool: "create_issue", Scope: ScopeUser}}, rules.Rules())

	d, err := g.ApproveMCP(t.Context(), mcpCall("create_issue", false, "settings"))
	require.NoError(t, err)
	require.True(t, d.AutoApproved, "always allowed")
	// Another tool of the server, and a project's server of the same name, still ask.
	for _, other := range []tools.MCPApproval{mcpCall("delete_repo", false, "settings"), mcpCall("create_issue", false, "project")} {
		done = approveAsync(t.Context(), func(ctx context.Context) (tools.Decision, error) { return g.ApproveMCP(ctx, other) })
		card = rec.nextRequest(t)
		require.NoError(t, m.Respond(card.ID, Decision{Allowed: false}))
		require.False(t, waitGate(t, done).d.Allowed)
	}

	// A project's server is always allowed in its project only.
	done = approveAsync(t.Context(), func(ctx context.Context) (tools.Decision, error) {
		return g.ApproveMCP(ctx, mcpCall("create_issue", false, "project"))
	})
	card = rec.nextRequest(t)
	require.ErrorContains(t, m.Respond(card.ID, Decision{Allowed: true, Always: true, RuleScope: ScopeUser}), "only be always allowed in this project")
	require.NoError(t, m.Respond(card.ID, Decision{Allowed: true, Always: true, RuleScope: ScopeProject}))
	require.True(t, waitGate(t, done).d.Allowed)
	d, err = g.ApproveMCP(t.Context(), mcpCall("create_issue", false, "project"))
	require.NoError(t, err)
	require.True(t, d.AutoApproved)
	other := m.Gate(GateOptions{Workspace: "/elsewhere", Unattended: true})
	d, err = other.ApproveMCP(t.Context(), mcpCall("create_issue", false, "project"))
	require.NoError(t, err)
	require.False(t, d.Allowed)
}

func TestLongMCPArgumentsAreCutOnTheCardAndWholeInThePendingRequest(t *testing.T) {
	t.Parallel()
	rec := newRecorder()
	m := NewManager(rec.emit, &MemoryRuleStore{}, trustAll, Policy{Mode: ModeAsk})
	g := m.Gate(GateOptions{Workspace: "/ws"})
	call := mcpCall("create_issue", false, "settings")
	call.Arguments = map[string]any{"body": strings.Repeat("x", 10000)}
	done := approveAsync(t.Context(), func(ctx context.Context) (tools.Decision, error) { return g.ApproveMCP(ctx, call) })
	card := rec.nextRequest(t)
	require.True(t, card.ArgumentsCut)
	require.Less(t, len(card.Arguments), 5000)
	req, ok := m.Pending(card.ID)
	require.True(t, ok)
	require.Contains(t, req.Arguments, strings.Repeat("x", 10000))
	require.NoError(t, m.Respond(card.ID, Decision{Allowed: false}))
	waitGate(t, done)
}

func TestMCPRulesAreValidated(t *testing.T) {
	t.Parallel()
	s := &MemoryRuleStore{}
	require.Error(t, s.AddRule(Rule{Kind: KindMCP, Server: "github", Scope: ScopeUser}))
	require.Error(t, s.AddRule(Rule{Kind: KindMCP, Server: "github", Tool: "x", CommandPrefix: "ls", Scope: ScopeUser}))
	require.NoError(t, s.AddRule(Rule{Kind: KindMCP, Server: "github", Tool: "x", Scope: ScopeUser}))
}
