package toolcall

import "strings"

// bracket handles a '[' in known mode: Mistral's [TOOL_CALLS] wherever it stands, or at a
// line start (bareOK) a pythonic call list [NAME(k="v"), …]. A '[' followed by JSON is left
// to bare.
func (s *scanner) bracket(i int, bareOK bool) (int, bool) {
	t := s.text
	switch {
	case strings.HasPrefix(t[i:], mistralMarker):
		return s.mistral(i, i+len(mistralMarker)), true
	case strings.HasPrefix(mistralMarker, t[i:]):
		return s.tail(i), true // the marker may be arriving
	case bareOK:
		if k := skipSpace(t, i+1); k < len(t) && isNameStart(t[k]) {
			return s.pyCalls(i, i, DialectPythonic, true), true
		}
	}
	return 0, false
}

// leadWord handles a line that opens with a dialect's marker word: Phi-4-mini's
// functools[…] or Command-R's Action: ```json […]```. A line that may still become one is
// held.
func (s *scanner) leadWord(i int) (int, bool) {
	t := s.text
	const phi, action = "functools", "Action:"
	switch {
	case strings.HasPrefix(t[i:], phi):
		p := skipHSpace(t, i+len(phi))
		if p == len(t) {
			return s.tail(i), true
		}
		if t[p] == '[' {
			return s.jsonCalls(i, p, DialectPhi, false), true
		}
	case strings.HasPrefix(t[i:], action):
		return s.action(i, i+len(action))
	case strings.HasPrefix(phi, t[i:]) || strings.HasPrefix(action, t[i:]):
		return s.tail(i), true
	}
	return 0, false
}

// action reads Command-R's call, a JSON list in a fence after "Action:", from text[pos].
func (s *scanner) action(i, pos int) (int, bool) {
	t := s.text
	p := skipSpace(t, pos)
	n := countTicks(t, p)
	if p+n == len(t) {
		return s.tail(i), true
	}
	if n < 3 {
		return 0, false
	}
	eol := len(t)
	if k := strings.IndexByte(t[p:], '\n'); k >= 0 {
		eol = p + k
	}
	info := strings.TrimSpace(t[p+n : eol])
	switch {
	case eol == len(t) && jsonLang(info, true):
		return s.tail(i), true
	case eol == len(t) || !jsonLang(info, false):
		return 0, false
	}
	q := skipSpace(t, eol)
	switch {
	case q == len(t):
		return s.tail(i), true
	case t[q] != '[' && t[q] != '{':
		return 0, false
	}
	r := scanJSON(t, q, modeFence, true)
	calls, whole := decodeKnown(r, DialectCommandR)
	if whole {
		s.pending = calls
	}
	if r.eof {
		return s.takeTail(i), true
	}
	end := r.end
	if c := skipSpace(t, end); countTicks(t, c) >= 3 {
		end = c + countTicks(t, c)
	} else if c+countTicks(t, c) == len(t) {
		return s.takeTail(i), true // the closing fence is arriving
	}
	next, _ := s.take(i, end)
	return max(next, r.stop), true
}
