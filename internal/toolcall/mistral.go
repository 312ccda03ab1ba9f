package toolcall

import "strings"

const mistralMarker = "[TOOL_CALLS]"

// mistral reads what follows Mistral's [TOOL_CALLS] marker, which opened a unit at text[i]
// ending at pos: a JSON list of calls (Mistral 7B v0.3, Devstral through older templates;
// some quantisations write it as Python literals in single quotes), or NAME, an optional
// [CALL_ID]id, an optional [ARGS] and the arguments object (Devstral 2507+, Magistral,
// Mistral Small 3.2; the inner markers vanish when the runtime drops special tokens).
func (s *scanner) mistral(i, pos int) int {
	t := s.text
	p := skipSpace(t, pos)
	switch {
	case p == len(t):
		return s.takeTail(i)
	case isNameStart(t[p]):
		return s.mistralNamed(i, p)
	case t[p] != '[' && t[p] != '{':
		s.prose()
		return p
	}
	r := scanJSON(t, p, modeTag, true)
	calls, whole := decodeKnown(r, DialectMistral)
	end := r.end
	if !whole && !r.eof {
		py := pyParser{text: t, pos: p, open: true}
		v, ok := py.value()
		calls, whole = callsOf(v, DialectMistral)
		r.eof, end = py.eof, py.pos
		if !ok && !py.eof {
			s.prose()
			return max(r.stop, py.pos, p+1)
		}
	}
	s.pending = calls
	if r.eof {
		return s.takeTail(i)
	}
	if !whole {
		s.pending = s.pending[:0]
	}
	next, _ := s.take(i, end)
	return next
}

// mistralNamed reads NAME[CALL_ID]id[ARGS]{…} at text[p], in the unit opened at i.
func (s *scanner) mistralNamed(i, p int) int {
	t := s.text
	k := p
	for k < len(t) && isNameByte(t[k]) {
		k++
	}
	if k == len(t) {
		return s.takeTail(i) // the name is still arriving
	}
	s.pending = append(s.pending[:0], Call{Name: t[p:k], Arguments: map[string]any{}, Dialect: DialectMistral})
	for _, marker := range [...]string{"[CALL_ID]", "[ARGS]"} {
		switch {
		case strings.HasPrefix(t[k:], marker):
			k += len(marker)
			for marker == "[CALL_ID]" && k < len(t) && isNameByte(t[k]) {
				k++
			}
		case strings.HasPrefix(marker, t[k:]):
			return s.takeTail(i)
		}
	}
	return s.argsCall(i, skipSpace(t, k))
}
