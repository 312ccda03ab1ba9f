package agent

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/require"

	"gantry/internal/events"
	"gantry/internal/llm/fakeollama"
	"gantry/internal/tools"
)

// lazyTool stands in for an MCP server's tool: described by its summary until its first call
// loads its parameters.
type lazyTool struct {
	name   string
	loaded atomic.Bool
	got    atomic.Value
}

func (l *lazyTool) Name() string { return l.name }
func (l *lazyTool) Description() string {
	return "Looks up a record by its id. Returns the record as text."
}
func (l *lazyTool) Kind() tools.Kind   { return tools.KindFetch }
func (l *lazyTool) ParamsLoaded() bool { return l.loaded.Load() }

func (l *lazyTool) Params() *tools.Schema {
	if !l.loaded.Load() {
		return tools.OpenParams()
	}
	return &tools.Schema{Type: "object", Required: []string{"id"}, PropertyOrder: []string{"id"},
		Properties: map[string]*tools.Schema{"id": {Type: "integer", Description: "The record's id"}}}
}

func (l *lazyTool) LoadParams(context.Context) (*tools.Schema, error) {
	l.loaded.Store(true)
	return l.Params(), nil
}

func (l *lazyTool) Execute(_ context.Context, args map[string]any, _ tools.Output) (tools.Result, error) {
	l.got.Store(args)
	return tools.Result{Content: fmt.Sprintf("record %v: a blue car", args["id"])}, nil
}

// withLazy gives the fixture's runs the tool as a run-time extension, saying it starts a server.
func (f *runFixture) withLazy(t tools.Tool) {
	f.runner.deps.Extra = func(_ context.Context, status func(string)) tools.Extension {
		status("Starting MCP server records…")
		return tools.Extension{Tools: []tools.Tool{t}}
	}
}

func wireTool(req api.ChatRequest, name string) (api.Tool, bool) {
	for _, t := range req.Tools {
		if t.Function.Name == name {
			return t, true
		}
	}
	return api.Tool{}, false
}

func TestALazyToolIsOfferedOpenThenWithItsParametersOnceItsFirstCallLoadedThem(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, []fakeollama.Turn{
		{Chunks: []fakeollama.Chunk{call("mcp__records__lookup", map[string]any{"key": "car"})}},
		{Chunks: []fakeollama.Chunk{call("mcp__records__lookup", map[string]any{"id": "7"})}},
		textTurn("It is a blue car. [TASK_COMPLETE]"),
	}, allowAll)
	lookup := &lazyTool{name: "mcp__records__lookup"}
	f.withLazy(lookup)

	res := f.run(context.Background(), "coder", "what is record 7?")
	require.Equal(t, StatusDone, res.Status, res.Message)
	reqs := f.fake.Requests()
	require.Len(t, reqs, 3)

	first, ok := wireTool(reqs[0], "mcp__records__lookup")
	require.True(t, ok, "offered on the native path")
	require.Equal(t, "Looks up a record by its id.", first.Function.Description)
	require.Zero(t, first.Function.Parameters.Properties.Len(), "an open parameter object")
	require.Contains(t, reqs[0].Messages[0].Content, "MCP TOOLS:")

	// The arguments did not fit the parameters the first call loaded: the model is shown them.
	answer := reqs[1].Messages[len(reqs[1].Messages)-1]
	require.Equal(t, "tool", answer.Role)
	require.Contains(t, answer.Content, "Its parameters (loaded now):\n- id: integer — The record's id")
	second, _ := wireTool(reqs[1], "mcp__records__lookup")
	id, ok := second.Function.Parameters.Properties.Get("id")
	require.True(t, ok, "the next request carries the real schema")
	require.Equal(t, api.PropertyType{"integer"}, id.Type)
	require.Equal(t, []string{"id"}, second.Function.Parameters.Required)

	require.Equal(t, map[string]any{"id": float64(7)}, lookup.got.Load(), "validated and coerced like any tool")
	require.Contains(t, reqs[2].Messages[len(reqs[2].Messages)-1].Content, "record 7: a blue car")

	var spinners []string
	for _, ev := range f.log() {
		if ev.Type == events.Spinner {
			spinners = append(spinners, string(ev.Payload))
		}
	}
	require.Contains(t, strings.Join(spinners, "\n"), "Starting MCP server records…")
}

func TestTheTextPathListsLazyToolsAndTheirSignatureOnceLoaded(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, []fakeollama.Turn{
		textTurn(`<tool_call>{"name": "mcp__records__lookup", "arguments": {"id": 7}}</tool_call>`),
		textTurn("A blue car. [TASK_COMPLETE]"),
	}, allowAll)
	lookup := &lazyTool{name: "mcp__records__lookup"}
	f.withLazy(lookup)

	res := f.run(context.Background(), "small", "what is record 7?")
	require.Equal(t, StatusDone, res.Status, res.Message)
	reqs := f.fake.Requests()
	require.Contains(t, reqs[0].Messages[0].Content, "- mcp__records__lookup: Looks up a record by its id.")
	require.Contains(t, reqs[1].Messages[0].Content, "- mcp__records__lookup(id: integer): Looks up a record by its id.")
	require.Contains(t, reqs[1].Messages[len(reqs[1].Messages)-1].Content, "record 7: a blue car")
}

func TestLazyToolsAreListedWithinTheirBudgetNamesFirst(t *testing.T) {
	t.Parallel()
	var all []tools.Tool
	for i := range 60 {
		all = append(all, &lazyTool{name: fmt.Sprintf("mcp__big__tool_%02d", i)})
	}
	// Everything fits a large budget, with summaries.
	_, lines, omitted := lazyListing(all, false, 100000)
	require.Len(t, lines, 60)
	require.Zero(t, omitted)
	require.Contains(t, lines[59], ": Looks up a record")

	// A small one names as many as it can, summaries only while the rest still fit by name.
	budget := 0
	for _, t := range all[:40] {
		budget += EstimateTokens(lazyLine(t, tools.DetailBare)) + 1
	}
	_, lines, omitted = lazyListing(all, false, budget)
	require.Len(t, lines, 40)
	require.Equal(t, 20, omitted)
	require.NotContains(t, strings.Join(lines, "\n"), ":", "no room for summaries")

	wire, _, omitted := lazyListing(all, true, 100000)
	require.Len(t, wire, 60)
	require.Zero(t, omitted)

	// The plan counts what it left out, and says so.
	for i := range 200 {
		all = append(all, &lazyTool{name: fmt.Sprintf("mcp__more__tool_%03d", i)})
	}
	reg, err := tools.NewRegistry().Extend(tools.Extension{Tools: all})
	require.NoError(t, err)
	plan := PlanPrompt(PromptInput{Mode: ModeAgent, NativeTools: false}, reg, 4096)
	require.Positive(t, plan.Input.LazyOmitted)
	require.Contains(t, plan.System(), "more MCP tools are not listed")
	require.LessOrEqual(t, EstimateTokens(strings.Join(plan.Input.LazyLines, "\n")), 410)
}
