package tools

import (
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"
)

// OllamaTools renders the tools that keep passes for Ollama's native tools[] field, with
// properties in declaration order (models read them in that order).
func (r *Registry) OllamaTools(keep func(Tool) bool) api.Tools {
	var out api.Tools
	for _, t := range r.List() {
		if keep != nil && !keep(t) {
			continue
		}
		s := t.Params()
		out = append(out, api.Tool{
			Type: "function",
			Function: api.ToolFunction{
				Name:        t.Name(),
				Description: t.Description(),
				Parameters: api.ToolFunctionParameters{
					Type:       "object",
					Required:   s.Required,
					Properties: ollamaProperties(s),
				},
			},
		})
	}
	return out
}

func ollamaProperties(s *Schema) *api.ToolPropertiesMap {
	props := api.NewToolPropertiesMap()
	for _, name := range s.PropertyOrder {
		props.Set(name, ollamaProperty(s.Properties[name]))
	}
	return props
}

func ollamaProperty(s *Schema) api.ToolProperty {
	p := api.ToolProperty{Type: api.PropertyType(nonNullTypes(s)), Description: s.Description}
	for _, e := range s.Enum {
		p.Enum = append(p.Enum, e)
	}
	if s.Items != nil {
		item := ollamaProperty(s.Items)
		if len(s.Items.PropertyOrder) > 0 {
			item.Properties = ollamaProperties(s.Items)
		}
		p.Items = item
	}
	return p
}

// nonNullTypes drops the "null" that Go slices get in inferred schemas: to a model, an optional
// list is simply a list.
func nonNullTypes(s *Schema) []string {
	var out []string
	for _, t := range schemaTypes(s) {
		if t != "null" {
			out = append(out, t)
		}
	}
	return out
}

// PromptText describes the tools for the text tool-calling path, as compactly as a small model
// can still follow: one line of signature and the description per tool.
func (r *Registry) PromptText(keep func(Tool) bool) string {
	var b strings.Builder
	for _, t := range r.List() {
		if keep != nil && !keep(t) {
			continue
		}
		fmt.Fprintf(&b, "## %s%s\n%s\n\n", t.Name(), compactSignature(t.Params()), strings.TrimSpace(t.Description()))
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// compactSignature renders parameters like (path: string, edits: [{old: string, new: string}], dryRun?: boolean).
func compactSignature(s *Schema) string {
	parts := make([]string, 0, len(s.PropertyOrder))
	required := map[string]bool{}
	for _, n := range s.Required {
		required[n] = true
	}
	for _, name := range s.PropertyOrder {
		opt := "?"
		if required[name] {
			opt = ""
		}
		parts = append(parts, fmt.Sprintf("%s%s: %s", name, opt, typeText(s.Properties[name])))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func typeText(s *Schema) string {
	if len(s.Enum) > 0 {
		vals := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			vals[i] = fmt.Sprintf("%q", e)
		}
		return strings.Join(vals, "|")
	}
	types := nonNullTypes(s)
	if len(types) == 1 && types[0] == "array" && s.Items != nil {
		return "[" + typeText(s.Items) + "]"
	}
	if len(types) == 1 && types[0] == "object" && len(s.PropertyOrder) > 0 {
		sig := compactSignature(s)
		return "{" + sig[1:len(sig)-1] + "}"
	}
	return strings.Join(types, "|")
}
