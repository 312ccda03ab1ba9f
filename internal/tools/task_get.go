package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
)

//go:embed task_get.md
var taskGetDescription string

type taskGetParams struct {
	ID int `json:"id" jsonschema:"The task's number on the list"`
}

// TaskGet shows one task of the session's task list.
func TaskGet(env *Env) Tool {
	return taskTool{env: env, Tool: Define("task_get", KindThink, taskGetDescription,
		About{
			Label: "Read a task", Summary: "Show one step of the task list with its notes.",
			Category: CategoryTasks, Optional: true,
			View: func(args map[string]any) CallView {
				return CallView{Running: fmt.Sprintf("Reading task %v", args["id"]), Spinner: "Reading the task list…"}
			},
		},
		func(ctx context.Context, p taskGetParams, _ Output) (Result, error) {
			all, err := env.Tasks.All(ctx)
			if err != nil {
				return Result{}, err
			}
			for _, t := range all {
				if t.ID != p.ID {
					continue
				}
				var b strings.Builder
				fmt.Fprintf(&b, "Task %d: %s\nStatus: %s", t.ID, t.Title, statusWords(t.Status))
				if t.Notes != "" {
					fmt.Fprintf(&b, "\nNotes:\n%s", t.Notes)
				}
				return Result{Content: b.String()}, nil
			}
			return Fail(ErrNotFound, "There is no task %d.\n\n%s", p.ID, formatTasks(all, false)), nil
		})}
}
