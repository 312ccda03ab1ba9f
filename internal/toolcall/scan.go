package toolcall

import "strings"

// span is the byte range [start, end) of the text.
type span struct{ start, end int }

// scanner walks the text once, finding calls, the markup to cut and whether the text ends
// inside an unfinished call. Prose is skipped a line at a time: only a '<', a line start
// or the end of a call can begin something.
type scanner struct {
	text    string
	decode  bool // decode tagged calls too; a bare value is always decoded, as only a call is cut
	calls   []Call
	cuts    []span // sorted, disjoint
	partial bool
	fence   fence
	nextLT  int // the first '<' at or after the last search, or len(text)
}

func newScanner(text string, decode bool) *scanner {
	return &scanner{text: text, decode: decode, nextLT: -1}
}

// run scans the whole text. Outside a call only three things matter: a '<', which may open
// a tag; a fence line; and a '{' or '[' where a bare call may start.
func (s *scanner) run() {
	t := s.text
	// lead: a bare call may start here, at a line start or right after another call.
	lead := true
	for i := 0; i < len(t); {
		if i == 0 || t[i-1] == '\n' {
			if next, ok := s.fenceLine(i); ok {
				i, lead = next, false
				continue
			}
		}
		j := skipHSpace(t, i)
		if j == len(t) {
			break
		}
		switch c := t[j]; {
		case c == '\n':
			i, lead = j+1, true
			continue
		case c == '<':
			if next, ok := s.tag(j); ok {
				i, lead = next, true
				continue
			}
		case lead && (c == '{' || c == '[') && (!s.fence.open || s.fence.json):
			i, lead = s.bare(j)
			continue
		}
		s.prose()
		i, lead = s.skipProse(j+1), false
	}
	s.endFence()
}

// skipProse returns the first '<' or line break at or after from.
func (s *scanner) skipProse(from int) int {
	t := s.text
	if s.nextLT < from {
		s.nextLT = len(t)
		if k := strings.IndexByte(t[from:], '<'); k >= 0 {
			s.nextLT = from + k
		}
	}
	if k := strings.IndexByte(t[from:s.nextLT], '\n'); k >= 0 {
		return from + k
	}
	return s.nextLT
}

// prose notes text that is not call markup, which keeps the fence around it.
func (s *scanner) prose() {
	if s.fence.open {
		s.fence.other = true
	}
}

// cut marks text[a:b] for removal, merging it with the cuts it overlaps or touches.
func (s *scanner) cut(a, b int) {
	if s.fence.open && a > s.fence.start {
		s.fence.markup = true
	}
	for n := len(s.cuts); n > 0; n = len(s.cuts) {
		last := &s.cuts[n-1]
		if last.start >= a {
			b = max(b, last.end)
			s.cuts = s.cuts[:n-1]
			continue
		}
		if last.end >= a {
			last.end = max(last.end, b)
			return
		}
		break
	}
	s.cuts = append(s.cuts, span{a, b})
}

// tail marks everything from a on as an unfinished call.
func (s *scanner) tail(a int) int {
	s.partial = true
	s.cut(a, len(s.text))
	return len(s.text)
}
