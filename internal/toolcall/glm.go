package toolcall

import "strings"

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
