package agent

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/events"
	"gantry/internal/llm/fakeollama"
	"gantry/internal/tools"
)

// A tool nobody knew at build time (an MCP server's) is presented from what it says of itself,
// or from the defaults: its group, its line, the spinner, without a word about it here.
func TestAToolRegisteredAtRunTimeIsPresentedByItself(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, []fakeollama.Turn{
		{Chunks: []fakeollama.Chunk{call("get_weather", map[string]any{"city": "Oslo"})}},
		textTurn("Sunny in Oslo. [TASK_COMPLETE]"),
	}, allowAll)
	type weatherParams struct {
		City string `json:"city"`
	}
	weather := tools.Define("get_weather", tools.KindFetch, "Tells the weather in a city.", tools.About{},
		func(_ context.Context, p weatherParams, _ tools.Output) (tools.Result, error) {
			return tools.Result{Content: "Sunny in " + p.City + "."}, nil
		})
	require.NoError(t, f.runner.deps.Tools.Register(weather))

	res := f.run(context.Background(), "coder", "what is the weather in Oslo?")
	require.Equal(t, StatusDone, res.Status, res.Message)

	var groups, spinners []string
	for _, ev := range f.log() {
		switch ev.Type {
		case events.ProgressGroupStarted, events.ProgressGroupFinished:
			var p ProgressGroupPayload
			require.NoError(t, json.Unmarshal(ev.Payload, &p))
			groups = append(groups, p.Title)
		case events.Spinner:
			var p SpinnerPayload
			require.NoError(t, json.Unmarshal(ev.Payload, &p))
			spinners = append(spinners, p.Label)
		}
	}
	require.Equal(t, []string{"Working on 1 step", "Completed 1 step"}, groups)
	require.Contains(t, spinners, "Working…")
	acts := f.actions()
	require.Equal(t, "Using get weather", acts[0].Title)
	require.Equal(t, "Used get weather", acts[len(acts)-1].Title)
	require.Equal(t, ActionSuccess, acts[len(acts)-1].Status)
	require.Contains(t, f.fake.Requests()[1].Messages[len(f.fake.Requests()[1].Messages)-1].Content, "Sunny in Oslo.")
}
