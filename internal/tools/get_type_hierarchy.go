package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
)

//go:embed get_type_hierarchy.md
var getTypeHierarchyDescription string

type typeHierarchyParams struct {
	codeParams
	Direction string `json:"direction,omitempty" jsonschema:"supertypes (what it extends or implements, the default) or subtypes" enum:"supertypes,subtypes"`
}

// GetTypeHierarchy is a type's supertypes or subtypes.
func GetTypeHierarchy(env *Env) Tool {
	return codeTool{env: env, Tool: Define("get_type_hierarchy", KindSearch, getTypeHierarchyDescription,
		About{
			Label: "Show type hierarchy", Summary: "Show what a type extends or implements, or its subtypes (language server).",
			Category: CategoryAnalyze, View: symbolView("Looking at the types around"),
			Hint: "Inheritance (what a class extends, its subclasses): get_type_hierarchy.",
		},
		func(ctx context.Context, p typeHierarchyParams, _ Output) (Result, error) {
			super := strings.ToLower(strings.TrimSpace(p.Direction)) != "subtypes"
			c, pos, failed := openAt(ctx, env, p.codeParams)
			if failed != nil {
				return *failed, nil
			}
			if !c.client.Supports("typeHierarchyProvider") {
				return c.result("This language server does not offer type hierarchies. For an interface, use find_implementations; for a class, find_references or get_hover_info.", nil), nil
			}
			typ, related, ok, err := c.client.Types(ctx, c.abs, pos, super)
			if err != nil {
				return codeFailure(ctx, c.rel, err), nil
			}
			if !ok {
				return c.result(fmt.Sprintf("There is no type at %s:%d:%d.", c.rel, pos.Line, pos.Char), nil), nil
			}
			which := "supertypes"
			if !super {
				which = "subtypes"
			}
			var b strings.Builder
			fmt.Fprintf(&b, "%s (%s) %s:%d has %d %s:\n", typ.Name, typ.Kind, c.relPath(typ.Location.File), typ.Location.Start.Line, len(related), which)
			var places []Place
			for _, t := range related {
				rel := c.relPath(t.Location.File)
				fmt.Fprintf(&b, "- %s (%s) %s:%d\n", t.Name, t.Kind, rel, t.Location.Start.Line)
				places = append(places, Place{Path: rel, Line: t.Location.Start.Line, Text: t.Kind + " " + t.Name})
			}
			return c.result(b.String(), places), nil
		})}
}
