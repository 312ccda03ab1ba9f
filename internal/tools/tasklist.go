package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Tasks is the session's task list, which the model keeps for work of several steps and the
// person sees as a checklist (agent keeps it in the store).
type Tasks interface {
	Add(ctx context.Context, title, notes string) (Task, error)
	// Update changes task id; an unknown id is an error wrapping ErrNoTask.
	Update(ctx context.Context, id int, c TaskChange) (Task, error)
	All(ctx context.Context) ([]Task, error)
}

// ErrNoTask is the error for a task number the list does not have.
var ErrNoTask = errors.New("no such task")

// Task is one item of the task list.
type Task struct {
	ID     int    `json:"id"`
	Title  string `json:"title"`
	Status string `json:"status"` // TaskPending, TaskInProgress or TaskDone
	Notes  string `json:"notes,omitempty"`
}

// TaskChange is what task_update sets; nil fields stay as they are.
type TaskChange struct {
	Title, Status, Notes *string
}

// The statuses a task moves through.
const (
	TaskPending    = "pending"
	TaskInProgress = "in_progress"
	TaskDone       = "done"
)

// taskStatus reads a status as models write it ("completed", "In Progress", "todo").
func taskStatus(s string) (string, bool) {
	key := strings.NewReplacer("-", "_", " ", "_").Replace(strings.ToLower(strings.TrimSpace(s)))
	switch key {
	case TaskPending, "todo", "to_do", "not_started", "open", "waiting":
		return TaskPending, true
	case TaskInProgress, "inprogress", "started", "active", "doing", "working", "in_process", "ongoing":
		return TaskInProgress, true
	case TaskDone, "completed", "complete", "finished", "closed", "resolved":
		return TaskDone, true
	}
	return "", false
}

// taskTool is a task list tool: offered only in a session that keeps a list.
type taskTool struct {
	Tool
	env *Env
}

func (t taskTool) About() About  { return t.Tool.(Described).About() }
func (t taskTool) Offered() bool { return t.env.Tasks != nil }

// taskListResult answers a change with the list as it now is, for the model and the checklist.
func taskListResult(ctx context.Context, env *Env, said string) (Result, error) {
	all, err := env.Tasks.All(ctx)
	if err != nil {
		return Result{}, err
	}
	return Result{Content: said + "\n\n" + formatTasks(all, false), Meta: Meta{Tasks: all}}, nil
}

// formatTasks writes the list as the model reads it: one line per task, the one under way
// marked, notes below their task when asked for.
func formatTasks(all []Task, notes bool) string {
	if len(all) == 0 {
		return "The task list is empty."
	}
	var b strings.Builder
	done := 0
	for _, t := range all {
		if t.Status == TaskDone {
			done++
		}
	}
	fmt.Fprintf(&b, "Task list (%d of %d done):\n", done, len(all))
	for _, t := range all {
		fmt.Fprintf(&b, "%s %d. %s\n", taskMark(t.Status), t.ID, t.Title)
		if notes && t.Notes != "" {
			for line := range strings.SplitSeq(strings.TrimSpace(t.Notes), "\n") {
				fmt.Fprintf(&b, "      %s\n", line)
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func taskMark(status string) string {
	switch status {
	case TaskDone:
		return "[x]"
	case TaskInProgress:
		return "[>]"
	}
	return "[ ]"
}

// statusWords says a status in words.
func statusWords(status string) string {
	return strings.ReplaceAll(status, "_", " ")
}
