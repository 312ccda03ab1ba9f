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
// Values stay strings: without the tool's schema there is no telling "12" the number from
// "12" the text. A body cut off by the end of the text keeps what arrived.
func xmlCall(body string) (Call, bool) {
	rest := body[len("<function="):]
	gt := strings.IndexByte(rest, '>')
	if gt < 0 {
		return Call{}, false
	}
	name := strings.TrimSpace(rest[:gt])
	if name == "" {
		return Call{}, false
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
		value := strings.TrimPrefix(rest[:end], "\n")
		value = strings.TrimSuffix(value, "\n")
		if key != "" {
			args[key] = value
		}
		rest = rest[end:]
	}
	return Call{Name: name, Arguments: args}, true
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
