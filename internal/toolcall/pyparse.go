package toolcall

import (
	"strconv"
	"strings"
)

// pyMaxDepth bounds the nesting of literals, so that "[[[[…" cannot exhaust the stack.
const pyMaxDepth = 32

// pyParser reads Python call expressions, as Llama 3.2/4 (pythonic lists), Llama 3.3 after
// <|python_tag|> and Gemma (tool_code fences) write calls: NAME(key=value, …) with string,
// number, True/False/None, list, tuple and dict literals. Positional arguments make an
// expression code, not a call.
type pyParser struct {
	text  string
	pos   int
	open  bool // the text may go on past its end (a stream): running out is eof, not failure
	eof   bool // the text ended inside what was being read
	far   int  // the furthest a failed read got, where the scan resumes
	depth int
	calls []Call // read so far; the last is cut off when eof
}

// out reports that the text has run out, noting a cut-off stream.
func (p *pyParser) out() bool {
	if p.pos < len(p.text) {
		return false
	}
	p.eof = p.open
	return true
}

func (p *pyParser) space() {
	for p.pos < len(p.text) && isSpace(p.text[p.pos]) {
		p.pos++
	}
}

// at reports whether the next byte is c, consuming it if so.
func (p *pyParser) at(c byte) bool {
	if p.pos < len(p.text) && p.text[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

// list reads [call, call, …] at text[pos].
func (p *pyParser) list() bool {
	p.pos++ // '['
	for {
		p.space()
		if p.out() {
			return false
		}
		if len(p.calls) > 0 && p.at(']') {
			return true
		}
		if !p.call() {
			return false
		}
		p.space()
		if p.out() {
			return false
		}
		if p.at(']') {
			return true
		}
		if !p.at(',') {
			return false
		}
	}
}

// sequence reads calls one after another, apart by line breaks or semicolons: the whole
// text if whole (a tool_code fence), else as many as stand at its start, ending after the
// last of them.
func (p *pyParser) sequence(whole bool) bool {
	for end := p.pos; ; {
		p.space()
		if p.pos == len(p.text) && len(p.calls) > 0 {
			p.pos = end
			return true
		}
		if !p.call() {
			if p.eof || whole || len(p.calls) == 0 {
				return false
			}
			p.far, p.pos = max(p.far, p.pos), end
			return true
		}
		end = p.pos
		for p.pos < len(p.text) && (p.text[p.pos] == ' ' || p.text[p.pos] == '\t' || p.text[p.pos] == ';') {
			p.pos++
		}
	}
}

// call reads NAME(key=value, …). A dotted name keeps its last part (default_api.NAME,
// functions.NAME), or the one before a final .call (Llama's brave_search.call); print(…)
// around a call is Gemma's habit.
func (p *pyParser) call() bool {
	name, ok := p.dotted()
	if !ok {
		return false
	}
	for p.pos < len(p.text) && (p.text[p.pos] == ' ' || p.text[p.pos] == '\t') {
		p.pos++
	}
	if p.out() || !p.at('(') {
		return false
	}
	if name == "print" {
		p.space()
		if p.out() {
			return false
		}
		if p.text[p.pos] != ')' {
			if !p.call() {
				return false
			}
			p.space()
			return !p.out() && p.at(')')
		}
	}
	args := map[string]any{}
	p.calls = append(p.calls, Call{Name: name, Arguments: args})
	if !p.kwargs(args) {
		if !p.eof {
			p.calls = p.calls[:len(p.calls)-1]
		}
		return false
	}
	return true
}

func (p *pyParser) dotted() (string, bool) {
	var last, prev string
	for {
		start := p.pos
		for p.pos < len(p.text) && isIdentByte(p.text[p.pos]) {
			p.pos++
		}
		if p.out() || p.pos == start || isDigit(p.text[start]) {
			return "", false
		}
		prev, last = last, p.text[start:p.pos]
		if !p.at('.') {
			break
		}
	}
	if last == "call" && prev != "" {
		return prev, true
	}
	return last, true
}

func (p *pyParser) kwargs(args map[string]any) bool {
	for {
		p.space()
		if p.out() {
			return false
		}
		if p.at(')') {
			return true
		}
		start := p.pos
		for p.pos < len(p.text) && isIdentByte(p.text[p.pos]) {
			p.pos++
		}
		key := p.text[start:p.pos]
		p.space()
		if p.out() || key == "" || !p.at('=') {
			return false
		}
		p.space()
		v, ok := p.value()
		if !ok {
			return false
		}
		args[key] = v
		p.space()
		if p.out() {
			return false
		}
		if p.at(')') {
			return true
		}
		if !p.at(',') {
			return false
		}
	}
}

// value reads a literal, decoded the way encoding/json decodes JSON: strings, float64,
// bool, nil, []any and map[string]any.
func (p *pyParser) value() (any, bool) {
	if p.out() {
		return nil, false
	}
	t := p.text
	switch c := t[p.pos]; {
	case c == '"' || c == '\'':
		return p.str(false)
	case (c == 'r' || c == 'R') && p.pos+1 < len(t) && (t[p.pos+1] == '"' || t[p.pos+1] == '\''):
		p.pos++
		return p.str(true)
	case c == '[' || c == '(':
		return p.seq()
	case c == '{':
		return p.dict()
	case c == '-' || c == '+' || c == '.' || isDigit(c):
		return p.number()
	case isIdentByte(c):
		start := p.pos
		for p.pos < len(t) && isIdentByte(t[p.pos]) {
			p.pos++
		}
		if p.out() {
			return nil, false
		}
		switch t[start:p.pos] {
		case "True", "true":
			return true, true
		case "False", "false":
			return false, true
		case "None", "null":
			return nil, true
		}
	}
	return nil, false
}

// seq reads a list or a tuple.
func (p *pyParser) seq() (any, bool) {
	closing := byte(']')
	if p.text[p.pos] == '(' {
		closing = ')'
	}
	if p.depth++; p.depth > pyMaxDepth {
		return nil, false
	}
	defer func() { p.depth-- }()
	p.pos++
	list := []any{}
	for {
		p.space()
		if p.out() {
			return nil, false
		}
		if p.at(closing) {
			return list, true
		}
		v, ok := p.value()
		if !ok {
			return nil, false
		}
		list = append(list, v)
		p.space()
		if p.out() {
			return nil, false
		}
		if p.at(closing) {
			return list, true
		}
		if !p.at(',') {
			return nil, false
		}
	}
}

func (p *pyParser) dict() (any, bool) {
	if p.depth++; p.depth > pyMaxDepth {
		return nil, false
	}
	defer func() { p.depth-- }()
	p.pos++
	m := map[string]any{}
	for {
		p.space()
		if p.out() {
			return nil, false
		}
		if p.at('}') {
			return m, true
		}
		k, ok := p.value()
		key, isString := k.(string)
		if !ok || !isString {
			return nil, false
		}
		p.space()
		if p.out() || !p.at(':') {
			return nil, false
		}
		p.space()
		v, ok := p.value()
		if !ok {
			return nil, false
		}
		m[key] = v
		p.space()
		if p.out() {
			return nil, false
		}
		if p.at('}') {
			return m, true
		}
		if !p.at(',') {
			return nil, false
		}
	}
}

func (p *pyParser) number() (any, bool) {
	t := p.text
	start := p.pos
	if t[p.pos] == '-' || t[p.pos] == '+' {
		p.pos++
	}
	for p.pos < len(t) && (isDigit(t[p.pos]) || t[p.pos] == '.' || t[p.pos] == '_' || t[p.pos] == 'e' || t[p.pos] == 'E' ||
		(t[p.pos] == '-' || t[p.pos] == '+') && (t[p.pos-1] == 'e' || t[p.pos-1] == 'E')) {
		p.pos++
	}
	if p.out() { // the number may go on
		return nil, false
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(t[start:p.pos], "_", ""), 64)
	return f, err == nil
}

// str reads a quoted string, triple-quoted or not, with Python's escapes unless raw. A
// string in single quotes ends at its line: a quote left open there was prose.
func (p *pyParser) str(raw bool) (any, bool) {
	t := p.text
	q := t[p.pos]
	triple := strings.HasPrefix(t[p.pos:], string([]byte{q, q, q}))
	if triple {
		p.pos += 3
	} else {
		p.pos++
	}
	var b strings.Builder
	for {
		if p.out() {
			return nil, false
		}
		c := t[p.pos]
		switch {
		case c == q && !triple:
			p.pos++
			return b.String(), true
		case c == q && strings.HasPrefix(t[p.pos:], string([]byte{q, q, q})):
			p.pos += 3
			return b.String(), true
		case c == q && len(t)-p.pos < 3 && strings.Trim(t[p.pos:], string(q)) == "":
			p.pos = len(t) // the closing quotes may be arriving
			p.out()
			return nil, false
		case c == '\n' && !triple:
			return nil, false
		case c == '\\' && !raw:
			if p.pos+1 == len(t) {
				p.pos++
				p.out()
				return nil, false
			}
			p.escape(&b)
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
}

// escape copies the escape sequence at text[pos]; one Python does not know keeps its
// backslash.
func (p *pyParser) escape(b *strings.Builder) {
	t := p.text
	c := t[p.pos+1]
	p.pos += 2
	switch c {
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'r':
		b.WriteByte('\r')
	case '0':
		b.WriteByte(0)
	case '\\', '\'', '"':
		b.WriteByte(c)
	case '\n': // a line continued
	case 'x', 'u':
		n := 2
		if c == 'u' {
			n = 4
		}
		if r, err := strconv.ParseUint(t[p.pos:min(p.pos+n, len(t))], 16, 32); err == nil && p.pos+n <= len(t) {
			b.WriteRune(rune(r))
			p.pos += n
			return
		}
		b.WriteByte('\\')
		b.WriteByte(c)
	default:
		b.WriteByte('\\')
		b.WriteByte(c)
	}
}
