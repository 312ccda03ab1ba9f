package toolcall

import "strings"

// fence is the Markdown code fence the scan is inside, if any.
type fence struct {
	open   bool
	start  int // start of the line that opened it
	ticks  int
	json   bool // its info string ("", json…) lets a bare call stand inside
	markup bool // something was cut from inside it
	other  bool // it holds something besides whitespace and cut markup
}

// fenceLine handles a line starting at text[i] that opens or closes a code fence (or may be
// starting to), returning the end of the line.
func (s *scanner) fenceLine(i int) (int, bool) {
	t := s.text
	j := skipHSpace(t, i)
	n := countTicks(t, j)
	if n == 0 {
		return 0, false
	}
	eol := len(t)
	if k := strings.IndexByte(t[j+n:], '\n'); k >= 0 {
		eol = j + n + k
	}
	if k := strings.IndexByte(t[j+n:eol], '<'); k >= 0 {
		eol = j + n + k // "```json<tool_call>": the call starts on the fence's line
	}
	info := strings.TrimSpace(t[j+n : eol])
	last := eol == len(t) // the line may still be arriving
	f := &s.fence
	switch {
	case f.open && info == "" && n >= f.ticks:
		if f.markup && !f.other {
			s.cut(f.start, eol)
		}
		*f = fence{}
		return eol, true
	case f.open && info == "" && last: // a closing fence on its way
		return eol, true
	case f.open:
		return 0, false
	case s.known != nil && n >= 3 && strings.EqualFold(info, "tool_code"):
		if next, ok := s.toolCode(i, eol); ok {
			return next, true
		}
	case s.known != nil && n >= 3 && last && info != "" && hasPrefixFold("tool_code", info):
		return s.tail(i), true
	}
	switch {
	case n >= 3 && !strings.Contains(info, "`"):
		*f = fence{open: true, start: i, ticks: n, json: jsonLang(info, last)}
		return eol, true
	case last && jsonLang(info, true):
		return s.tail(i), true
	}
	return 0, false
}

// toolCode reads a ```tool_code fence opened by the line text[i:eol] (known mode): Gemma
// writes its calls there, print(default_api.NAME(k="v")) or NAME(k="v"), one per line. A
// fence holding anything else is left to be an ordinary fence.
func (s *scanner) toolCode(i, eol int) (int, bool) {
	t := s.text
	if eol == len(t) {
		return s.tail(i), true
	}
	closing := nextFenceLine(t, eol)
	bodyEnd := closing
	if k := strings.LastIndexByte(t, '\n'); closing == len(t) && k >= eol && strings.Trim(t[k+1:], " `") == "" {
		bodyEnd = k + 1 // the closing fence is arriving
	}
	p := pyParser{text: t[:bodyEnd], pos: eol + 1, open: bodyEnd == len(t)}
	ok := p.sequence(true)
	for k := range p.calls {
		p.calls[k].Dialect = DialectGemmaToolCode
	}
	s.pending = p.calls
	if closing == len(t) {
		if p.eof || ok { // the fence is still open: more calls or its end may come
			return s.takeTail(i), true
		}
		s.pending = s.pending[:0]
		return 0, false
	}
	if !ok {
		s.pending = s.pending[:0]
		return 0, false
	}
	end := len(t)
	if k := strings.IndexByte(t[closing:], '\n'); k >= 0 {
		end = closing + k
	}
	next, taken := s.take(i, end)
	return next, taken
}

// endFence settles a fence still open at the end of the text: one that held only calls,
// or nothing yet where a call may come, is an unfinished call.
func (s *scanner) endFence() {
	if f := s.fence; f.open && !f.other && (f.markup || f.json) {
		s.tail(f.start)
	}
}

// jsonLang reports whether a fence's info string lets a bare call stand inside; with
// partial, also whether it may still grow into one that does.
func jsonLang(info string, partial bool) bool {
	lang, _, _ := strings.Cut(info, " ")
	for _, l := range [...]string{"", "json", "jsonc", "json5", "tool_call", "toolcall"} {
		if strings.EqualFold(lang, l) || partial && hasPrefixFold(l, lang) {
			return true
		}
	}
	return false
}

// nextFenceLine returns the start of the first line after text[from] that opens or closes
// a code fence, or len(text).
func nextFenceLine(text string, from int) int {
	for {
		k := strings.IndexByte(text[from:], '\n')
		if k < 0 {
			return len(text)
		}
		if from += k + 1; fenceAt(text, from) {
			return from
		}
	}
}

// fenceAt reports whether a line opening a code fence starts at text[i].
func fenceAt(text string, i int) bool {
	return countTicks(text, skipHSpace(text, i)) >= 3
}

func countTicks(text string, i int) int {
	n := 0
	for i+n < len(text) && text[i+n] == '`' {
		n++
	}
	return n
}
