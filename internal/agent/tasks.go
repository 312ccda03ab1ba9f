package agent

import (
	"context"
	"errors"

	"gantry/internal/store"
	"gantry/internal/tools"
)

// sessionTasks is a session's task list in the store, as the task tools use it.
type sessionTasks struct {
	db        *store.DB
	sessionID string
}

func (s sessionTasks) Add(ctx context.Context, title, notes string) (tools.Task, error) {
	t, err := s.db.AddTask(ctx, s.sessionID, title, tools.TaskPending, notes)
	return toolTask(t), err
}

func (s sessionTasks) Update(ctx context.Context, id int, c tools.TaskChange) (tools.Task, error) {
	t, err := s.db.UpdateTask(ctx, s.sessionID, id, store.TaskChange{Title: c.Title, Status: c.Status, Notes: c.Notes})
	if errors.Is(err, store.ErrNotFound) {
		return tools.Task{}, tools.ErrNoTask
	}
	return toolTask(t), err
}

func (s sessionTasks) All(ctx context.Context) ([]tools.Task, error) {
	all, err := s.db.Tasks(ctx, s.sessionID)
	out := make([]tools.Task, len(all))
	for i, t := range all {
		out[i] = toolTask(t)
	}
	return out, err
}

func toolTask(t store.Task) tools.Task {
	return tools.Task{ID: t.ID, Title: t.Title, Status: t.Status, Notes: t.Notes}
}
