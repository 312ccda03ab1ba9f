package tools

import (
	"context"
	_ "embed"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"gantry/internal/lsp"
)

//go:embed find_symbol.md
var findSymbolDescription string

const maxSymbols = 40

type findSymbolParams struct {
	Query string `json:"query" jsonschema:"The symbol's name, or part of it"`
}

// FindSymbol finds declarations by name across the workspace, asking the server of each of its
// languages.
func FindSymbol(env *Env) Tool {
	return codeTool{env: env, Tool: Define("find_symbol", KindSearch, findSymbolDescription,
		About{
			Label: "Find symbols", Summary: "Find a function or type by name anywhere in the project (language server).",
			Category: CategorySearch,
			View: func(args map[string]any) CallView {
				return CallView{Running: "Finding " + StringArg(args, "query", 60), Spinner: "Searching…"}
			},
			Hint: "A function or type you know by name but not by file: find_symbol.",
		},
		func(ctx context.Context, p findSymbolParams, _ Output) (Result, error) {
			query := strings.TrimSpace(p.Query)
			if query == "" {
				return Fail(ErrInvalidArguments, "query is empty: give the symbol's name."), nil
			}
			if env.Code == nil || len(env.Code.Available()) == 0 {
				return noServer("", nil), nil
			}
			c := &codeCall{env: env}
			var syms []lsp.Symbol
			var problems []string
			for _, id := range env.Code.Available() {
				client, err := env.Code.ClientFor(ctx, id, env.caller())
				if err == nil {
					var found []lsp.Symbol
					if found, err = client.WorkspaceSymbols(ctx, query); err == nil {
						syms = append(syms, found...)
						continue
					}
				}
				if ctx.Err() != nil {
					return Fail(ErrCancelled, "Stopped before the language server answered."), nil
				}
				problems = append(problems, err.Error())
			}
			rankSymbols(syms, query, env.Root)
			var b strings.Builder
			var places []Place
			if len(syms) == 0 {
				fmt.Fprintf(&b, "No symbol named like %q in the workspace. Try part of the name, or search_workspace.\n", query)
			} else {
				fmt.Fprintf(&b, "%s matching %q:\n", plural(len(syms), "symbol"), query)
			}
			for i, s := range syms {
				if i == maxSymbols {
					fmt.Fprintf(&b, "(%d more not shown)\n", len(syms)-i)
					break
				}
				rel := c.relPath(s.Location.File)
				line := fmt.Sprintf("%s (%s) %s:%d", s.Name, s.Kind, rel, s.Location.Start.Line)
				if s.Container != "" {
					line += " in " + s.Container
				}
				b.WriteString(line + "\n")
				places = append(places, Place{Path: rel, Line: s.Location.Start.Line, Text: s.Kind + " " + s.Name})
			}
			for _, p := range problems {
				b.WriteString("(" + p + ")\n")
			}
			return c.result(b.String(), places), nil
		})}
}

// rankSymbols puts exact names first, then names starting with the query, then the rest, and
// the workspace's own before others (a standard library's).
func rankSymbols(syms []lsp.Symbol, query, root string) {
	q := strings.ToLower(query)
	score := func(s lsp.Symbol) int {
		n := strings.ToLower(s.Name)
		r := 3
		switch {
		case s.Name == query:
			r = 0
		case n == q:
			r = 1
		case strings.HasPrefix(n, q):
			r = 2
		}
		if _, inside := withinDir(root, s.Location.File); !inside && !strings.HasPrefix(s.Location.File, root+string(filepath.Separator)) {
			r += 4
		}
		return r
	}
	slices.SortStableFunc(syms, func(a, b lsp.Symbol) int { return score(a) - score(b) })
}
