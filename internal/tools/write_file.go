package tools

import (
	"context"
	_ "embed"
	"strings"
)

//go:embed write_file.md
var writeFileDescription string

type writeFileParams struct {
	Path    string `json:"path" jsonschema:"File to create or overwrite, relative to the workspace root"`
	Content string `json:"content" jsonschema:"The complete new content of the file"`
}

var writeFileAbout = About{
	Label: "Write files", Summary: "Create a file or replace all of its content.", Core: true,
	View: func(args map[string]any) CallView {
		p := PathArg(args)
		return CallView{Running: "Writing " + p, Spinner: "Writing " + fileLabel(p) + "…"}
	},
}

// WriteFile creates or overwrites a whole file, once the approver allows it.
func WriteFile(env *Env) Tool {
	return Define("write_file", KindEdit, writeFileDescription, writeFileAbout,
		func(ctx context.Context, p writeFileParams, _ Output) (Result, error) {
			if strings.IndexByte(p.Content, 0) >= 0 {
				return Fail(ErrInvalidArguments, "content contains a NUL byte; write_file writes text files only."), nil
			}
			t, failed := openTarget(env, p.Path)
			if failed != nil {
				return *failed, nil
			}
			// An empty content for a file with text in it is far more often a call that lost
			// its content than a wish to empty the file.
			if p.Content == "" && t.content != "" {
				return Fail(ErrInvalidArguments, "content is empty, which would erase all %s of %s. Give the complete new content; to change part of the file, use edit_file.",
					plural(countLines(t.content), "line"), t.rel), nil
			}
			content := p.Content
			// Models write "\n"; a CRLF file stays CRLF rather than changing on every line.
			if isCRLF(t.content) && !strings.Contains(content, "\r") {
				content = strings.ReplaceAll(content, "\n", "\r\n")
			}
			return applyFileChange(ctx, env, t, content, "Wrote")
		})
}
