package tools

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Registry holds the tools the model may call, in registration order.
type Registry struct {
	mu    sync.RWMutex
	tools map[string]registered
	order []string
	// withheld are tools the person turned off: not offered, and a call gets a clear refusal
	// instead of "no such tool", so the model stops asking for it.
	withheld map[string]string
	// resolve answers calls to names the registry does not have (Extension.Resolve).
	resolve func(name string) (Tool, *Result)
}

type registered struct {
	tool      Tool
	validator *validator
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{tools: map[string]registered{}} }

// Register adds a tool; a second tool with the same name is refused.
func (r *Registry) Register(t Tool) error {
	v, err := newValidator(t.Params())
	if err != nil {
		return fmt.Errorf("tool %s: invalid parameter schema: %w", t.Name(), err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.tools[t.Name()]; dup {
		return fmt.Errorf("tool %s is already registered", t.Name())
	}
	r.tools[t.Name()] = registered{tool: t, validator: v}
	r.order = append(r.order, t.Name())
	return nil
}

// Unregister removes a tool; it reports whether there was one.
func (r *Registry) Unregister(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.tools[name]; !ok {
		return false
	}
	delete(r.tools, name)
	for i, n := range r.order {
		if n == name {
			r.order = append(r.order[:i], r.order[i+1:]...)
			break
		}
	}
	return true
}

// Without returns a registry of the same tools minus those named in off, whose calls are
// refused with a message saying the person turned them off.
func (r *Registry) Without(off []string) *Registry {
	out := NewRegistry()
	out.withheld = map[string]string{}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for name, why := range r.withheld {
		out.withheld[name] = why
	}
	out.resolve = r.resolve
	for _, name := range r.order {
		e := r.tools[name]
		if slices.Contains(off, name) {
			out.withheld[name] = fmt.Sprintf("The tool %s is turned off in Gantry's settings, so it cannot be used. Do the task with the other tools, or tell the user that it needs %s.", name, name)
			continue
		}
		out.tools[name] = e
		out.order = append(out.order, name)
	}
	return out
}

// Withhold returns a registry of the same tools minus name, whose calls are refused with why
// (a subagent may not start subagents of its own).
func (r *Registry) Withhold(name, why string) *Registry {
	out := r.Without(nil)
	out.mu.Lock()
	defer out.mu.Unlock()
	if _, ok := out.tools[name]; ok {
		delete(out.tools, name)
		out.order = slices.DeleteFunc(out.order, func(n string) bool { return n == name })
	}
	out.withheld[name] = why
	return out
}

// Select returns a registry of the tools pick keeps (possibly wrapped), in the same order, still
// refusing the withheld ones with the person's reason: a narrower mode must not turn "turned
// off in settings" into "no such tool".
func (r *Registry) Select(pick func(Tool) (Tool, bool)) (*Registry, error) {
	out := NewRegistry()
	r.mu.RLock()
	withheld, resolve := maps.Clone(r.withheld), r.resolve
	r.mu.RUnlock()
	out.withheld = withheld
	if resolve != nil {
		// A tool resolved later must pass the same pick: a read-only mode must not gain a
		// writing tool by naming it.
		out.resolve = func(name string) (Tool, *Result) {
			t, res := resolve(name)
			if t == nil {
				return nil, res
			}
			kept, ok := pick(t)
			if !ok {
				failed := Fail(ErrDenied, "%s cannot be used in this mode: it may change things, and this run only reads.", name)
				return nil, &failed
			}
			return kept, nil
		}
	}
	for _, t := range r.List() {
		kept, ok := pick(t)
		if !ok {
			continue
		}
		if err := out.Register(kept); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Get finds a tool by name.
func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.tools[name]
	return e.tool, ok
}

// Knows reports whether name is a tool of the registry or one it withholds (turned off): a
// call to it is meant for this registry, and gets either its result or the refusal.
func (r *Registry) Knows(name string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, ok := r.tools[name]
	_, withheld := r.withheld[name]
	return ok || withheld
}

// List returns the tools in registration order.
func (r *Registry) List() []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Tool, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.tools[n].tool)
	}
	return out
}

// Prepare resolves a call to its tool and its normalised, validated arguments. A call the model
// got wrong comes back as a failed Result worded so the model can correct it.
func (r *Registry) Prepare(name string, args map[string]any) (Tool, map[string]any, *Result) {
	r.mu.RLock()
	e, ok := r.tools[name]
	names := append([]string(nil), r.order...)
	why, isWithheld := r.withheld[name]
	if !ok && isWithheld {
		r.mu.RUnlock()
		res := Fail(ErrDenied, "%s", why)
		return nil, nil, &res
	}
	r.mu.RUnlock()
	if !ok {
		t, failed := r.resolveUnknown(name)
		if failed != nil {
			return nil, nil, failed
		}
		if t != nil {
			return r.Prepare(name, args)
		}
		sort.Strings(names)
		res := Fail(ErrUnknownTool, "There is no tool named %q. Available tools: %s.", name, strings.Join(names, ", "))
		return nil, nil, &res
	}
	if args == nil {
		args = map[string]any{}
	}
	norm := normalizeArgs(e.tool.Params(), args)
	v := e.validator
	if _, lazy := e.tool.(LazyTool); lazy {
		// Its schema changes when its first call loads it: check against the one it has now.
		if current, err := newValidator(e.tool.Params()); err == nil {
			v = current
		}
	}
	if err := v.validate(norm); err != nil {
		res := Fail(ErrInvalidArguments, "%s: %v. Parameters: %s", name, err, compactSignature(e.tool.Params()))
		return nil, nil, &res
	}
	return e.tool, norm, nil
}

// Execute prepares and runs one call.
func (r *Registry) Execute(ctx context.Context, name string, args map[string]any, out Output) (Result, error) {
	t, norm, failed := r.Prepare(name, args)
	if failed != nil {
		return *failed, nil
	}
	if out == nil {
		out = Discard
	}
	return t.Execute(ctx, norm, out)
}
