package agent

import (
	"regexp"
	"strings"

	"gantry/internal/tools"
)

// Write validation: a small model often says a task is done that it only described. A run whose
// task asks for a change and that changed nothing is told so once, naming the tools that write.

// writeTask finds tasks that ask for a change to the files.
var writeTask = regexp.MustCompile(`(?i)\b(create|modify|change|rename|fix|add|update|delete|remove|implement|refactor|write|edit|replace|move|insert)\b`)

// writeReminder answers a completion claimed without any change; a small model often says a
// task is done that it only described. It names the run's tools that change files.
func (a *agentRun) writeReminder() string {
	var writers []string
	for _, t := range a.tools.registry.List() {
		if t.Kind() == tools.KindEdit && tools.AboutOf(t).Core {
			writers = append(writers, t.Name())
		}
	}
	with := "with the tools that change files"
	if len(writers) > 0 {
		with = "with " + strings.Join(writers, " or ")
	}
	return "You wrote " + CompletionMarker + ", but no file has been changed in this run, and the task asks for a change. " +
		"Make the change now " + with + " (read the file first). " +
		"If no change is needed after all, say why and end with " + CompletionMarker + "."
}

// noteChanges follows the files the run has changed, from the results' metas: a write that
// left the file as it was reports no change, and an undo takes its files back off the list,
// so neither counts as the change a task asked for.
func (a *agentRun) noteChanges(results []toolFeedback) {
	if a.changed == nil {
		a.changed = map[string]bool{}
	}
	for _, r := range results {
		for _, c := range r.meta.Changed {
			a.changed[c.Path] = true
		}
		for _, u := range r.meta.Undone {
			delete(a.changed, u.Path)
		}
	}
}

// needsWrite reports whether a completion should be refused once: agent mode, a task asking for
// a change, and no change made. The model is told once; a second claim is accepted.
func (a *agentRun) needsWrite() bool {
	if a.req.Mode.ReadOnly() || len(a.changed) > 0 || a.checked || !writeTask.MatchString(a.req.Text) {
		return false
	}
	a.checked = true
	return true
}
