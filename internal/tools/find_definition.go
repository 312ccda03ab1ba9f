package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"gantry/internal/lsp"
)

//go:embed find_definition.md
var findDefinitionDescription string

// symbolView shows a call that names a symbol: "Finding the definition of Total".
func symbolView(verb string) func(map[string]any) CallView {
	return func(args map[string]any) CallView {
		what := StringArg(args, "symbolName", 60)
		if what == "" {
			what = PathArg(args)
			if line, ok := args["line"].(float64); ok && line > 0 {
				what = fmt.Sprintf("%s:%d", what, int(line))
			}
		}
		return CallView{Running: strings.TrimSpace(verb + " " + what), Spinner: "Analyzing code…"}
	}
}

// FindDefinition is where a symbol is declared.
func FindDefinition(env *Env) Tool {
	return codeTool{env: env, Tool: Define("find_definition", KindSearch, findDefinitionDescription,
		About{
			Label: "Go to definition", Summary: "Find where a function, type or variable is declared (language server).",
			Category: CategoryAnalyze, View: symbolView("Finding the definition of"),
			Hint: "Where something is declared: find_definition (follows calls and imports exactly).",
		},
		func(ctx context.Context, p codeParams, _ Output) (Result, error) {
			return locationQuery(ctx, env, p, "declaration", 2, (*lsp.Client).Definition)
		})}
}

// locationQuery asks one of the requests answered with locations and shows each with context.
func locationQuery(ctx context.Context, env *Env, p codeParams, what string, around int,
	ask func(*lsp.Client, context.Context, string, lsp.Pos) ([]lsp.Location, error)) (Result, error) {
	c, pos, failed := openAt(ctx, env, p)
	if failed != nil {
		return *failed, nil
	}
	locs, err := ask(c.client, ctx, c.abs, pos)
	if err != nil {
		return codeFailure(ctx, c.rel, err), nil
	}
	if len(locs) == 0 {
		return c.result(fmt.Sprintf("The language server found no %s for the symbol at %s:%d:%d. Check the name and position, or use search_workspace.", what, c.rel, pos.Line, pos.Char), nil), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s of the symbol at %s:%d:%d:\n", plural(len(locs), what), c.rel, pos.Line, pos.Char)
	fl := fileLines{}
	var places []Place
	for i, l := range locs {
		if i == 10 {
			fmt.Fprintf(&b, "(%d more not shown)\n", len(locs)-i)
			break
		}
		places = append(places, c.withContext(&b, fl, l, around))
	}
	return c.result(b.String(), places), nil
}
