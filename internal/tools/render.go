package tools

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
)

// Detail is how much of the tools' descriptions a rendering carries. The whole rendering is
// paid on every request, so a model with a small context window gets the compact one (the
// agent chooses by budget, SPEC §10).
type Detail int

const (
	// DetailFull is each tool's whole description and every parameter's.
	DetailFull Detail = iota
	// DetailCompact is the first sentence of each description, and descriptions of required
	// parameters only: an optional parameter is still offered, by name and type, and enum
	// values stay, since they are the only way a model can know them.
	DetailCompact
	// DetailBare is the name and the parameters' names and types only (enums kept), for tools a
	// small window can name but not describe.
	DetailBare
)

// OllamaTools renders the tools that keep passes for Ollama's native tools[] field, with
// properties in declaration order (models read them in that order).
func (r *Registry) OllamaTools(detail Detail, keep func(Tool) bool) api.Tools {
	var out api.Tools
	for _, t := range r.List() {
		if keep != nil && !keep(t) {
			continue
		}
		out = append(out, OllamaTool(t, detail))
	}
	return out
}

// OllamaTool renders one tool for Ollama's tools[]: a tool whose parameters are not loaded
// yet (LazyTool) has an open object, which any arguments fit.
func OllamaTool(t Tool, detail Detail) api.Tool {
	s := t.Params()
	return api.Tool{
		Type: "function",
		Function: api.ToolFunction{
			Name:        t.Name(),
			Description: describe(t, detail),
			Parameters: api.ToolFunctionParameters{
				Type:       "object",
				Required:   s.Required,
				Properties: ollamaProperties(s, detail),
			},
		},
	}
}

func describe(t Tool, detail Detail) string {
	d := strings.TrimSpace(t.Description())
	switch detail {
	case DetailCompact:
		return FirstSentence(d)
	case DetailBare:
		return ""
	}
	return d
}

func ollamaProperties(s *Schema, detail Detail) *api.ToolPropertiesMap {
	required := map[string]bool{}
	for _, n := range s.Required {
		required[n] = true
	}
	props := api.NewToolPropertiesMap()
	for _, name := range s.PropertyOrder {
		p := ollamaProperty(s.Properties[name], detail)
		if detail == DetailBare || detail == DetailCompact && !required[name] {
			p.Description = ""
		}
		props.Set(name, p)
	}
	return props
}

func ollamaProperty(s *Schema, detail Detail) api.ToolProperty {
	p := api.ToolProperty{Type: api.PropertyType(nonNullTypes(s)), Description: s.Description}
	for _, e := range s.Enum {
		p.Enum = append(p.Enum, e)
	}
	if s.Items != nil {
		item := ollamaProperty(s.Items, detail)
		if len(s.Items.PropertyOrder) > 0 {
			item.Properties = ollamaProperties(s.Items, detail)
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
// can still follow: a signature and the description per tool; at DetailCompact one line each,
// the signature and the description's first sentence; at DetailBare the signature alone.
func (r *Registry) PromptText(detail Detail, keep func(Tool) bool) string {
	var b strings.Builder
	for _, t := range r.List() {
		if keep != nil && !keep(t) {
			continue
		}
		switch detail {
		case DetailCompact:
			fmt.Fprintf(&b, "- %s%s: %s\n", t.Name(), compactSignature(t.Params()), describe(t, detail))
			continue
		case DetailBare:
			fmt.Fprintf(&b, "- %s%s\n", t.Name(), compactSignature(t.Params()))
			continue
		}
		fmt.Fprintf(&b, "## %s%s\n%s\n\n", t.Name(), compactSignature(t.Params()), describe(t, detail))
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// Signature renders a tool's name and parameters on one line, as the text path lists them:
// edit_file(path: string, edits?: [{old: string, new: string}]).
func Signature(t Tool) string { return t.Name() + compactSignature(t.Params()) }

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

// FirstSentence is the description's first sentence: up to the first full stop that ends the
// first paragraph or is followed by a capitalised word, so "e.g. `*.go`" and "e.g. Go" stay
// whole.
func FirstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i]
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '.' {
			continue
		}
		rest := s[i+1:]
		if rest == "" {
			break
		}
		if rest[0] != ' ' && rest[0] != '\n' {
			continue
		}
		if abbreviation(s[:i]) {
			continue
		}
		next, _ := utf8.DecodeRuneInString(strings.TrimLeft(rest, " \n"))
		if unicode.IsUpper(next) {
			return s[:i+1]
		}
	}
	return strings.Join(strings.Fields(s), " ")
}

// abbreviation reports whether text ends with an abbreviation whose full stop ends no sentence.
func abbreviation(text string) bool {
	for _, a := range []string{"e.g", "i.e", "vs"} {
		if strings.HasSuffix(text, a) && (len(text) == len(a) || !unicode.IsLetter(rune(text[len(text)-len(a)-1]))) {
			return true
		}
	}
	return false
}
