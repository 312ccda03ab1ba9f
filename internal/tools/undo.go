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

type undoFileParams struct {
	Path string `json:"path" jsonschema:"File to restore, relative to the workspace root"`
}

// UndoFile restores one file of the current run from its checkpoint.
func UndoFile(env *Env) Tool {
	return Define("undo_file", KindEdit, undoFileDescription,
		func(ctx context.Context, p undoFileParams, _ Output) (Result, error) {
			abs, rel, failed := resolveForReading(env, p.Path)
			if failed != nil {
				return *failed, nil
			}
			// The writing tools record a link's target, the file that actually changed.
			if real, err := filepath.EvalSymlinks(abs); err == nil {
				abs = real
			}
			text, err := env.Checkpoints.UndoFile(ctx, abs)
			if err != nil {
				return undoFailure(ctx, fmt.Errorf("undoing changes to %s: %w", rel, err))
			}
			return Result{Content: text, Display: UndoDisplay{Kind: "text", Text: text}}, nil
		})
}

type undoTurnParams struct{}

// UndoTurn restores every file the current run changed.
func UndoTurn(env *Env) Tool {
	return Define("undo_turn", KindEdit, undoTurnDescription,
		func(ctx context.Context, _ undoTurnParams, _ Output) (Result, error) {
			text, err := env.Checkpoints.UndoTurn(ctx)
			if err != nil {
				return undoFailure(ctx, fmt.Errorf("undoing this run's changes: %w", err))
			}
			return Result{Content: text, Display: UndoDisplay{Kind: "text", Text: text}}, nil
		})
}

func undoFailure(ctx context.Context, err error) (Result, error) {
	if ctx.Err() != nil {
		return Fail(ErrCancelled, "The undo was stopped."), nil
	}
	return Result{}, err
}
