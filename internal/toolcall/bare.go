package toolcall

import "strings"

// bare reads a JSON value at text[i] that stands at a line start, keeping it as a call only
// if it is one. It returns where the scan resumes and whether a call may follow directly.
func (s *scanner) bare(i int) (next int, lead bool) {
	mode := modeProse
	if s.fence.open {
		mode = modeFence
	}
	r := scanJSON(s.text, i, mode, true)
	if calls := decode(r, true); len(calls) > 0 {
		s.calls = append(s.calls, calls...)
		if r.eof {
			return s.tail(i), false
		}
		s.cut(i, r.end)
		return r.end, true
	}
	switch {
	case r.eof && callish(s.text[i:]):
		return s.tail(i), false
	case r.closed || r.eof:
		s.prose()
		return r.end, false
	}
	// Not JSON after all: carry on with what broke it, which may start something itself.
	s.prose()
	if k := lineStart(s.text, r.stop); k >= 0 {
		return k, true
	}
	return r.stop, false
}

// callish reports whether a cut-off bare value starts the way a call does, so that the
// stream holds it back instead of flashing it: its first key names the tool, or is the
// "type": "function" of an OpenAI-style call.
func callish(s string) bool {
	i := skipSpace(s, 0)
	if s[i] == '[' {
		i = skipSpace(s, i+1)
	}
	if i == len(s) {
		return true
	}
	if s[i] != '{' {
		return false
	}
	key, rest, ok := leadingString(s[skipSpace(s, i+1):])
	switch {
	case !ok:
		return rest == "" && (strings.HasPrefix("name", key) || strings.HasPrefix("tool", key) ||
			strings.HasPrefix("function", key) || strings.HasPrefix("type", key))
	case key == "name" || key == "tool" || key == "function":
		return true
	case key != "type":
		return false
	}
	rest = rest[skipSpace(rest, 0):]
	if rest == "" {
		return true
	}
	if rest[0] != ':' {
		return false
	}
	value, rest, ok := leadingString(rest[skipSpace(rest, 1):])
	return ok && value == "function" || !ok && rest == "" && strings.HasPrefix("function", value)
}

// leadingString splits off the simple quoted string s starts with. ok is false if s does
// not start with one; then rest is "" only if s ended inside it.
func leadingString(s string) (value, rest string, ok bool) {
	if s == "" {
		return "", "", false
	}
	if s[0] != '"' {
		return "", s, false
	}
	k := strings.IndexByte(s[1:], '"')
	if k < 0 {
		return s[1:], "", false
	}
	return s[1 : k+1], s[k+2:], true
}
