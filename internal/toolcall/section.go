package toolcall

import "strings"

// sectionHeadMax bounds what may stand between a call's begin token and its separator.
const sectionHeadMax = 256

// section reads DeepSeek's and Kimi K2's tool-call sections, opened at text[i] by the token
// opener (ending at pos):
//
//	<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME
//	```json
//	{…}
//	```<｜tool▁call▁end｜><｜tool▁calls▁end｜>                          (DeepSeek V3, R1)
//	<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>…  (V3.1)
//	<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{…}<|tool_call_end|>…  (Kimi K2)
//
// A single call may also stand without its section.
func (s *scanner) section(i, pos int, opener string) int {
	t := s.text
	single := opener == "tool_call_begin"
	end := pos
	s.pending = s.pending[:0]
	for {
		if !single {
			p := skipSpace(t, pos)
			if p == len(t) {
				return s.takeTail(i)
			}
			name, e, kind := readToken(t, p)
			switch {
			case kind == tagPrefix:
				return s.takeTail(i)
			case kind == openTag && (name == "tool_calls_end" || name == "tool_calls_section_end"):
				next, _ := s.take(i, e)
				return next
			case kind != openTag || name != "tool_call_begin":
				next, _ := s.take(i, end) // the section ends after its last call
				return max(next, pos)
			}
			pos = e
		}
		e, eof, ok := s.sectionCall(pos)
		switch {
		case eof:
			return s.takeTail(i)
		case !ok:
			s.reject()
			return max(e, pos)
		}
		end, pos = e, e
		if single {
			next, _ := s.take(i, end)
			return next
		}
	}
}

// sectionCall reads one call after its begin token, up to and with its end token, into
// s.pending. It returns where the call ends, whether the text ended inside it, and whether
// it was a call at all.
func (s *scanner) sectionCall(pos int) (end int, eof, ok bool) {
	t := s.text
	// The head (the name, or "function" in V3) runs to the separator token.
	k, sep, body := pos, "", 0
	for limit := min(len(t), pos+sectionHeadMax); k < limit; k++ {
		if t[k] != '<' {
			continue
		}
		name, e, kind := readToken(t, k)
		if kind == tagPrefix {
			return len(t), true, true
		}
		if kind == openTag {
			if name != "tool_sep" && name != "tool_call_argument_begin" {
				return k, false, false
			}
			sep, body = name, e
			break
		}
	}
	if sep == "" {
		return k, k == len(t), false
	}
	head := strings.TrimSpace(t[pos:k])
	c := Call{Arguments: map[string]any{}, Dialect: DialectDeepSeek}
	p := skipSpace(t, body)
	switch {
	case sep == "tool_call_argument_begin":
		c.Name, c.Dialect = kimiName(head), DialectKimi
	case head == "function" || head == "":
		// V3: the name on the line after the separator, the arguments in a fence.
		nl := strings.IndexByte(t[p:], '\n')
		if nl < 0 {
			return len(t), true, true
		}
		c.Name = strings.TrimSpace(t[p : p+nl])
		p = skipSpace(t, p+nl+1)
		if n := countTicks(t, p); n > 0 && p+n == len(t) {
			s.pending = append(s.pending, c)
			return len(t), true, true // the fence is arriving
		} else if n >= 3 {
			for p += n; p < len(t) && isLetter(t[p]); p++ {
			}
			p = skipSpace(t, p)
		}
	default:
		c.Name = head
	}
	if p == len(t) {
		s.pending = append(s.pending, c)
		return len(t), true, true
	}
	if t[p] != '{' {
		return p, false, false
	}
	r := scanJSON(t, p, modeTag, true)
	if m, ok := argsOf(r); ok {
		c.Arguments = m
	}
	s.pending = append(s.pending, c)
	if r.eof {
		return len(t), true, true
	}
	if !r.ok {
		return r.stop, false, false
	}
	p = skipSpace(t, r.end)
	if n := countTicks(t, p); n > 0 {
		if p+n == len(t) {
			return len(t), true, true
		}
		p = skipSpace(t, p+n)
	}
	if p == len(t) {
		return r.end, false, true
	}
	name, e, kind := readToken(t, p)
	switch {
	case kind == tagPrefix:
		return len(t), true, true
	case kind == openTag && name == "tool_call_end":
		return e, false, true
	}
	return r.end, false, true // its end token left out: the call ends with its arguments
}

// kimiName takes the tool's name out of a Kimi call id, functions.NAME:0.
func kimiName(id string) string {
	id = strings.TrimPrefix(id, "functions.")
	if k := strings.LastIndexByte(id, ':'); k >= 0 && k+1 < len(id) && strings.Trim(id[k+1:], "0123456789") == "" {
		id = id[:k]
	}
	return id
}
