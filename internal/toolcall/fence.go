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
	case n >= 3 && !strings.Contains(info, "`"):
		*f = fence{open: true, start: i, ticks: n, json: jsonLang(info, last)}
		return eol, true
	case last && jsonLang(info, true):
		return s.tail(i), true
	}
	return 0, false
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
