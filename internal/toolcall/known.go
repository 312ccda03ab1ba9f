package toolcall

import (
	"encoding/json"
	"strings"
)

// newKnownScanner is the scanner of ExtractKnown and its companions: it decodes every unit,
// so that the names decide what is a call.
func newKnownScanner(text string, known func(string) bool) *scanner {
	if known == nil {
		known = func(string) bool { return false }
	}
	s := newScanner(text, true)
	s.known = known
	s.names = knownTagNames
	return s
}

// take settles a complete unit of markup, text[start:end], whose calls are s.pending. It
// returns where the scan resumes and whether the unit was taken. Extract takes every unit
// (a tag holding no call is still markup); known mode takes one whose every call names a
// known tool, with the closing tags and end-of-turn tokens right after it, and leaves any
// other as prose.
func (s *scanner) take(start, end int) (int, bool) {
	calls := s.pending
	s.pending = s.pending[:0]
	if s.known != nil {
		if len(calls) == 0 || !s.allKnown(calls) {
			s.prose()
			return end, false
		}
		s.units = append(s.units, span{start, end})
		end = s.trailer(end)
	}
	s.calls = append(s.calls, calls...)
	s.cut(start, end)
	return end, true
}

// takeTail settles a unit that the end of the text cut off: it is an unfinished call,
// unless in known mode a name in it is already complete and unknown, which makes it prose.
func (s *scanner) takeTail(start int) int {
	calls := s.pending
	s.pending = s.pending[:0]
	if s.known != nil {
		for _, c := range calls {
			if !s.known(c.Name) && nameComplete(s.text[start:], c.Name) {
				s.prose()
				return len(s.text)
			}
		}
		if !s.allKnown(calls) {
			calls = nil
		}
		s.units = append(s.units, span{start, len(s.text)})
	}
	s.calls = append(s.calls, calls...)
	return s.tail(start)
}

// reject drops the unit being read: it is prose after all.
func (s *scanner) reject() {
	s.pending = s.pending[:0]
	s.prose()
}

// argsCall reads the JSON arguments at text[p] of the call that s.pending ends with, in the
// unit opened at start, and settles the unit. Anything but an object there makes it prose.
func (s *scanner) argsCall(start, p int) int {
	t := s.text
	switch {
	case p == len(t):
		return s.takeTail(start)
	case t[p] != '{':
		s.reject()
		return p
	}
	r := scanJSON(t, p, modeTag, true)
	if m, ok := argsOf(r); ok {
		s.pending[len(s.pending)-1].Arguments = m
	}
	switch {
	case r.eof:
		return s.takeTail(start)
	case !r.ok:
		s.reject()
		return max(r.stop, p+1)
	}
	next, _ := s.take(start, r.end)
	return next
}

func (s *scanner) allKnown(calls []Call) bool {
	for _, c := range calls {
		if !s.known(c.Name) {
			return false
		}
	}
	return true
}

// nameComplete reports whether name, read from a unit cut off at the end of the text, is
// whole: something follows its last occurrence. A name running into the end of the text may
// still grow ("read" into "read_file").
func nameComplete(unit, name string) bool {
	k := strings.LastIndex(unit, name)
	return k >= 0 && k+len(name) < len(unit)
}

// endTokens end a model's turn or a tool-call section; right after a call they belong to it.
var endTokens = map[string]bool{
	"eot_id": true, "eom_id": true, "eot": true, "end": true, "call": true, "return": true,
	"im_end": true, "end_of_sentence": true, "python_end": true, "end_action": true,
	"tool_calls_end": true, "tool_calls_section_end": true,
}

// trailer extends a taken unit over the closing wrapper tags and end tokens right after it:
// the </tool_call> Qwen3-Coder leaves after a bare <function=…>, Llama's <|eom_id|>, gpt-oss's
// <|call|>.
func (s *scanner) trailer(end int) int {
	t := s.text
	for {
		k := skipSpace(t, end)
		if k == len(t) || t[k] != '<' {
			return end
		}
		if e, kind, _ := s.matchTag(k); kind == closeTag {
			end = e
			continue
		}
		if name, e, kind := readToken(t, k); kind == openTag && endTokens[name] {
			end = e
			continue
		}
		return end
	}
}

// jsonCalls reads the JSON after a marker that opened a unit at start (<|tool_call|>,
// functools, <|python_tag|>…) and settles the unit. With many, further values may follow
// after a ';', as Llama 3.x separates parallel calls.
func (s *scanner) jsonCalls(start, pos int, dialect string, many bool) int {
	t := s.text
	end := pos
	for {
		pos = skipSpace(t, pos)
		if pos == len(t) {
			return s.takeTail(start)
		}
		if t[pos] != '{' && t[pos] != '[' {
			break
		}
		r := scanJSON(t, pos, modeTag, true)
		calls, whole := decodeKnown(r, dialect)
		if r.eof {
			s.pending = append(s.pending, calls...)
			return s.takeTail(start)
		}
		if (!whole || !r.ok) && len(s.pending) > 0 {
			break // the calls end before a value that is not one
		}
		if !whole || !r.ok {
			s.prose()
			return max(r.stop, pos+1)
		}
		s.pending = append(s.pending, calls...)
		pos, end = r.end, r.end
		k := skipHSpace(t, pos)
		if !many || k == len(t) || t[k] != ';' {
			break
		}
		pos = k + 1
	}
	next, _ := s.take(start, end)
	return next
}

// decodeKnown reads a scanned value as calls in known mode: an object is one call, or an
// OpenAI {"tool_calls": […]} envelope; an array is a list of calls. whole reports that the
// value is nothing but calls: a list holding anything else is data.
func decodeKnown(r jsonScan, dialect string) (calls []Call, whole bool) {
	for _, b := range [...][]byte{r.fixed, r.fallback} {
		var v any
		if b == nil || json.Unmarshal(b, &v) != nil {
			continue
		}
		return callsOf(v, dialect)
	}
	return nil, false
}

func callsOf(v any, dialect string) ([]Call, bool) {
	switch v := v.(type) {
	case map[string]any:
		if list, ok := v["tool_calls"].([]any); ok {
			return callList(list, DialectOpenAIEnvelope)
		}
		c, ok := knownCall(v)
		if !ok {
			return nil, false
		}
		c.Dialect = dialect
		return []Call{c}, true
	case []any:
		return callList(v, dialect)
	}
	return nil, false
}

func callList(list []any, dialect string) ([]Call, bool) {
	calls := make([]Call, 0, len(list))
	for _, e := range list {
		m, _ := e.(map[string]any)
		c, ok := knownCall(m)
		if !ok {
			return nil, false
		}
		c.Dialect = dialect
		calls = append(calls, c)
	}
	return calls, len(calls) > 0
}

// knownCall reads a call object as toCall does, but without demanding an arguments key: the
// known name is what tells a call from data. Command-R names the tool "tool_name". A tool's
// definition echoed back ({"name": …, "description": …, "parameters": {"type": "object", …}})
// is not a call: one with a description beside its name, or a JSON schema for arguments.
func knownCall(m map[string]any) (Call, bool) {
	if m == nil || isDefinition(m) {
		return Call{}, false
	}
	if name, ok := m["tool_name"]; ok && m["name"] == nil {
		m["name"] = name
		delete(m, "tool_name")
	}
	return toCall(m, false)
}

func isDefinition(m map[string]any) bool {
	if fn, ok := m["function"].(map[string]any); ok && isDefinition(fn) {
		return true
	}
	if _, ok := m["description"]; ok {
		return true
	}
	schema, _ := m[firstKey(m, argKeys)].(map[string]any)
	_, props := schema["properties"]
	return props && schema["type"] == "object"
}

// definition reports whether a value cut off by the end of the text is already, in what
// arrived, a tool's definition rather than a call.
func definition(r jsonScan) bool {
	for _, b := range [...][]byte{r.fixed, r.fallback} {
		var m map[string]any
		if b != nil && json.Unmarshal(b, &m) == nil {
			return isDefinition(m)
		}
	}
	return false
}

// argsOf decodes a scanned JSON object as arguments.
func argsOf(r jsonScan) (map[string]any, bool) {
	for _, b := range [...][]byte{r.fixed, r.fallback} {
		var m map[string]any
		if b != nil && json.Unmarshal(b, &m) == nil && m != nil {
			return m, true
		}
	}
	return nil, false
}
