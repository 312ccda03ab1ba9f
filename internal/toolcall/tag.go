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

// knownTagNames add the wrappers read in known mode: Granite 20B FC's <function_call>,
// Anthropic-style <function_calls>, Seed-OSS's and MiniMax's namespaced ones.
var knownTagNames = []string{"tool_call", "toolcall", "function_call", "function_calls", "seed:tool_call", "minimax:tool_call"}

// matchTag reads the tag that may start at text[i] ('<'). Case and whitespace inside the
// brackets are free: models write < tool_call >, <TOOL_CALL> and <tool_call\n>.
func matchTag(text string, i int) (end int, kind tagKind) {
	end, kind, _ = matchTagOf(text, i, tagNames[:])
	return end, kind
}

// matchTagOf is matchTag for the given tag names; name is the one that matched.
func matchTagOf(text string, i int, names []string) (end int, kind tagKind, name string) {
	j := skipSpace(text, i+1)
	kind = openTag
	if j < len(text) && text[j] == '/' {
		kind = closeTag
		j = skipSpace(text, j+1)
	}
	k := j
	for k < len(text) && (isLetter(text[k]) || text[k] == '_' || text[k] == ':') {
		k++
	}
	word := text[j:k]
	for _, n := range names {
		if k == len(text) && hasPrefixFold(n, word) {
			return len(text), tagPrefix, ""
		}
		if strings.EqualFold(word, n) {
			name = n
		}
	}
	if name == "" {
		return 0, notTag, ""
	}
	k = skipSpace(text, k)
	switch {
	case k == len(text):
		return len(text), tagPrefix, ""
	case text[k] != '>':
		return 0, notTag, ""
	}
	return k + 1, kind, name
}

// isTagAt reports whether a whole opening or closing tag starts at text[i].
func isTagAt(text string, i int) bool {
	_, kind := matchTag(text, i)
	return kind == openTag || kind == closeTag
}

// nextTag finds the first tag, or tag prefix at the very end, at or after text[from].
func nextTag(text string, from int) (start, end int, kind tagKind) {
	return nextTagOf(text, from, tagNames[:])
}

func nextTagOf(text string, from int, names []string) (start, end int, kind tagKind) {
	for from < len(text) {
		k := strings.IndexByte(text[from:], '<')
		if k < 0 {
			break
		}
		start = from + k
		if end, kind, _ = matchTagOf(text, start, names); kind != notTag {
			return start, end, kind
		}
		from = start + 1
	}
	return len(text), len(text), notTag
}

func (s *scanner) matchTag(i int) (int, tagKind, string) {
	return matchTagOf(s.text, i, s.names)
}

// wrapperDialect is the dialect of a call standing directly in the wrapper named name.
func wrapperDialect(name string) string {
	switch name {
	case "toolcall":
		return DialectNemotron
	case "function_call":
		return DialectFunctionCall
	case "seed:tool_call":
		return DialectSeedOSS
	case "function_calls", "minimax:tool_call":
		return DialectInvokeXML
	}
	return DialectHermes
}

// tag handles a '<' at text[i], reporting false if no tag starts there.
func (s *scanner) tag(i int) (next int, ok bool) {
	end, kind, name := s.matchTag(i)
	switch kind {
	case openTag:
		return s.tagged(i, end, wrapperDialect(name)), true
	case closeTag: // left over from a call already taken, or from none at all
		if s.known != nil {
			return 0, false // prose: one right after a call is taken with it
		}
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
func (s *scanner) tagged(i, pos int, dialect string) int {
	t := s.text
	end := pos // just past the last byte that belongs to the call
	seen := false
	s.pending = s.pending[:0]
	for {
		pos = skipSpace(t, pos)
		if pos == len(t) {
			return s.takeTail(i)
		}
		switch c := t[pos]; {
		case c == '{' || c == '[':
			r := scanJSON(t, pos, modeTag, s.decode)
			if s.decode {
				s.pending = append(s.pending, s.decodeTagged(r, dialect)...)
			}
			if r.eof {
				return s.takeTail(i)
			}
			if !r.ok {
				// Broken past mending: the call is whatever comes before the next tag.
				return s.skipToTag(i, r.stop)
			}
			pos, end, seen = r.stop, r.end, true
		case c == '<':
			tagEnd, kind, _ := s.matchTag(pos)
			switch {
			case kind == closeTag:
				next, _ := s.take(i, tagEnd)
				return next
			case kind == tagPrefix:
				return s.takeTail(i)
			case kind == notTag && !seen && hasPrefixFold(t[pos:], "<function="):
				return s.xmlBody(i, pos, dialect)
			case kind == notTag && !seen && hasPrefixFold("<function=", t[pos:]):
				return s.takeTail(i) // "<func" may still become one
			case kind == notTag && s.known != nil && strings.HasPrefix("<invoke", t[pos:]):
				return s.takeTail(i) // "<inv" may still become one
			case kind == notTag && s.known != nil && strings.HasPrefix(t[pos:], "<invoke"):
				e, eof, ok := s.invoke(pos)
				if eof {
					return s.takeTail(i)
				}
				if !ok {
					s.pending = s.pending[:0]
					return s.skipToTag(i, e)
				}
				pos, end, seen = e, e, true
				continue
			}
			next, _ := s.take(i, end)
			return max(next, pos)
		case c == '`':
			n := countTicks(t, pos)
			if pos+n == len(t) {
				return s.takeTail(i)
			}
			if n < 3 {
				next, _ := s.take(i, end)
				return max(next, pos)
			}
			// A fence around the JSON belongs to the call, unless it closes one around the tag.
			if k := lineStart(t, pos); s.fence.open && k >= 0 {
				next, _ := s.take(i, end)
				return max(next, k)
			}
			for pos += n; pos < len(t) && (isLiteralByte(t[pos]) || t[pos] == '_'); pos++ {
			}
			end = pos
		case seen && (c == '}' || c == ']' || c == ','): // a stray bracket after the JSON
			pos++
			end = pos
		case s.known != nil && !seen && isNameStart(c):
			return s.glm(i, pos)
		default:
			next, _ := s.take(i, end)
			return max(next, pos)
		}
	}
}

// decodeTagged decodes a JSON value inside a wrapper tag, leniently: the tag already says
// it holds calls.
func (s *scanner) decodeTagged(r jsonScan, dialect string) []Call {
	if s.known != nil {
		calls, whole := decodeKnown(r, dialect)
		if !whole {
			return nil
		}
		return calls
	}
	calls := decode(r, false)
	for k := range calls {
		calls[k].Dialect = dialect
	}
	return calls
}

// skipToTag ends the call opened at i, whose body cannot be read from text[from] on, at
// the next tag or at the end of the fence around it.
func (s *scanner) skipToTag(i, from int) int {
	start, end, kind := s.boundary(from)
	switch {
	case kind == closeTag:
		next, _ := s.take(i, end)
		return next
	case start < len(s.text):
		next, _ := s.take(i, start)
		return max(next, start)
	}
	return s.takeTail(i)
}

// boundary finds the next tag at or after text[from], or the line closing the fence around
// the scan if that comes first (reported as notTag, like the end of the text).
func (s *scanner) boundary(from int) (start, end int, kind tagKind) {
	start, end, kind = nextTagOf(s.text, from, s.names)
	if s.fence.open {
		if k := nextFenceLine(s.text, from); k < start {
			return k, k, notTag
		}
	}
	return start, end, kind
}

// xmlBody reads a Qwen3-Coder body starting at text[pos], inside the tag opened at i.
func (s *scanner) xmlBody(i, pos int, dialect string) int {
	if s.decode {
		start, _, _ := s.boundary(pos)
		if c, ok := xmlCall(s.text[pos:start], s.known != nil); ok {
			if dialect == DialectSeedOSS {
				c.Dialect = dialect
			}
			s.pending = append(s.pending, c)
		}
	}
	return s.skipToTag(i, pos)
}
