package toolcall

import (
	"encoding/json"
	"strings"
)

var (
	nameKeys = []string{"name", "tool", "function"}
	// With the arguments at the top level, "name" is more likely a parameter of the tool
	// ({"tool": "create_branch", "name": "fix-1"}) whenever a dedicated key names the tool.
	nameKeysTopLevelArgs = []string{"tool", "function", "name"}
	argKeys              = []string{"arguments", "args", "params", "parameters"}
)

// decode turns a scanned value into calls: an object is one call, an array a list of them.
// Outside a tag (strict) a value counts only if it is unmistakably a call, and an array only
// if every element is one: prose and fences also hold JSON that is just data.
func decode(s jsonScan, strict bool) []Call {
	for _, b := range [...][]byte{s.fixed, s.fallback} {
		var v any
		if b == nil || json.Unmarshal(b, &v) != nil {
			continue
		}
		switch v := v.(type) {
		case map[string]any:
			if c, ok := toCall(v, strict); ok {
				return []Call{c}
			}
		case []any:
			var calls []Call
			for _, e := range v {
				m, _ := e.(map[string]any)
				c, ok := toCall(m, strict)
				if !ok && strict {
					return nil
				}
				if ok {
					calls = append(calls, c)
				}
			}
			return calls
		}
		return nil
	}
	return nil
}

// toCall reads a call object. The name is under "name", "tool" or "function", or the
// object wraps an OpenAI-style {"function": {"name": …, "arguments": …}}. The arguments are
// under "arguments", "args", "params" or "parameters", possibly as a string holding JSON,
// or else they are every other key. strict demands an explicit arguments key or a "type":
// "function" envelope, which is what tells {"name": "read_file", "parameters": {…}} from
// {"name": "my-app", "version": …}.
func toCall(m map[string]any, strict bool) (Call, bool) {
	if m == nil {
		return Call{}, false
	}
	if fn, ok := m["function"].(map[string]any); ok {
		// A "type": "function" envelope is as explicit as an arguments key.
		if c, ok := toCall(fn, strict && m["type"] != "function"); ok {
			return c, true
		}
	}
	argKey := firstKey(m, argKeys)
	if argKey == "" && strict {
		return Call{}, false
	}
	keys := nameKeys
	if argKey == "" {
		keys = nameKeysTopLevelArgs
	}
	var name, nameKey string
	for _, k := range keys {
		if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" {
			name, nameKey = strings.TrimSpace(s), k
			break
		}
	}
	if name == "" {
		return Call{}, false
	}
	if argKey != "" {
		return Call{Name: name, Arguments: toArgs(m[argKey])}, true
	}
	args := make(map[string]any, len(m)-1)
	for k, v := range m {
		// "type": "function" is the envelope of OpenAI-style calls, not an argument.
		if k != nameKey && !(k == "type" && v == "function") {
			args[k] = v
		}
	}
	return Call{Name: name, Arguments: args}, true
}

func firstKey(m map[string]any, keys []string) string {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return k
		}
	}
	return ""
}

// toArgs accepts an object, or a string holding one (as OpenAI's API sends them and models
// copy); anything else gives no arguments, which the tool then reports as missing.
func toArgs(v any) map[string]any {
	switch v := v.(type) {
	case map[string]any:
		return v
	case string:
		if s := strings.TrimSpace(v); strings.HasPrefix(s, "{") {
			var m map[string]any
			if b := scanJSON(s, 0, modeTag, true).fixed; b != nil && json.Unmarshal(b, &m) == nil && m != nil {
				return m
			}
		}
	}
	return map[string]any{}
}
