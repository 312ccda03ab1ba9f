package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
)

//go:embed find_references.md
var findReferencesDescription string

// maxReferences bounds a list of uses: the first ones show the shape of the code.
const maxReferences = 60

// FindReferences are the places that use a symbol.
func FindReferences(env *Env) Tool {
	return codeTool{env: env, Tool: Define("find_references", KindSearch, findReferencesDescription,
		About{
			Label: "Find references", Summary: "Find every use of a function, type or variable (language server).",
			Category: CategoryAnalyze, View: symbolView("Finding uses of"),
			Hint: "Before changing a function's signature or a shared type: find_references, to see every caller.",
		},
		func(ctx context.Context, p codeParams, _ Output) (Result, error) {
			c, pos, failed := openAt(ctx, env, p)
			if failed != nil {
				return *failed, nil
			}
			locs, err := c.client.References(ctx, c.abs, pos)
			if err != nil {
				return codeFailure(ctx, c.rel, err), nil
			}
			if len(locs) == 0 {
				return c.result(fmt.Sprintf("The language server found no uses of the symbol at %s:%d:%d.", c.rel, pos.Line, pos.Char), nil), nil
			}
			var b strings.Builder
			fmt.Fprintf(&b, "%s of the symbol at %s:%d:%d (its declaration included):\n", plural(len(locs), "use"), c.rel, pos.Line, pos.Char)
			places := c.grouped(&b, locs, maxReferences)
			return c.result(b.String(), places), nil
		})}
}
