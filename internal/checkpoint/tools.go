package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"gantry/internal/tools"
)

// Checkpointer is what the built-in tools record through (tools.Env.Checkpoints): the checkpoint
// of the run Begin started last.
func (m *Manager) Checkpointer() tools.Checkpointer { return toolHooks{m} }

type toolHooks struct{ m *Manager }

var errNoRun = errors.New("no checkpoint has been started for this run")

func (h toolHooks) BeforeEdit(ctx context.Context, path string) error {
	c := h.m.currentCheckpoint()
	if c == nil {
		return errNoRun
	}
	return c.SnapshotBeforeEdit(ctx, path)
}

func (h toolHooks) AfterEdit(ctx context.Context, path string) error {
	c := h.m.currentCheckpoint()
	if c == nil {
		return errNoRun
	}
	return c.RecordResult(ctx, path)
}

const nothingToUndo = "Nothing to undo: no files were changed in this run."

// UndoFile undoes one file and says what happened, in words for the person and the model and
// as the files it touched; only a failure of the machine is an error.
func (h toolHooks) UndoFile(ctx context.Context, path string) (tools.UndoReport, error) {
	c := h.m.currentCheckpoint()
	if c == nil {
		return tools.UndoReport{Text: nothingToUndo}, nil
	}
	name := c.displayName(path)
	res, err := c.Undo(ctx, path)
	var conflict *Conflict
	say := func(format string, args ...any) (tools.UndoReport, error) {
		return tools.UndoReport{Text: fmt.Sprintf(format, args...)}, nil
	}
	switch {
	case errors.As(err, &conflict):
		return say("Not undone: %s.", conflictForModel(conflict, name))
	case errors.Is(err, ErrNotTracked):
		return say("%s was not changed in this run, so there is nothing to undo.", name)
	case errors.Is(err, ErrAlreadyKept):
		return say("%s was not undone: its change was kept.", name)
	case errors.Is(err, ErrAlreadyUndone):
		return say("%s was already undone.", name)
	case err != nil:
		return tools.UndoReport{}, err
	}
	var r tools.UndoReport
	switch {
	case res.Outcome == Removed:
		r.Text = fmt.Sprintf("Deleted %s, which you had created.", name)
	case res.Outcome == Unchanged:
		r.Text = fmt.Sprintf("%s was already as it was before you changed it.", name)
	case res.Change == Deleted:
		r.Text = fmt.Sprintf("Restored %s, which you had deleted.", name)
	default:
		r.Text = fmt.Sprintf("Restored %s as it was before you changed it.", name)
	}
	r.Undone = []tools.UndoneFile{{Path: name, Gone: res.Outcome == Removed}}
	return r, nil
}

// UndoTurn undoes every waiting change of the run and sums up what happened.
func (h toolHooks) UndoTurn(ctx context.Context) (tools.UndoReport, error) {
	c := h.m.currentCheckpoint()
	if c == nil {
		return tools.UndoReport{Text: nothingToUndo}, nil
	}
	results, err := c.UndoAll(ctx)
	if err != nil {
		return tools.UndoReport{}, err
	}
	var report tools.UndoReport
	var restored, removed, lines []string
	for _, r := range results {
		name := c.displayName(r.Path)
		switch r.Outcome {
		case Restored:
			restored = append(restored, name)
			report.Undone = append(report.Undone, tools.UndoneFile{Path: name})
		case Removed:
			removed = append(removed, name)
			report.Undone = append(report.Undone, tools.UndoneFile{Path: name, Gone: true})
		case Conflicted:
			lines = append(lines, "Not undone: "+conflictForModel(r.Conflict, name)+".")
		}
	}
	if len(removed) > 0 {
		lines = append([]string{fmt.Sprintf("Deleted %s you had created: %s.", count(len(removed)), listNames(removed))}, lines...)
	}
	if len(restored) > 0 {
		lines = append([]string{fmt.Sprintf("Restored %s: %s.", count(len(restored)), listNames(restored))}, lines...)
	}
	if len(lines) == 0 {
		return tools.UndoReport{Text: nothingToUndo}, nil
	}
	report.Text = strings.Join(lines, "\n")
	return report, nil
}

func count(n int) string {
	if n == 1 {
		return "1 file"
	}
	return fmt.Sprintf("%d files", n)
}

// listNames names up to ten files: a long list helps neither the person nor a small context.
func listNames(names []string) string {
	const shown = 10
	if len(names) <= shown {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:shown], ", "), len(names)-shown)
}

// displayName is path relative to the workspace, with slashes, as the tools name files.
func (c *Checkpoint) displayName(path string) string {
	for _, root := range c.roots {
		if rel, ok := within(root, path); ok {
			return filepath.ToSlash(rel)
		}
	}
	return path
}

// conflictForModel words a conflict for the model, which is "you" in its own conversation (the
// Conflict's own Describe speaks to the person).
func conflictForModel(c *Conflict, name string) string {
	switch {
	case c.Unrecorded:
		return fmt.Sprintf("%s has changed, and your change to it was never recorded, so the current content may be the user's", name)
	case !c.DiskExists:
		return fmt.Sprintf("the user deleted %s after you wrote it", name)
	case !c.AgentExists:
		return fmt.Sprintf("the user created %s again after you deleted it", name)
	default:
		return fmt.Sprintf("the user changed %s after you wrote it; read it to see their version", name)
	}
}
