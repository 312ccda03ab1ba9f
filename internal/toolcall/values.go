package toolcall

import (
	"encoding/json"
	"strconv"
	"strings"
)

// typedValue converts a parameter value that an XML-ish dialect (Qwen3-Coder, GLM, MiniMax)
// wrote as text, as those models' own parsers do when they have no schema to go by: a
// one-line value that is JSON (a number written in its plain form, true, false, null, an
// object, an array) becomes that value. Anything else stays the exact text: a quoted JSON
// string, "1.0" or "007" (which would not read back the same), and every multi-line value,
// since that is code or file content.
func typedValue(v string) any {
	if v == "" || strings.ContainsAny(v, "\n\r") {
		return v
	}
	switch v {
	case "true":
		return true
	case "false":
		return false
	case "null":
		return nil
	}
	switch c := v[0]; {
	case c == '{' || c == '[':
		var parsed any
		if json.Unmarshal([]byte(v), &parsed) == nil {
			return parsed
		}
	case c == '-' || isDigit(c):
		if f, err := strconv.ParseFloat(v, 64); err == nil && strconv.FormatFloat(f, 'f', -1, 64) == v {
			return f
		}
	}
	return v
}
