package toolcall

import "strings"

// jsonMode says where a JSON value stands, which decides how far a broken one may run on.
type jsonMode uint8

const (
	// modeTag is a value inside a <tool_call> tag: its strings may span lines and hold
	// anything, the closing tag included, because the model is writing file contents there.
	modeTag jsonMode = iota
	// modeFence is a bare value in a code fence: a line opening with ``` or a tool-call tag
	// ends it even inside a string, so a broken value cannot swallow what follows the fence.
	modeFence
	// modeProse is a bare value in running text: on top of that, no string may span lines,
	// so a stray quote cannot swallow the prose after it.
	modeProse
)

// What the reader expects next.
const (
	wantValue = iota
	wantKey
	wantColon
	wantComma // a comma or the closing bracket of the open container
)

// jsonScan is the outcome of reading one JSON object or array.
type jsonScan struct {
	end    int  // just past the last byte of the value that was read
	stop   int  // where reading stopped: end if the value closed, else the offending byte or len(text)
	closed bool // every bracket was closed
	eof    bool // the text ended inside the value
	// ok reports a value that is whole or can be made whole without guessing at content: a
	// cut-off one, or one that lacks only closing brackets before something else starts.
	ok bool
	// fixed and fallback are what to decode, first one then the other (either may be nil).
	// fixed has trailing commas dropped, raw control characters and stray backslashes and
	// quotes escaped, and anything left open closed. fallback, for a cut-off value, ends at
	// the last complete element instead, for when the cut fell somewhere closing cannot
	// mend (inside a key, after a colon).
	fixed, fallback []byte
}

// jsonReader is the state of scanJSON.
type jsonReader struct {
	text   string
	mode   jsonMode
	fix    bool
	out    []byte
	stack  []byte // the open brackets
	want   int
	safe   int  // len(out) after the last complete element or opening bracket
	comma  bool // a comma was read but not written yet: dropped if a bracket closes next
	last   int  // just past the last byte read that was not whitespace
	failed bool
}

// scanJSON reads the object or array starting at text[start], leniently: trailing commas,
// raw newlines in strings, unescaped quotes inside strings and invalid escapes are tolerated.
// Only fix=true produces the bytes to decode; DetectPartial needs just the extent.
func scanJSON(text string, start int, mode jsonMode, fix bool) jsonScan {
	r := jsonReader{text: text, mode: mode, fix: fix}
	i := start
	for i < len(text) && !r.failed {
		c := text[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		case '"':
			if r.want != wantValue && r.want != wantKey {
				r.failed = true
				continue
			}
			key := r.want == wantKey
			r.flushComma()
			next, done := r.str(i)
			if !done {
				if next < len(text) {
					// The string ran into something it cannot hold: not JSON after all.
					return jsonScan{end: r.last, stop: next}
				}
				return r.atEOF(true, key, false)
			}
			i, r.last = next, next
			if key {
				r.want = wantColon
			} else {
				r.valueDone()
			}
			continue
		case '{', '[':
			if r.want != wantValue {
				r.failed = true
				continue
			}
			r.flushComma()
			r.put(c)
			r.stack = append(r.stack, c)
			r.want = wantValue
			if c == '{' {
				r.want = wantKey
			}
			r.safe = len(r.out)
		case '}', ']':
			open := byte('[')
			if c == '}' {
				open = '{'
			}
			empty := r.want == wantKey && c == '}' || r.want == wantValue && c == ']'
			if len(r.stack) == 0 || r.stack[len(r.stack)-1] != open || r.want != wantComma && !empty {
				r.failed = true
				continue
			}
			r.comma = false
			r.put(c)
			r.stack = r.stack[:len(r.stack)-1]
			if len(r.stack) == 0 {
				return jsonScan{end: i + 1, stop: i + 1, closed: true, ok: true, fixed: r.out}
			}
			r.valueDone()
		case ':':
			if r.want != wantColon {
				r.failed = true
				continue
			}
			r.put(c)
			r.want = wantValue
		case ',':
			if r.want != wantComma {
				r.failed = true
				continue
			}
			r.comma = true
			r.want = wantValue
			if r.stack[len(r.stack)-1] == '{' {
				r.want = wantKey
			}
		default:
			j := i
			for j < len(text) && isLiteralByte(text[j]) {
				j++
			}
			lit := text[i:j]
			if r.want != wantValue || lit == "" || !isLiteral(lit, j == len(text)) {
				r.failed = true
				continue
			}
			r.flushComma()
			r.puts(lit)
			if j == len(text) {
				// "tru" or "12" may be cut short; the fallback drops it if closing cannot mend it.
				return r.atEOF(false, false, true)
			}
			i, r.last = j, j
			r.valueDone()
			continue
		}
		i++
		r.last = i
	}
	if !r.failed {
		return r.atEOF(false, false, false)
	}
	s := jsonScan{end: r.last, stop: i}
	// Missing closing brackets before the next thing starts (a tag, a fence, another value,
	// a new line of prose) are mended, but nothing that needs a guess at what a value meant.
	next := text[i]
	if r.want == wantComma && (next == '<' || next == '`' || next == '{' || next == '[' ||
		strings.IndexByte(text[r.last:i], '\n') >= 0) {
		s.ok = true
		if r.fix {
			s.fixed = r.closeAll(r.out)
		}
	}
	return s
}

// atEOF finishes a value the text cut off, inside a string if inString (a key if key), or
// right after a literal that may itself be cut short if literal.
func (r *jsonReader) atEOF(inString, key, literal bool) jsonScan {
	s := jsonScan{end: len(r.text), stop: len(r.text), eof: true, ok: true}
	if !r.fix {
		return s
	}
	switch {
	case inString && !key:
		s.fixed = r.closeAll(append(r.out, '"'))
	case literal || r.want == wantComma:
		s.fixed = r.closeAll(r.out)
	}
	// Closing anywhere else would leave a key without a value or a dangling colon.
	s.fallback = r.closeAll(r.out[:r.safe])
	return s
}

func (r *jsonReader) closeAll(b []byte) []byte {
	out := make([]byte, len(b), len(b)+len(r.stack))
	copy(out, b)
	for k := len(r.stack) - 1; k >= 0; k-- {
		out = append(out, r.stack[k]+2) // '{'+2 == '}', '['+2 == ']'
	}
	return out
}

func (r *jsonReader) valueDone() {
	r.want = wantComma
	r.safe = len(r.out)
}

func (r *jsonReader) flushComma() {
	if r.comma {
		r.put(',')
		r.comma = false
	}
}

func (r *jsonReader) put(c byte) {
	if r.fix {
		r.out = append(r.out, c)
	}
}

func (r *jsonReader) puts(s string) {
	if r.fix {
		r.out = append(r.out, s...)
	}
}

// str reads the string whose opening quote is at text[i]. It returns just past the closing
// quote and true, or where it had to stop and false: len(text) if the text ended inside it.
func (r *jsonReader) str(i int) (int, bool) {
	t := r.text
	r.put('"')
	for i++; i < len(t); {
		switch c := t[i]; {
		case c == '"':
			if r.closesString(i + 1) {
				r.put('"')
				return i + 1, true
			}
			// A quote in the middle of the text (lang="en") that the model forgot to escape.
			r.puts(`\"`)
			i++
		case c == '\\':
			i = r.escape(i)
		case c < 0x20:
			if c == '\n' && (r.mode == modeProse || r.mode == modeFence && fenceAt(t, i+1)) {
				return i, false
			}
			r.control(c)
			i++
		case c == '<' && r.mode != modeTag && isTagAt(t, i):
			return i, false
		default:
			j := i + 1
			for j < len(t) && plainInString[t[j]] {
				j++
			}
			r.puts(t[i:j])
			i = j
		}
	}
	return len(t), false
}

// closesString reports whether a quote followed by text[i:] ends its string: only what can
// follow a string in JSON, or the end of the text or of the call, may come next. A quote
// after a space is taken for the next string of a list missing its comma.
func (r *jsonReader) closesString(i int) bool {
	j := skipSpace(r.text, i)
	if j == len(r.text) {
		return true
	}
	switch r.text[j] {
	case ',', '}', ']', ':':
		return true
	case '"':
		return j > i
	case '<':
		return isTagAt(r.text, j)
	}
	return false
}

// escape copies the escape sequence at text[i] and returns where it ends. Sequences JSON does
// not know (C:\Users, \') keep their characters; one cut off by the end of the text is dropped.
func (r *jsonReader) escape(i int) int {
	t := r.text
	if i+1 == len(t) {
		return len(t)
	}
	switch c := t[i+1]; c {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		r.puts(t[i : i+2])
		return i + 2
	case '\'':
		r.put('\'')
		return i + 2
	case 'u':
		hex := t[i+2 : min(i+6, len(t))]
		k := 0
		for k < len(hex) && isHex(hex[k]) {
			k++
		}
		if k == 4 {
			r.puts(t[i : i+6])
			return i + 6
		}
		if k == len(hex) {
			return len(t)
		}
	}
	r.puts(`\\`)
	return i + 1
}

func (r *jsonReader) control(c byte) {
	switch c {
	case '\n':
		r.puts(`\n`)
	case '\r':
		r.puts(`\r`)
	case '\t':
		r.puts(`\t`)
	default:
		const hex = "0123456789abcdef"
		r.puts(`\u00`)
		r.put(hex[c>>4])
		r.put(hex[c&15])
	}
}

// plainInString marks the bytes str copies without a second look.
var plainInString = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\' && c != '<'
	}
	return t
}()

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isLiteralByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '+'
}

// isLiteral accepts true, false, null and number-like runs (the decoder checks numbers), or
// any start of them when the text ended there.
func isLiteral(s string, cut bool) bool {
	for _, word := range [...]string{"true", "false", "null"} {
		if s == word || cut && len(s) < len(word) && word[:len(s)] == s {
			return true
		}
	}
	if s[0] != '-' && (s[0] < '0' || s[0] > '9') {
		return false
	}
	for k := range len(s) {
		if c := s[k]; (c < '0' || c > '9') && c != '.' && c != '-' && c != '+' && c != 'e' && c != 'E' {
			return false
		}
	}
	return true
}
