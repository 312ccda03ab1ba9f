package tools

import (
	"context"
	_ "embed"
)

//go:embed task_list.md
var taskListDescription string

type taskListParams struct{}

// TaskList shows the session's task list.
func TaskList(env *Env) Tool {
	return taskTool{env: env, Tool: Define("task_list", KindThink, taskListDescription,
		About{
			Label: "Show the task list", Summary: "Show every step of the task list and how far it got.",
			Category: CategoryTasks, Optional: true,
			View: func(map[string]any) CallView {
				return CallView{Running: "Reading the task list", Spinner: "Reading the task list…"}
			},
		},
		func(ctx context.Context, _ taskListParams, _ Output) (Result, error) {
			all, err := env.Tasks.All(ctx)
			if err != nil {
				return Result{}, err
			}
			if len(all) == 0 {
				return Result{Content: "The task list is empty. For work with three or more steps, add one task per step with task_create."}, nil
			}
			return Result{Content: formatTasks(all, true)}, nil
		})}
}
