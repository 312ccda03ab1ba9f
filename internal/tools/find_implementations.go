package tools

import (
	"context"
	_ "embed"

	"gantry/internal/lsp"
)

//go:embed find_implementations.md
var findImplementationsDescription string

// FindImplementations are the types or methods implementing an interface or interface method.
func FindImplementations(env *Env) Tool {
	return codeTool{env: env, Tool: Define("find_implementations", KindSearch, findImplementationsDescription,
		About{
			Label: "Find implementations", Summary: "Find the types that implement an interface (language server).",
			Category: CategoryAnalyze, View: symbolView("Finding implementations of"),
			Hint: "Who implements an interface: find_implementations.",
		},
		func(ctx context.Context, p codeParams, _ Output) (Result, error) {
			return locationQuery(ctx, env, p, "implementation", 1, (*lsp.Client).Implementations)
		})}
}
