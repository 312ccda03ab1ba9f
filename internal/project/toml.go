package project

import (
	"regexp"
	"slices"
	"strings"
)

// tomlDoc is just enough TOML for the manifest fields discovery reports: top-level string
// keys per table, arrays of strings (possibly over several lines), and the key names of a table.
// Anything it cannot read is skipped.
type tomlDoc map[string]map[string]any

func parseTOML(text string) tomlDoc {
	doc := tomlDoc{"": {}}
	table := ""
	var arrayKey string
	var array []string
	for _, raw := range strings.Split(text, "\n") {
		l := strings.TrimSpace(raw)
		if arrayKey != "" {
			array = append(array, tomlStrings(l)...)
			if tomlClosesArray(l) {
				doc[table][arrayKey] = array
				arrayKey, array = "", nil
			}
			continue
		}
		if l == "" || l[0] == '#' {
			continue
		}
		if l[0] == '[' {
			table = strings.Trim(l, "[] ")
			if doc[table] == nil {
				doc[table] = map[string]any{}
			}
			continue
		}
		key, value, ok := strings.Cut(l, "=")
		if !ok {
			continue
		}
		key = strings.Trim(strings.TrimSpace(key), `"'`)
		value = strings.TrimSpace(value)
		switch {
		case strings.HasPrefix(value, "["):
			array = tomlStrings(value)
			if tomlClosesArray(value) {
				doc[table][key] = array
				array = nil
			} else {
				arrayKey = key
			}
		case strings.HasPrefix(value, `"`) || strings.HasPrefix(value, "'"):
			if s := tomlStrings(value); len(s) > 0 {
				doc[table][key] = s[0]
			}
		default:
			doc[table][key] = value
		}
	}
	return doc
}

var tomlString = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"|'([^']*)'`)

// tomlClosesArray reports whether l holds a "]" outside strings ("rich[jupyter]" does not
// end the array it is in).
func tomlClosesArray(l string) bool {
	return strings.Contains(tomlString.ReplaceAllString(l, ""), "]")
}

func tomlStrings(l string) []string {
	var out []string
	for _, m := range tomlString.FindAllStringSubmatch(l, -1) {
		out = append(out, m[1]+m[2])
	}
	return out
}

func (t tomlDoc) str(table, key string) string {
	s, _ := t[table][key].(string)
	return s
}

// keys returns a table's key names in sorted order.
func (t tomlDoc) keys(table string) []string {
	var keys []string
	for k := range t[table] {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
