package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
)

//go:embed get_call_hierarchy.md
var getCallHierarchyDescription string

type callHierarchyParams struct {
	codeParams
	Direction string `json:"direction,omitempty" jsonschema:"incoming (who calls it, the default) or outgoing (what it calls)" enum:"incoming,outgoing"`
}

// GetCallHierarchy is who calls a function, or what it calls.
func GetCallHierarchy(env *Env) Tool {
	return codeTool{env: env, Tool: Define("get_call_hierarchy", KindSearch, getCallHierarchyDescription,
		About{
			Label: "Trace calls", Summary: "Show who calls a function, or what it calls (language server).",
			Category: CategoryAnalyze, View: symbolView("Tracing calls of"),
			Hint: "Who calls a function, or what it calls: get_call_hierarchy.",
		},
		func(ctx context.Context, p callHierarchyParams, _ Output) (Result, error) {
			incoming := strings.ToLower(strings.TrimSpace(p.Direction)) != "outgoing"
			c, pos, failed := openAt(ctx, env, p.codeParams)
			if failed != nil {
				return *failed, nil
			}
			if !c.client.Supports("callHierarchyProvider") {
				return c.result("This language server does not trace calls. Use find_references on the function instead.", nil), nil
			}
			fn, calls, ok, err := c.client.Calls(ctx, c.abs, pos, incoming)
			if err != nil {
				return codeFailure(ctx, c.rel, err), nil
			}
			if !ok {
				return c.result(fmt.Sprintf("There is no function at %s:%d:%d to trace.", c.rel, pos.Line, pos.Char), nil), nil
			}
			var b strings.Builder
			relation := "is called by"
			if !incoming {
				relation = "calls"
			}
			fmt.Fprintf(&b, "%s (%s:%d) %s %s:\n", fn.Name, c.relPath(fn.Location.File), fn.Location.Start.Line, relation, plural(len(calls), "function"))
			var places []Place
			fl := fileLines{}
			for _, call := range calls {
				rel := c.relPath(call.Location.File)
				fmt.Fprintf(&b, "- %s (%s) %s:%d\n", call.Name, call.Kind, rel, call.Location.Start.Line)
				places = append(places, Place{Path: rel, Line: call.Location.Start.Line, Text: call.Kind + " " + call.Name})
				for i, site := range call.Sites {
					if i == 3 {
						fmt.Fprintf(&b, "    (%d more calls)\n", len(call.Sites)-i)
						break
					}
					fmt.Fprintf(&b, "    → %s:%d: %s\n", c.relPath(site.File), site.Start.Line, Clip(strings.TrimSpace(fl.line(site.File, site.Start.Line)), 120))
				}
			}
			return c.result(b.String(), places), nil
		})}
}
