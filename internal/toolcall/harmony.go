package toolcall

import "strings"

// harmonyHeaderMax bounds a harmony message header.
const harmonyHeaderMax = 256

// harmony reads a gpt-oss message header opened at text[i] by <|start|> or <|channel|>
// (ending at pos), as it leaks into the content when the runtime does not parse harmony:
//
//	<|start|>assistant<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>
//
// The header runs on one line to <|message|>; its recipient (to=) names the tool. A header
// without one opens a message of prose, or in the analysis channel the model's reasoning.
func (s *scanner) harmony(i, pos int) (int, bool) {
	t := s.text
	limit := min(len(t), pos+harmonyHeaderMax)
	for k := pos; k < limit; k++ {
		switch t[k] {
		case '\n':
			return 0, false
		case '<':
			name, e, kind := readToken(t, k)
			switch {
			case kind == tagPrefix:
				return s.takeTail(i), true
			case kind == openTag && name == "message":
				return s.harmonyCall(i, t[pos:k], e), true
			}
		}
	}
	if limit == len(t) {
		return s.takeTail(i), true // the header is still arriving
	}
	return 0, false
}

// harmonyCall reads the message after a header: the call's JSON arguments when the header
// names a recipient.
func (s *scanner) harmonyCall(i int, header string, pos int) int {
	t := s.text
	at := strings.Index(header, "to=")
	if at < 0 {
		s.prose()
		if strings.Contains(header, "analysis") { // reasoning, as in <think>
			return min(len(t), s.find("<|end|>", pos)+len("<|end|>"))
		}
		return pos
	}
	name := header[at+len("to="):]
	if k := strings.IndexAny(name, " <\"\t"); k >= 0 {
		name = name[:k]
	}
	name = strings.TrimPrefix(name, "functions.")
	// gpt-oss sometimes glues the constraint to the name: to=functions.shelljson.
	if base, ok := strings.CutSuffix(name, "json"); ok && !s.known(name) && s.known(base) {
		name = base
	}
	s.pending = append(s.pending[:0], Call{Name: name, Arguments: map[string]any{}, Dialect: DialectHarmony})
	return s.argsCall(i, skipSpace(t, pos))
}
