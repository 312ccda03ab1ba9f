package toolcall

import "strings"

// Special tokens are written <|name|>, or by DeepSeek <｜name｜> with fullwidth bars and ▁
// between words. Models' templates use them to mark calls; when the runtime does not parse
// the call, they reach the text.
const (
	fullBar  = "｜" // U+FF5C
	lowLine  = "▁" // U+2581
	tokenMax = 48  // longer names are not tokens
)

// readToken reads the special token that may start at text[i] ('<'). name is lower case
// with _ between words, so that DeepSeek's <｜tool▁call▁begin｜> and Kimi's
// <|tool_call_begin|> read alike. kind is openTag for a whole token, tagPrefix when the text
// ends partway through what may still become one.
func readToken(text string, i int) (name string, end int, kind tagKind) {
	j := i + 1
	w, ok := tokenBar(text, j)
	if !ok {
		if strings.HasPrefix(fullBar, text[j:]) { // "<", or "<" and part of a fullwidth bar
			return "", len(text), tagPrefix
		}
		return "", 0, notTag
	}
	var b [tokenMax]byte
	n := 0
	for j += w; ; {
		if j == len(text) {
			return "", len(text), tagPrefix
		}
		c := text[j]
		if isLetter(c) || isDigit(c) || c == '_' || strings.HasPrefix(text[j:], lowLine) {
			if n == tokenMax {
				return "", 0, notTag
			}
			if c == lowLine[0] {
				c, j = '_', j+len(lowLine)-1
			}
			b[n] = lower(c)
			n, j = n+1, j+1
			continue
		}
		if strings.HasPrefix(lowLine, text[j:]) || strings.HasPrefix(fullBar, text[j:]) {
			return "", len(text), tagPrefix // a multi-byte character cut off
		}
		w, ok := tokenBar(text, j)
		switch {
		case !ok || n == 0:
			return "", 0, notTag
		case j+w == len(text):
			return "", len(text), tagPrefix
		case text[j+w] != '>':
			return "", 0, notTag
		}
		return string(b[:n]), j + w + 1, openTag
	}
}

func tokenBar(text string, j int) (int, bool) {
	switch {
	case j < len(text) && text[j] == '|':
		return 1, true
	case strings.HasPrefix(text[j:], fullBar):
		return len(fullBar), true
	}
	return 0, false
}

// token handles a special token at text[i] in known mode: the ones that open a call, and
// the ones that open reasoning. Any other token is prose.
func (s *scanner) token(i int) (int, bool) {
	name, end, kind := readToken(s.text, i)
	switch {
	case kind == tagPrefix:
		return s.tail(i), true
	case kind != openTag:
		return 0, false
	}
	switch name {
	case "python_tag", "python_start": // Llama 3.x, Llama 4
		return s.pythonTag(i, end)
	case "tool_call": // Granite 3.0
		return s.jsonCalls(i, end, DialectGranite, false), true
	case "start_action": // Command A
		return s.jsonCalls(i, end, DialectCommandR, false), true
	case "tool_calls_begin", "tool_calls_section_begin", "tool_call_begin": // DeepSeek, Kimi
		return s.section(i, end, name), true
	case "start", "channel": // gpt-oss harmony
		return s.harmony(i, end)
	case "start_thinking": // Command A's reasoning
		s.prose()
		return min(len(s.text), s.find("<|END_THINKING|>", end)+len("<|END_THINKING|>")), true
	}
	return 0, false
}
