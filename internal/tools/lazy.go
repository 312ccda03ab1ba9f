package tools

import (
	"context"
	"fmt"
	"strings"
)

// LazyTool is a tool whose parameters are not known until its first call: an MCP server's tool
// is offered by name and summary, with an open parameter object, so a small model's window is
// not spent on schemas it never uses (reference 003). Before the first call runs, the registry
// loads the real schema and checks the arguments against it; arguments that do not fit answer
// the model with the parameters, and from then on the tool is checked like any other.
type LazyTool interface {
	Tool
	// LoadParams registers the real parameter schema; after it Params returns that schema.
	LoadParams(ctx context.Context) (*Schema, error)
	// ParamsLoaded reports whether Params is the real schema yet.
	ParamsLoaded() bool
}

// OpenParams is the parameter schema of a tool whose parameters are not loaded yet: any object.
func OpenParams() *Schema { return &Schema{Type: "object"} }

// Extension is tools registered at run time (an MCP server's), offered in a run beside the
// built-in ones.
type Extension struct {
	Tools []Tool
	// Resolve answers a call to a name the run does not offer: a tool that appeared since (it is
	// registered on the fly, as reference 003's toolResolver), or a failed result saying why the
	// tool cannot be used (its server is down, the person turned it off); nil, nil when the name
	// is not the extension's. Nil resolves nothing.
	Resolve func(name string) (Tool, *Result)
}

// Extend returns a registry of r's tools and ext's, which resolves calls to unknown names
// through ext.Resolve.
func (r *Registry) Extend(ext Extension) (*Registry, error) {
	out, err := r.Select(func(t Tool) (Tool, bool) { return t, true })
	if err != nil {
		return nil, err
	}
	for _, t := range ext.Tools {
		if err := out.Register(t); err != nil {
			return nil, err
		}
	}
	out.resolve = ext.Resolve
	return out, nil
}

// resolveUnknown asks the extension about a name the registry does not have; a tool it finds
// is registered, so the rest of the run sees it like the others.
func (r *Registry) resolveUnknown(name string) (Tool, *Result) {
	r.mu.RLock()
	resolve := r.resolve
	r.mu.RUnlock()
	if resolve == nil {
		return nil, nil
	}
	t, res := resolve(name)
	if t == nil {
		return nil, res
	}
	if err := r.Register(t); err != nil {
		if known, ok := r.Get(name); ok {
			return known, nil
		}
		failed := Fail(ErrUnknownTool, "%s cannot be used: %v.", name, err)
		return nil, &failed
	}
	return t, nil
}

// loadParams registers a lazy tool's parameters before its first call runs, and checks the
// call's arguments against them: arguments that do not fit come back with the parameters, so
// the model can call again.
func loadParams(ctx context.Context, t LazyTool, args map[string]any) (map[string]any, *Result) {
	s, err := t.LoadParams(ctx)
	if err != nil {
		res := Fail(ErrFailed, "%s cannot be used: %v.", t.Name(), err)
		return nil, &res
	}
	v, err := newValidator(s)
	if err != nil {
		return args, nil // a schema that cannot be checked: the tool's own side checks it
	}
	norm := normalizeArgs(s, args)
	if err := v.validate(norm); err != nil {
		res := Fail(ErrInvalidArguments, "%s: %v. Its parameters (loaded now):\n%s\nCall %s again with arguments that fit.", t.Name(), err, ParamsText(s), t.Name())
		return nil, &res
	}
	return norm, nil
}

// ParamsText describes parameters for the model, one per line: name, type, required or not,
// description, as the first call of a lazily described tool needs them.
func ParamsText(s *Schema) string {
	if len(s.PropertyOrder) == 0 {
		return "(no parameters)"
	}
	required := map[string]bool{}
	for _, n := range s.Required {
		required[n] = true
	}
	var b strings.Builder
	for _, name := range s.PropertyOrder {
		p := s.Properties[name]
		opt := " (optional)"
		if required[name] {
			opt = ""
		}
		fmt.Fprintf(&b, "- %s: %s%s", name, typeText(p), opt)
		if d := strings.TrimSpace(p.Description); d != "" {
			b.WriteString(" — " + Clip(d, 200))
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// IsLazy reports whether t's parameters are still to be loaded.
func IsLazy(t Tool) bool {
	l, ok := t.(LazyTool)
	return ok && !l.ParamsLoaded()
}
