package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
)

//go:embed task_update.md
var taskUpdateDescription string

type taskUpdateParams struct {
	ID     int     `json:"id" jsonschema:"The task's number on the list"`
	Status *string `json:"status,omitempty" jsonschema:"pending, in_progress or done"`
	Title  *string `json:"title,omitempty" jsonschema:"A new title"`
	Notes  *string `json:"notes,omitempty" jsonschema:"New notes, replacing the old ones"`
}

// TaskUpdate changes a task of the session's task list.
func TaskUpdate(env *Env) Tool {
	return taskTool{env: env, Tool: Define("task_update", KindThink, taskUpdateDescription,
		About{
			Label: "Update tasks", Summary: "Mark a step of the task list started or done, or change it.",
			Category: CategoryTasks, Optional: true,
			View: taskUpdateView,
		},
		func(ctx context.Context, p taskUpdateParams, _ Output) (Result, error) {
			var c TaskChange
			if p.Status != nil {
				status, ok := taskStatus(*p.Status)
				if !ok {
					return Fail(ErrInvalidArguments, "status %q is not one of pending, in_progress or done.", *p.Status), nil
				}
				c.Status = &status
			}
			if p.Title != nil {
				title := strings.TrimSpace(*p.Title)
				if title == "" {
					return Fail(ErrInvalidArguments, "title is empty: leave it out to keep the old one."), nil
				}
				c.Title = &title
			}
			if p.Notes != nil {
				notes := strings.TrimSpace(*p.Notes)
				c.Notes = &notes
			}
			if c == (TaskChange{}) {
				return Fail(ErrInvalidArguments, "Nothing to change: give status (pending, in_progress or done), title or notes."), nil
			}
			t, err := env.Tasks.Update(ctx, p.ID, c)
			if errors.Is(err, ErrNoTask) {
				all, listErr := env.Tasks.All(ctx)
				if listErr != nil {
					return Result{}, listErr
				}
				return Fail(ErrNotFound, "There is no task %d.\n\n%s", p.ID, formatTasks(all, false)), nil
			}
			if err != nil {
				return Result{}, err
			}
			said := fmt.Sprintf("Task %d is now %s.", t.ID, statusWords(t.Status))
			if c.Status == nil {
				said = fmt.Sprintf("Changed task %d.", t.ID)
			}
			return taskListResult(ctx, env, said)
		})}
}

func taskUpdateView(args map[string]any) CallView {
	n := fmt.Sprint(args["id"])
	status, _ := taskStatus(fmt.Sprint(args["status"]))
	switch status {
	case TaskDone:
		return CallView{Running: "Completing task " + n, Done: "Completed task " + n, Spinner: "Updating the task list…"}
	case TaskInProgress:
		return CallView{Running: "Starting task " + n, Done: "Started task " + n, Spinner: "Updating the task list…"}
	}
	return CallView{Running: "Updating task " + n, Done: "Updated task " + n, Spinner: "Updating the task list…"}
}
