package toolcall

import (
	"slices"
	"strings"
)

// bare reads a JSON value at text[i] that stands at a line start, keeping it as a call only
// if it is one. It returns where the scan resumes and whether a call may follow directly.
func (s *scanner) bare(i int) (next int, lead bool) {
	mode := modeProse
	if s.fence.open {
		mode = modeFence
	}
	r := scanJSON(s.text, i, mode, true)
	if s.known != nil {
		// Known mode: the names decide, with or without an arguments key.
		calls, whole := decodeKnown(r, DialectJSON)
		if whole {
			s.pending = calls
		}
		switch {
		case r.eof && (whole || callish(s.text[i:], knownLeadKeys) && !definition(r)):
			return s.takeTail(i), false
		case whole && !r.eof:
			if end, taken := s.take(i, r.end); taken {
				return s.separator(end), true
			}
		}
	} else if calls := decode(r, true); len(calls) > 0 {
		for k := range calls {
			calls[k].Dialect = DialectJSON
		}
		s.calls = append(s.calls, calls...)
		if r.eof {
			return s.tail(i), false
		}
		s.cut(i, r.end)
		return r.end, true
	}
	switch {
	case r.eof && s.known == nil && callish(s.text[i:], leadKeys):
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

// separator takes the ';' Llama 3.x puts between parallel bare calls with the call before
// it, returning where the next call may start.
func (s *scanner) separator(end int) int {
	k := skipHSpace(s.text, end)
	if k < len(s.text) && s.text[k] == ';' {
		s.cut(end, k+1)
		return k + 1
	}
	return end
}

// The first keys of a bare value that is a call: its name, or in known mode also an
// OpenAI envelope (an assistant message, a call with its id) or Command-R's tool_name.
var (
	leadKeys      = []string{"name", "tool", "function"}
	knownLeadKeys = []string{"name", "tool", "function", "tool_calls", "tool_name", "role", "id"}
)

// callish reports whether a cut-off bare value starts the way a call does, so that the
// stream holds it back instead of flashing it: its first key is one of keys, or the
// "type": "function" of an OpenAI-style call.
func callish(s string, keys []string) bool {
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
		if rest != "" {
			return false
		}
		return strings.HasPrefix("type", key) ||
			slices.ContainsFunc(keys, func(k string) bool { return strings.HasPrefix(k, key) })
	case slices.Contains(keys, key):
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
