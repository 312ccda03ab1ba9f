package toolcall

// pyCalls reads Python calls at text[pos], a list (at a line start) or a sequence (after
// <|python_tag|>), as the unit opened at start, and settles it.
func (s *scanner) pyCalls(start, pos int, dialect string, list bool) int {
	p := pyParser{text: s.text, pos: pos, open: true}
	var ok bool
	if list {
		ok = p.list()
	} else {
		ok = p.sequence(false)
	}
	for k := range p.calls {
		p.calls[k].Dialect = dialect
	}
	s.pending = p.calls
	switch {
	case p.eof:
		return s.takeTail(start)
	case !ok:
		s.reject()
		return max(p.pos, p.far, pos+1)
	}
	next, _ := s.take(start, p.pos)
	return max(next, p.far)
}

// pythonTag reads what follows Llama's <|python_tag|> (Llama 4: <|python_start|>), which
// opened a unit at text[i] ending at pos: JSON calls, apart by ';' when several, or Python
// calls, bare (Llama 3.3) or in a list. Anything else is code for the interpreter: prose.
func (s *scanner) pythonTag(i, pos int) (int, bool) {
	t := s.text
	p := skipSpace(t, pos)
	switch {
	case p == len(t):
		return s.takeTail(i), true
	case t[p] == '{':
		return s.jsonCalls(i, p, DialectLlamaPythonTag, true), true
	case t[p] == '[':
		if k := skipSpace(t, p+1); k < len(t) && isNameStart(t[k]) {
			return s.pyCalls(i, p, DialectPythonic, true), true
		}
		return s.jsonCalls(i, p, DialectLlamaPythonTag, true), true
	case isNameStart(t[p]):
		return s.pyCalls(i, p, DialectLlamaPythonTag, false), true
	}
	return 0, false
}
