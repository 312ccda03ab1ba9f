package tools

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// synonyms are other names models use for common arguments; the schema's own name wins, and a
// synonym is only taken when the tool has no parameter of that name itself.
var synonyms = map[string][]string{
	"path":    {"file", "filePath", "file_path", "filepath", "filename", "fileName"},
	"query":   {"pattern", "search", "q", "text", "regex"},
	"command": {"cmd", "shell", "script"},
	"content": {"contents", "text", "data", "code"},
	"pattern": {"glob"},
}

// normalizeArgs renames arguments to the schema's names and coerces weak types the way small
// models get them wrong ("true" for true, "5" for 5, 5 for "5", a JSON string holding an array),
// so a call that means the right thing is not rejected for its spelling.
func normalizeArgs(s *Schema, args map[string]any) map[string]any {
	out := make(map[string]any, len(args))
	for k, v := range args {
		out[k] = v
	}
	renameAliases(s, out)
	for name, prop := range s.Properties {
		if v, ok := out[name]; ok {
			out[name] = coerce(prop, v)
		}
	}
	return out
}

func renameAliases(s *Schema, args map[string]any) {
	for _, want := range s.PropertyOrder {
		if _, ok := args[want]; ok {
			continue
		}
		candidates := append([]string(nil), synonyms[want]...)
		for given := range args {
			if _, known := s.Properties[given]; !known && sameName(given, want) {
				candidates = append(candidates, given)
			}
		}
		for _, c := range candidates {
			if _, known := s.Properties[c]; known {
				continue
			}
			if v, ok := args[c]; ok {
				args[want] = v
				delete(args, c)
				break
			}
		}
	}
}

// sameName matches isRegex, is_regex, IsRegex and is-regex.
func sameName(a, b string) bool {
	norm := func(s string) string {
		return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
	}
	return norm(a) == norm(b)
}

func schemaTypes(s *Schema) []string {
	if s.Type != "" {
		return []string{s.Type}
	}
	return s.Types
}

func wants(s *Schema, t string) bool {
	for _, x := range schemaTypes(s) {
		if x == t {
			return true
		}
	}
	return false
}

func coerce(s *Schema, v any) any {
	if s == nil || v == nil {
		return v
	}
	switch val := v.(type) {
	case string:
		return coerceString(s, val)
	case float64:
		switch {
		case wants(s, "integer") || wants(s, "number"):
			return val
		case wants(s, "string"):
			return strconv.FormatFloat(val, 'f', -1, 64)
		case wants(s, "boolean") && (val == 0 || val == 1):
			return val == 1
		}
	case int:
		return coerce(s, float64(val))
	case bool:
		if wants(s, "string") && !wants(s, "boolean") {
			return strconv.FormatBool(val)
		}
	case []any:
		if wants(s, "array") && s.Items != nil {
			for i := range val {
				val[i] = coerce(s.Items, val[i])
			}
		}
		return val
	case map[string]any:
		if wants(s, "object") {
			return normalizeArgs(s, val)
		}
		if wants(s, "string") {
			// A file's content that is itself JSON arrives decoded from the XML-style call
			// formats ({"a":1} for write_file's content): it was meant as text.
			return jsonText(val)
		}
	}
	if wants(s, "array") && !wants(s, "string") {
		// A single value where a list is wanted: a one-element list.
		return []any{coerce(s.Items, v)}
	}
	return v
}

// jsonText writes v back as the JSON text it was read from.
func jsonText(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	return string(b)
}

func coerceString(s *Schema, v string) any {
	if wants(s, "string") {
		return v
	}
	t := strings.TrimSpace(v)
	switch {
	case wants(s, "boolean"):
		switch strings.ToLower(t) {
		case "true", "yes", "1", "on":
			return true
		case "false", "no", "0", "off", "":
			return false
		}
	case wants(s, "integer"):
		if n, err := strconv.ParseFloat(t, 64); err == nil && n == math.Trunc(n) {
			return n
		}
	case wants(s, "number"):
		if n, err := strconv.ParseFloat(t, 64); err == nil {
			return n
		}
	case wants(s, "array"), wants(s, "object"):
		var parsed any
		if json.Unmarshal([]byte(t), &parsed) == nil {
			return coerce(s, parsed)
		}
		if wants(s, "array") {
			return []any{coerce(s.Items, v)}
		}
	}
	return v
}
