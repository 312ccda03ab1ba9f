package tools

import (
	"context"
	_ "embed"
	"fmt"
	"path/filepath"
)

var (
	//go:embed undo_file.md
	undoFileDescription string
	//go:embed undo_turn.md
	undoTurnDescription string
)

// UndoDisplay is what the UI shows for an undo: the checkpoint's own account of it.
type UndoDisplay struct {
	Kind string `json:"kind"` // "text"
	Text string `json:"text"`
}

var (
	undoFileAbout = About{
		Label: "Undo a file", Summary: "Undo the agent's changes to one file in this run.",
		View: func(args map[string]any) CallView { return CallView{Running: "Undoing " + PathArg(args)} },
	}
	undoTurnAbout = About{
		Label: "Undo the run", Summary: "Undo every change the agent made in this run.",
		View: func(map[string]any) CallView { return CallView{Running: "Undoing this run's changes"} },
	}
)

type undoFileParams struct {
	Path string `json:"path" jsonschema:"File to restore, relative to the workspace root"`
}

// UndoFile restores one file of the current run from its checkpoint.
func UndoFile(env *Env) Tool {
	return Define("undo_file", KindEdit, undoFileDescription, undoFileAbout,
		func(ctx context.Context, p undoFileParams, _ Output) (Result, error) {
			abs, rel, failed := resolveForReading(env, p.Path)
			if failed != nil {
				return *failed, nil
			}
			// The writing tools record a link's target, the file that actually changed.
			if real, err := filepath.EvalSymlinks(abs); err == nil {
				abs = real
			}
			report, err := env.Checkpoints.UndoFile(ctx, abs)
			if err != nil {
				return undoFailure(ctx, fmt.Errorf("undoing changes to %s: %w", rel, err))
			}
			return undoResult(report), nil
		})
}

type undoTurnParams struct{}

// UndoTurn restores every file the current run changed.
func UndoTurn(env *Env) Tool {
	return Define("undo_turn", KindEdit, undoTurnDescription, undoTurnAbout,
		func(ctx context.Context, _ undoTurnParams, _ Output) (Result, error) {
			report, err := env.Checkpoints.UndoTurn(ctx)
			if err != nil {
				return undoFailure(ctx, fmt.Errorf("undoing this run's changes: %w", err))
			}
			return undoResult(report), nil
		})
}

func undoResult(r UndoReport) Result {
	return Result{Content: r.Text, Display: UndoDisplay{Kind: "text", Text: r.Text}, Meta: Meta{Undone: r.Undone}}
}

func undoFailure(ctx context.Context, err error) (Result, error) {
	if ctx.Err() != nil {
		return Fail(ErrCancelled, "The undo was stopped."), nil
	}
	return Result{}, err
}
