package tools

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTaskStatusesAreReadAsModelsWriteThem(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"done": TaskDone, "Completed": TaskDone, "finished": TaskDone,
		"in_progress": TaskInProgress, "In Progress": TaskInProgress, "in-progress": TaskInProgress, "started": TaskInProgress,
		"pending": TaskPending, "TODO": TaskPending, "not started": TaskPending,
	} {
		got, ok := taskStatus(in)
		require.True(t, ok, in)
		require.Equal(t, want, got, in)
	}
	_, ok := taskStatus("blocked")
	require.False(t, ok)
}

func TestATaskUpdateShowsWhatItDoes(t *testing.T) {
	t.Parallel()
	require.Equal(t, "Completing task 2", taskUpdateView(map[string]any{"id": 2, "status": "completed"}).Running)
	require.Equal(t, "Started task 3", taskUpdateView(map[string]any{"id": "3", "status": "in_progress"}).Done)
	require.Equal(t, "Updating task 4", taskUpdateView(map[string]any{"id": 4, "title": "x"}).Running)
	require.Equal(t, "The task list is empty.", formatTasks(nil, true))
}
