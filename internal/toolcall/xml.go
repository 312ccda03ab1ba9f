package toolcall

import "strings"

// xmlCall reads the body Qwen3-Coder writes inside <tool_call> instead of JSON:
//
//	<function=NAME>
//	<parameter=KEY>
//	VALUE
//	</parameter>
//	</function>
//
// Extract keeps the values as strings: without the tool's schema there is no telling "12"
// the number from "12" the text. Known mode (typed) converts them as typedValue says, and
// also reads Llama 3.1's <function=NAME>{…}</function>. A body cut off by the end of the
// text keeps what arrived.
func xmlCall(body string, typed bool) (Call, bool) {
	rest := body[len("<function="):]
	gt := strings.IndexByte(rest, '>')
	if gt < 0 {
		return Call{}, false
	}
	name := strings.TrimSpace(rest[:gt])
	if name == "" {
		return Call{}, false
	}
	if j := skipSpace(rest, gt+1); typed && j < len(rest) && rest[j] == '{' {
		args, ok := argsOf(scanJSON(rest, j, modeTag, true))
		if !ok {
			args = map[string]any{}
		}
		return Call{Name: name, Arguments: args, Dialect: DialectLlamaFunction}, true
	}
	args := map[string]any{}
	for rest = rest[gt+1:]; ; {
		p := strings.Index(rest, "<parameter=")
		if p < 0 {
			break
		}
		rest = rest[p+len("<parameter="):]
		gt := strings.IndexByte(rest, '>')
		if gt < 0 {
			break
		}
		key := strings.TrimSpace(rest[:gt])
		rest = rest[gt+1:]
		end := xmlValueEnd(rest)
		if key != "" {
			args[key] = paramValue(rest[:end], typed)
		}
		rest = rest[end:]
	}
	return Call{Name: name, Arguments: args, Dialect: DialectQwen3Coder}, true
}

// paramValue is a parameter's value as written between its tags, less the line break the
// format puts after the opening tag and before the closing one.
func paramValue(raw string, typed bool) any {
	v := strings.TrimSuffix(strings.TrimPrefix(raw, "\n"), "\n")
	if typed {
		return typedValue(v)
	}
	return v
}

// xmlValueEnd finds where a parameter value ends: at its closing tag or, when the model
// left that out, at the next parameter or the end of the function.
func xmlValueEnd(s string) int {
	for from := 0; ; {
		k := strings.IndexByte(s[from:], '<')
		if k < 0 {
			return len(s)
		}
		at := s[from+k:]
		if strings.HasPrefix(at, "</parameter>") || strings.HasPrefix(at, "<parameter=") ||
			strings.HasPrefix(at, "</function>") {
			return from + k
		}
		from += k + 1
	}
}

// function reads a <function=NAME>…</function> block standing without a wrapper (known
// mode): Qwen3-Coder often leaves out the opening <tool_call> (and keeps the closing one,
// which trailer takes), and Llama 3.1 writes <function=NAME>{…}</function> bare. The block
// ends at </function>, or without one at the next <function=.
func (s *scanner) function(i int) int {
	t := s.text
	closing := s.find("</function>", i)
	bodyEnd := min(closing, s.find("<function=", i+1))
	if c, ok := xmlCall(t[i:bodyEnd], true); ok {
		s.pending = []Call{c}
	}
	if bodyEnd == len(t) {
		return s.takeTail(i)
	}
	end := bodyEnd
	if closing == bodyEnd {
		end += len("</function>")
	}
	next, _ := s.take(i, end)
	return next
}

// glm reads GLM-4.5's body inside <tool_call> (known mode), from text[pos]: the tool's name,
// then <arg_key>K</arg_key><arg_value>V</arg_value> pairs, up to </tool_call>.
func (s *scanner) glm(i, pos int) int {
	t := s.text
	k := pos
	for k < len(t) && t[k] != '<' && t[k] != '\n' {
		k++
	}
	args := map[string]any{}
	s.pending = []Call{{Name: strings.TrimSpace(t[pos:k]), Arguments: args, Dialect: DialectGLM}}
	for {
		key, v, state := s.element(skipSpace(t, k), "arg_key")
		if state == attrOK {
			var value string
			value, v, state = s.element(skipSpace(t, v), "arg_value")
			if state == attrOK {
				args[strings.TrimSpace(key)] = typedValue(value)
				k = v
				continue
			}
		}
		if state == attrEOF {
			return s.takeTail(i)
		}
		break
	}
	p := skipSpace(t, k)
	if p == len(t) {
		return s.takeTail(i) // more may come
	}
	switch e, kind, _ := s.matchTag(p); kind {
	case tagPrefix:
		return s.takeTail(i)
	case closeTag:
		next, _ := s.take(i, e)
		return next
	}
	next, _ := s.take(i, k)
	return max(next, p)
}

// element reads <tag>VALUE</tag> at text[p], returning VALUE and where the element ends.
func (s *scanner) element(p int, tag string) (value string, end int, state attrState) {
	open := "<" + tag + ">"
	switch {
	case strings.HasPrefix(open, s.text[p:]):
		return "", len(s.text), attrEOF
	case !strings.HasPrefix(s.text[p:], open):
		return "", p, attrBad
	}
	k := s.find("</"+tag+">", p)
	if k == len(s.text) {
		return "", k, attrEOF
	}
	return s.text[p+len(open) : k], k + len(tag) + 3, attrOK
}

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
