// Package agent runs the coding agent: a thin loop that streams the model's answer, runs the
// tools it asks for and feeds the results back, with each concern in its own file (stream
// processing, prompt building, project context, user-provided context).
package agent

// CompletionMarker is what the model writes when the task is done. It ends the loop and never
// reaches the screen.
const CompletionMarker = "[TASK_COMPLETE]"
