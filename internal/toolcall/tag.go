package toolcall

import "strings"

type tagKind uint8

const (
	notTag tagKind = iota
	openTag
	closeTag
	tagPrefix // the text ends partway through what may still become a tag
)

// tagNames are the wrappers models put around a call: <tool_call> is what Qwen-style
// templates (and our system prompt) ask for; nemotron-mini writes <toolcall>.
var tagNames = [...]string{"tool_call", "toolcall"}

// matchTag reads the tag that may start at text[i] ('<'). Case and whitespace inside the
// brackets are free: models write < tool_call >, <TOOL_CALL> and <tool_call\n>.
func matchTag(text string, i int) (end int, kind tagKind) {
	j := skipSpace(text, i+1)
	kind = openTag
	if j < len(text) && text[j] == '/' {
		kind = closeTag
		j = skipSpace(text, j+1)
	}
	k := j
	for k < len(text) && (isLetter(text[k]) || text[k] == '_') {
		k++
	}
	name, named := text[j:k], false
	for _, n := range tagNames {
		if k == len(text) && hasPrefixFold(n, name) {
			return len(text), tagPrefix
		}
		named = named || strings.EqualFold(name, n)
	}
	if !named {
		return 0, notTag
	}
	k = skipSpace(text, k)
	switch {
	case k == len(text):
		return len(text), tagPrefix
	case text[k] != '>':
		return 0, notTag
	}
	return k + 1, kind
}

// isTagAt reports whether a whole opening or closing tag starts at text[i].
func isTagAt(text string, i int) bool {
	_, kind := matchTag(text, i)
	return kind == openTag || kind == closeTag
}

// nextTag finds the first tag, or tag prefix at the very end, at or after text[from].
func nextTag(text string, from int) (start, end int, kind tagKind) {
	for from < len(text) {
		k := strings.IndexByte(text[from:], '<')
		if k < 0 {
			break
		}
		start = from + k
		if end, kind = matchTag(text, start); kind != notTag {
			return start, end, kind
		}
		from = start + 1
	}
	return len(text), len(text), notTag
}

// tag handles a '<' at text[i], reporting false if no tag starts there.
func (s *scanner) tag(i int) (next int, ok bool) {
	end, kind := matchTag(s.text, i)
	switch kind {
	case openTag:
		return s.tagged(i, end), true
	case closeTag: // left over from a call already taken, or from none at all
		s.cut(i, end)
		return end, true
	case tagPrefix:
		return s.tail(i), true
	}
	return 0, false
}

// tagged reads the body of the call whose opening tag is text[i:pos] and returns where the
// scan resumes. The body ends at the closing tag; without one, at the next opening tag, at
// prose after the JSON, or at the end of the text.
func (s *scanner) tagged(i, pos int) int {
	t := s.text
	end := pos // just past the last byte that belongs to the call
	seen := false
	for {
		pos = skipSpace(t, pos)
		if pos == len(t) {
			return s.tail(i)
		}
		switch c := t[pos]; {
		case c == '{' || c == '[':
			r := scanJSON(t, pos, modeTag, s.decode)
			if s.decode {
				s.calls = append(s.calls, decode(r, false)...)
			}
			if r.eof {
				return s.tail(i)
			}
			if !r.ok {
				// Broken past mending: the call is whatever comes before the next tag.
				return s.skipToTag(i, r.stop)
			}
			pos, end, seen = r.stop, r.end, true
		case c == '<':
			tagEnd, kind := matchTag(t, pos)
			switch {
			case kind == closeTag:
				s.cut(i, tagEnd)
				return tagEnd
			case kind == tagPrefix:
				return s.tail(i)
			case kind == notTag && !seen && hasPrefixFold(t[pos:], "<function="):
				return s.xmlBody(i, pos)
			case kind == notTag && !seen && hasPrefixFold("<function=", t[pos:]):
				return s.tail(i) // "<func" may still become one
			}
			s.cut(i, end)
			return pos
		case c == '`':
			n := countTicks(t, pos)
			if pos+n == len(t) {
				return s.tail(i)
			}
			if n < 3 {
				s.cut(i, end)
				return pos
			}
			// A fence around the JSON belongs to the call, unless it closes one around the tag.
			if k := lineStart(t, pos); s.fence.open && k >= 0 {
				s.cut(i, end)
				return k
			}
			for pos += n; pos < len(t) && (isLiteralByte(t[pos]) || t[pos] == '_'); pos++ {
			}
			end = pos
		case seen && (c == '}' || c == ']' || c == ','): // a stray bracket after the JSON
			pos++
			end = pos
		default:
			s.cut(i, end)
			return pos
		}
	}
}

// skipToTag ends the call opened at i, whose body cannot be read from text[from] on, at
// the next tag or at the end of the fence around it.
func (s *scanner) skipToTag(i, from int) int {
	start, end, kind := s.boundary(from)
	switch {
	case kind == closeTag:
		s.cut(i, end)
		return end
	case start < len(s.text):
		s.cut(i, start)
		return start
	}
	return s.tail(i)
}

// boundary finds the next tag at or after text[from], or the line closing the fence around
// the scan if that comes first (reported as notTag, like the end of the text).
func (s *scanner) boundary(from int) (start, end int, kind tagKind) {
	start, end, kind = nextTag(s.text, from)
	if s.fence.open {
		if k := nextFenceLine(s.text, from); k < start {
			return k, k, notTag
		}
	}
	return start, end, kind
}

// xmlBody reads a Qwen3-Coder body starting at text[pos], inside the tag opened at i.
func (s *scanner) xmlBody(i, pos int) int {
	if s.decode {
		start, _, _ := s.boundary(pos)
		if c, ok := xmlCall(s.text[pos:start]); ok {
			s.calls = append(s.calls, c)
		}
	}
	return s.skipToTag(i, pos)
}
