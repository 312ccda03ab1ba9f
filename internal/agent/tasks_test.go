package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/events"
	"gantry/internal/llm/fakeollama"
)

// The model plans three steps in one answer, marks one done the way models write it, names a
// task that does not exist, and reads the list: the list keeps the order it was written in,
// the person's checklist follows every change, and the store keeps it for the session.
func TestTheTaskListKeepsItsOrderAndFollowsEveryChange(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, []fakeollama.Turn{
		{Chunks: []fakeollama.Chunk{{ToolCalls: []fakeollama.ToolCall{
			{Name: "task_create", Arguments: map[string]any{"title": "Read the loader"}},
			{Name: "task_create", Arguments: map[string]any{"title": "Add the flag", "notes": "in config.go"}},
			{Name: "task_create", Arguments: map[string]any{"title": "Write the tests"}},
		}}}},
		{Chunks: []fakeollama.Chunk{{ToolCalls: []fakeollama.ToolCall{
			{Name: "task_update", Arguments: map[string]any{"id": "2", "status": "Completed"}},
			{Name: "task_update", Arguments: map[string]any{"id": 9, "status": "done"}},
		}}}},
		{Chunks: []fakeollama.Chunk{call("task_list", map[string]any{})}},
		textTurn("Planned. [TASK_COMPLETE]"),
	}, allowAll)

	res := f.run(context.Background(), "coder", "plan the flag")
	require.Equal(t, StatusDone, res.Status, res.Message)

	stored, err := f.db.Tasks(context.Background(), f.sessionID)
	require.NoError(t, err)
	require.Len(t, stored, 3)
	require.Equal(t, []string{"Read the loader", "Add the flag", "Write the tests"}, []string{stored[0].Title, stored[1].Title, stored[2].Title})
	require.Equal(t, []string{"pending", "done", "pending"}, []string{stored[0].Status, stored[1].Status, stored[2].Status})

	var lists []TaskListPayload
	var groups []string
	for _, ev := range f.log() {
		switch ev.Type {
		case events.TaskList:
			var p TaskListPayload
			require.NoError(t, json.Unmarshal(ev.Payload, &p))
			lists = append(lists, p)
		case events.ProgressGroupFinished:
			var p ProgressGroupPayload
			require.NoError(t, json.Unmarshal(ev.Payload, &p))
			groups = append(groups, p.Title)
		}
	}
	require.Len(t, lists, 4, "three additions and one change; the failed change and the read change nothing")
	require.Len(t, lists[0].Tasks, 1)
	last := lists[3].Tasks
	require.Equal(t, "done", last[1].Status)
	require.Equal(t, "in config.go", last[1].Notes)
	require.Equal(t, []string{"Updated the task list", "Updated the task list", "Updated the task list"}, groups)

	reqs := f.fake.Requests()
	results := func(i int) string {
		var out []string
		for _, m := range reqs[i].Messages {
			if m.Role == "tool" {
				out = append(out, m.Content)
			}
		}
		return strings.Join(out, "\n---\n")
	}
	require.Contains(t, results(2), "Task 2 is now done.")
	require.Contains(t, results(2), "There is no task 9.")
	require.Contains(t, results(3), "Task list (1 of 3 done):\n[ ] 1. Read the loader\n[x] 2. Add the flag\n      in config.go\n[ ] 3. Write the tests")
}
