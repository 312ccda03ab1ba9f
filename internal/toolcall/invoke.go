package toolcall

import "strings"

// invoke reads <invoke name="NAME"><parameter name="K">V</parameter>…</invoke> at text[i]
// (MiniMax M2, Anthropic-style function_calls) into s.pending. It returns where the block
// ends, whether the text ended inside it and whether it was one.
func (s *scanner) invoke(i int) (end int, eof, ok bool) {
	t := s.text
	name, p, state := xmlAttr(t, i+len("<invoke"), "name")
	if state != attrOK {
		return p, state == attrEOF, false
	}
	c := Call{Name: name, Arguments: map[string]any{}, Dialect: DialectInvokeXML}
	for {
		p = skipSpace(t, p)
		switch {
		case strings.HasPrefix(t[p:], "</invoke>"):
			s.pending = append(s.pending, c)
			return p + len("</invoke>"), false, true
		case strings.HasPrefix("</invoke>", t[p:]):
			s.pending = append(s.pending, c)
			return len(t), true, true
		case strings.HasPrefix("<parameter", t[p:]):
			s.pending = append(s.pending, c)
			return len(t), true, true
		case !strings.HasPrefix(t[p:], "<parameter"):
			return p, false, false
		}
		key, v, state := xmlAttr(t, p+len("<parameter"), "name")
		if state != attrOK {
			if state == attrEOF {
				s.pending = append(s.pending, c)
			}
			return v, state == attrEOF, state == attrEOF
		}
		k := s.find("</parameter>", v)
		if k == len(t) {
			c.Arguments[key] = paramValue(t[v:], true)
			s.pending = append(s.pending, c)
			return len(t), true, true
		}
		c.Arguments[key] = paramValue(t[v:k], true)
		p = k + len("</parameter>")
	}
}

// bareInvoke reads an <invoke> block standing without its wrapper (known mode).
func (s *scanner) bareInvoke(i int) int {
	s.pending = s.pending[:0]
	end, eof, ok := s.invoke(i)
	switch {
	case eof:
		return s.takeTail(i)
	case !ok:
		s.reject()
		return max(end, i+1)
	}
	next, _ := s.take(i, end)
	return next
}

type attrState uint8

const (
	attrOK attrState = iota
	attrEOF
	attrBad
)

// xmlAttr reads ` attr="VALUE">` at text[p], the rest of a start tag with one attribute,
// returning VALUE and the end of the tag.
func xmlAttr(t string, p int, attr string) (string, int, attrState) {
	p = skipSpace(t, p)
	rest := t[p:]
	if !strings.HasPrefix(rest, attr+"=") {
		if strings.HasPrefix(attr+"=", rest) {
			return "", len(t), attrEOF
		}
		return "", p, attrBad
	}
	p += len(attr) + 1
	if p == len(t) {
		return "", p, attrEOF
	}
	q := t[p]
	if q != '"' && q != '\'' {
		return "", p, attrBad
	}
	k := strings.IndexByte(t[p+1:], q)
	if k < 0 {
		return "", len(t), attrEOF
	}
	value := t[p+1 : p+1+k]
	p = skipSpace(t, p+k+2)
	switch {
	case p == len(t):
		return "", p, attrEOF
	case t[p] != '>':
		return "", p, attrBad
	}
	return value, p + 1, attrOK
}
