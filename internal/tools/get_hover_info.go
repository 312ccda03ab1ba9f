package tools

import (
	"context"
	_ "embed"
	"fmt"
)

//go:embed get_hover_info.md
var getHoverInfoDescription string

// maxHoverBytes bounds a hover: documentation can run long.
const maxHoverBytes = 4000

// GetHoverInfo is what the server knows of a symbol: its signature and documentation.
func GetHoverInfo(env *Env) Tool {
	return codeTool{env: env, Tool: Define("get_hover_info", KindSearch, getHoverInfoDescription,
		About{
			Label: "Show types and docs", Summary: "Show a symbol's type, signature and documentation (language server).",
			Category: CategoryAnalyze, View: symbolView("Looking up"),
			Hint: "A symbol's type or signature without opening its file: get_hover_info.",
		},
		func(ctx context.Context, p codeParams, _ Output) (Result, error) {
			c, pos, failed := openAt(ctx, env, p)
			if failed != nil {
				return *failed, nil
			}
			text, err := c.client.Hover(ctx, c.abs, pos)
			if err != nil {
				return codeFailure(ctx, c.rel, err), nil
			}
			if text == "" {
				return c.result(fmt.Sprintf("The language server has nothing to say about %s:%d:%d (no symbol there?).", c.rel, pos.Line, pos.Char), nil), nil
			}
			if len(text) > maxHoverBytes {
				text, _ = capAtLine(text, maxHoverBytes)
				text += "[…]"
			}
			place := Place{Path: c.rel, Line: pos.Line}
			return c.result(fmt.Sprintf("%s:%d:%d\n%s\n", c.rel, pos.Line, pos.Char, text), []Place{place}), nil
		})}
}
