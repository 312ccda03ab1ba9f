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

// UndoFile undoes one file and says what happened in words for the person and the model; only a
// failure of the machine is an error.
func (h toolHooks) UndoFile(ctx context.Context, path string) (string, error) {
	c := h.m.currentCheckpoint()
	if c == nil {
		return nothingToUndo, nil
	}
	name := c.displayName(path)
	res, err := c.Undo(ctx, path)
	var conflict *Conflict
	switch {
	case errors.As(err, &conflict):
		return "Not undone: " + conflictForModel(conflict, name) + ".", nil
	case errors.Is(err, ErrNotTracked):
		return fmt.Sprintf("%s was not changed in this run, so there is nothing to undo.", name), nil
	case errors.Is(err, ErrAlreadyKept):
		return fmt.Sprintf("%s was not undone: its change was kept.", name), nil
	case errors.Is(err, ErrAlreadyUndone):
		return fmt.Sprintf("%s was already undone.", name), nil
	case err != nil:
		return "", err
	}
	switch {
	case res.Outcome == Removed:
		return fmt.Sprintf("Deleted %s, which you had created.", name), nil
	case res.Outcome == Unchanged:
		return fmt.Sprintf("%s was already as it was before you changed it.", name), nil
	case res.Change == Deleted:
		return fmt.Sprintf("Restored %s, which you had deleted.", name), nil
	default:
		return fmt.Sprintf("Restored %s as it was before you changed it.", name), nil
	}
}

// UndoTurn undoes every waiting change of the run and sums up what happened.
func (h toolHooks) UndoTurn(ctx context.Context) (string, error) {
	c := h.m.currentCheckpoint()
	if c == nil {
		return nothingToUndo, nil
	}
	results, err := c.UndoAll(ctx)
	if err != nil {
		return "", err
	}
	var restored, removed, lines []string
	for _, r := range results {
		name := c.displayName(r.Path)
		switch r.Outcome {
		case Restored:
			restored = append(restored, name)
		case Removed:
			removed = append(removed, name)
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
		return nothingToUndo, nil
	}
	return strings.Join(lines, "\n"), nil
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
