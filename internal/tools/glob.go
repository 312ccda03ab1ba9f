package tools

import (
	"context"
	_ "embed"
	"fmt"
)

//go:embed glob.md
var globDescription string

type globParams struct {
	Pattern string `json:"pattern" jsonschema:"glob such as **/*_test.go or src/**/*.{ts,tsx}"`
	Path    string `json:"path,omitempty" jsonschema:"folder to search in, relative to the workspace root; omit for the whole workspace"`
}

// Glob finds paths by pattern below a folder. It is list_files' recursive walk with a required
// pattern, so the two tools agree on ignore rules, links, caps and order.
var globAbout = About{
	Label: "Find files by name", Summary: "Find files by name pattern, like **/*.go.",
	Hint: "Files by name: glob.",
	View: func(map[string]any) CallView { return CallView{Running: "Finding files", Spinner: "Searching…"} },
}

func Glob(env *Env) Tool {
	return Define("glob", KindSearch, globDescription, globAbout, func(ctx context.Context, p globParams, _ Output) (Result, error) {
		pattern := normalizeGlob(env, p.Pattern)
		if pattern == "" {
			return Fail(ErrInvalidArguments, "glob needs a pattern, such as **/*.go (every Go file) or src/**/*_test.go."), nil
		}
		w, failed, err := walkListing(ctx, env, p.Path, pattern, true)
		if failed != nil {
			return *failed, nil
		}
		if err != nil {
			return Result{}, err
		}
		if len(w.found) == 0 {
			return Fail(ErrFailed, "No files or folders in %s match %q.%s", w.label(), pattern, w.hiddenNote()), nil
		}
		header := fmt.Sprintf("Paths in %s matching %q", w.label(), pattern)
		return Result{Content: w.forModel(header), Display: w.display()}, nil
	})
}
