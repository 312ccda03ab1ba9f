package lsp

import (
	"context"
	"encoding/json"
	"slices"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// typescript-language-server pushes a file's problems in phases (syntax first, the type checker's
// later, each publish holding only the phases done), with no version and no sign of the last one,
// so a wait for "the next publish" can stop at an empty syntax-only report. It also forwards raw
// tsserver requests, and tsserver answers these two synchronously and whole.
const tsserverRequest = "typescript.tsserverRequest"

var tsserverPhases = []string{"syntacticDiagnosticsSync", "semanticDiagnosticsSync"}

// forwardsTsserver reports whether the server takes raw tsserver requests.
func (c serverCaps) forwardsTsserver() bool {
	var opts struct {
		Commands []string `json:"commands"`
	}
	raw, ok := c.raw["executeCommandProvider"]
	return ok && json.Unmarshal(raw, &opts) == nil && slices.Contains(opts.Commands, tsserverRequest)
}

// tsDiagnostic is tsserver's protocol.Diagnostic: 1-based line and UTF-16 offset.
type tsDiagnostic struct {
	Start    tsLocation `json:"start"`
	End      tsLocation `json:"end"`
	Text     string     `json:"text"`
	Code     int        `json:"code"`
	Category string     `json:"category"` // error, warning, suggestion, message
}

type tsLocation struct {
	Line   uint32 `json:"line"`
	Offset uint32 `json:"offset"`
}

func (l tsLocation) position() protocol.Position {
	return protocol.Position{Line: max(l.Line, 1) - 1, Character: max(l.Offset, 1) - 1}
}

// tsserverDiagnostics asks tsserver for every phase of file's problems; the file must be synced.
func (c *Client) tsserverDiagnostics(ctx context.Context, file string) ([]protocol.Diagnostic, error) {
	var out []protocol.Diagnostic
	for _, phase := range tsserverPhases {
		var answer struct {
			Body []tsDiagnostic `json:"body"`
		}
		params := map[string]any{
			"command":   tsserverRequest,
			"arguments": []any{phase, map[string]any{"file": string(uri.File(file))}},
		}
		if err := c.call(ctx, "workspace/executeCommand", params, &answer); err != nil {
			return nil, err
		}
		for _, d := range answer.Body {
			out = append(out, protocol.Diagnostic{
				Range:    protocol.Range{Start: d.Start.position(), End: d.End.position()},
				Severity: tsSeverity(d.Category),
				Code:     d.Code,
				Source:   "typescript",
				Message:  d.Text,
			})
		}
	}
	return out, nil
}

func tsSeverity(category string) protocol.DiagnosticSeverity {
	switch category {
	case "error":
		return protocol.DiagnosticSeverityError
	case "warning":
		return protocol.DiagnosticSeverityWarning
	case "suggestion":
		return protocol.DiagnosticSeverityHint
	}
	return protocol.DiagnosticSeverityInformation
}
