package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
)

//go:embed task_create.md
var taskCreateDescription string

type taskCreateParams struct {
	Title string `json:"title" jsonschema:"What the step does, in a few words: \"Add the --json flag to the run command\""`
	Notes string `json:"notes,omitempty" jsonschema:"Details worth keeping: files involved, what done looks like"`
}

// TaskCreate adds a task to the session's task list.
func TaskCreate(env *Env) Tool {
	return taskTool{env: env, Tool: Define("task_create", KindThink, taskCreateDescription,
		About{
			Label: "Add tasks", Summary: "Add a step to the task list the user sees as a checklist.",
			Category: CategoryTasks, Optional: true,
			View: func(args map[string]any) CallView {
				title := StringArg(args, "title", 60)
				return CallView{Running: "Adding “" + title + "”", Done: "Added “" + title + "”", Spinner: "Planning…"}
			},
			Practice: "Work with three or more steps: first add one task per step with task_create, then mark each in_progress when you start it and done as soon as it is finished (task_update). The user follows your progress on this list.",
		},
		func(ctx context.Context, p taskCreateParams, _ Output) (Result, error) {
			title := strings.TrimSpace(p.Title)
			if title == "" {
				return Fail(ErrInvalidArguments, "title is empty: say in a few words what the step does."), nil
			}
			t, err := env.Tasks.Add(ctx, title, strings.TrimSpace(p.Notes))
			if err != nil {
				return Result{}, err
			}
			return taskListResult(ctx, env, fmt.Sprintf("Added task %d.", t.ID))
		})}
}
