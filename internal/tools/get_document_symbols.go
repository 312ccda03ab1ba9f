package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
)

//go:embed get_document_symbols.md
var getDocumentSymbolsDescription string

// maxOutline bounds an outline; a generated file can declare thousands of things.
const maxOutline = 300

type documentSymbolsParams struct {
	Path string `json:"path" jsonschema:"The file, relative to the workspace root"`
}

// GetDocumentSymbols is a file's outline.
func GetDocumentSymbols(env *Env) Tool {
	return codeTool{env: env, Tool: Define("get_document_symbols", KindSearch, getDocumentSymbolsDescription,
		About{
			Label: "Outline a file", Summary: "List a file's types, functions and their lines (language server).",
			Category: CategoryStructure,
			View: func(args map[string]any) CallView {
				return CallView{Running: "Outlining " + PathArg(args), Spinner: "Inspecting file structure…"}
			},
			Hint: "A large file: get_document_symbols first, then read only the part you need.",
		},
		func(ctx context.Context, p documentSymbolsParams, _ Output) (Result, error) {
			c, failed := openCode(ctx, env, p.Path)
			if failed != nil {
				return *failed, nil
			}
			syms, err := c.client.DocumentSymbols(ctx, c.abs)
			if err != nil {
				return codeFailure(ctx, c.rel, err), nil
			}
			if len(syms) == 0 {
				return c.result(fmt.Sprintf("%s declares nothing the language server lists.", c.rel), nil), nil
			}
			var b strings.Builder
			fmt.Fprintf(&b, "%s (%s):\n", c.rel, plural(len(syms), "symbol"))
			var places []Place
			for i, s := range syms {
				if i == maxOutline {
					fmt.Fprintf(&b, "(%d more not shown)\n", len(syms)-i)
					break
				}
				line := fmt.Sprintf("%s%d: %s %s", strings.Repeat("  ", s.Depth), s.Location.Start.Line, s.Kind, s.Name)
				if d := strings.TrimSpace(s.Detail); d != "" {
					line += " " + Clip(d, 100)
				}
				b.WriteString(line + "\n")
				places = append(places, Place{Path: c.rel, Line: s.Location.Start.Line, Text: s.Kind + " " + s.Name})
			}
			return c.result(b.String(), places), nil
		})}
}
