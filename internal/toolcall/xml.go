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
