package toolcall

import "strings"

// span is the byte range [start, end) of the text.
type span struct{ start, end int }

// scanner walks the text once, finding calls, the markup to cut and whether the text ends
// inside an unfinished call. Prose is skipped a line at a time: only a '<', a line start
// or the end of a call can begin something (in known mode a '[' too).
type scanner struct {
	text   string
	decode bool // decode tagged calls too; a bare value is always decoded, as only a call is cut
	// known is the run's tool names in known mode (ExtractKnown and its companions), nil for
	// Extract: it decides whether a unit of markup is a call or prose.
	known   func(string) bool
	names   []string // the wrapper tags read: tagNames, or knownTagNames in known mode
	calls   []Call
	pending []Call // the calls of the unit being read, settled by take or takeTail
	cuts    []span // sorted, disjoint
	// units are where each unit of call markup stood, without the trailer cut with it (known
	// mode): cuts merge units that touch, the tests need them apart.
	units   []span
	partial bool
	thought bool // a thinking block was seen
	fence   fence
	nextLT  int            // the first '<' at or after the last search, or len(text)
	nextLB  int            // the same for '[' (known mode)
	found   map[string]int // find's last answers
	from    map[string]int // where those searches started
}

func newScanner(text string, decode bool) *scanner {
	return &scanner{text: text, decode: decode, names: tagNames[:], nextLT: -1, nextLB: -1}
}

// run scans the whole text. Outside a call only a few things matter: a '<', which may open
// a tag; a fence line; a '{' or '[' where a bare call may start; in known mode the markers
// of the other dialects.
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
		if t[j] == '\n' {
			i, lead = j+1, true
			continue
		}
		if next, nextLead, ok := s.markup(j, lead); ok {
			i, lead = next, nextLead
			continue
		}
		s.prose()
		i, lead = s.skipProse(j+1), false
	}
	s.endFence()
}

// markup reads what starts at text[i] if it is markup: a tag or a token, a dialect's
// marker, or (with lead) a bare value or a marker word opening the line. It returns where
// the scan resumes and whether a call may follow there directly.
func (s *scanner) markup(i int, lead bool) (next int, nextLead, ok bool) {
	t := s.text
	c := t[i]
	bareOK := lead && (!s.fence.open || s.fence.json)
	if c == '<' {
		next, ok = s.angle(i)
		return next, true, ok
	}
	if s.known != nil && c == '[' {
		if next, ok = s.bracket(i, bareOK); ok {
			return next, s.afterCut(next), true
		}
	}
	if bareOK && (c == '{' || c == '[') {
		next, nextLead = s.bare(i)
		return next, nextLead, true
	}
	if bareOK && s.known != nil && isLetter(c) {
		if next, ok = s.leadWord(i); ok {
			return next, s.afterCut(next), true
		}
	}
	return 0, false, false
}

// angle handles a '<': a thinking block, a wrapper tag, or in known mode a bare
// <function=…>, an <invoke> or a special token.
func (s *scanner) angle(i int) (int, bool) {
	if end, ok := s.think(i); ok {
		s.prose()
		return end, true
	}
	if next, ok := s.tag(i); ok || s.known == nil {
		return next, ok
	}
	t := s.text
	switch {
	case hasPrefixFold(t[i:], "<function="):
		return s.function(i), true
	case strings.HasPrefix(t[i:], "<invoke") && len(t) > i+7 && isSpace(t[i+7]):
		return s.bareInvoke(i), true
	case hasPrefixFold("<function=", t[i:]) || strings.HasPrefix("<invoke ", t[i:]):
		return s.tail(i), true // may still become one
	}
	return s.token(i)
}

// skipProse returns the first '<' or line break at or after from (in known mode, or '[').
func (s *scanner) skipProse(from int) int {
	t := s.text
	if s.nextLT < from {
		s.nextLT = len(t)
		if k := strings.IndexByte(t[from:], '<'); k >= 0 {
			s.nextLT = from + k
		}
	}
	stop := s.nextLT
	if s.known != nil {
		if s.nextLB < from {
			s.nextLB = len(t)
			if k := strings.IndexByte(t[from:], '['); k >= 0 {
				s.nextLB = from + k
			}
		}
		stop = min(stop, s.nextLB)
	}
	if k := strings.IndexByte(t[from:stop], '\n'); k >= 0 {
		return from + k
	}
	return stop
}

// find returns the index of the first str at or after from, or len(text). It remembers its
// last answer for each str, so that a scan moving forward never searches a stretch twice.
func (s *scanner) find(str string, from int) int {
	if s.found == nil {
		s.found, s.from = map[string]int{}, map[string]int{}
	}
	if k, ok := s.found[str]; ok && s.from[str] <= from && k >= from {
		return k
	}
	k := len(s.text)
	if j := strings.Index(s.text[from:], str); j >= 0 {
		k = from + j
	}
	s.found[str], s.from[str] = k, from
	return k
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

// afterCut reports whether the scan resumes right where a cut ends: a call was just taken,
// and another may follow directly.
func (s *scanner) afterCut(next int) bool {
	n := len(s.cuts)
	return n > 0 && s.cuts[n-1].end == next
}

// tail marks everything from a on as an unfinished call.
func (s *scanner) tail(a int) int {
	s.partial = true
	s.cut(a, len(s.text))
	return len(s.text)
}
