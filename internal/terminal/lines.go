package terminal

import (
	"bytes"
	"fmt"
	"strings"
)

const (
	headLines    = 15
	tailLines    = 85
	maxLineChars = 500
)

// TruncateForModel cuts text to what the model gets: lines longer than 500 characters are cut
// with "…[+N chars]", and of more than 100 lines only the first 15 and the last 85 are kept
// around a "[N lines truncated]" marker. It also returns how many lines text had. Text is meant
// to be StripANSI's output; a lone CR in it would still rewind its line.
func TruncateForModel(text string) (string, int) {
	var k keeper
	lines := lineBuilder{max: maxLineChars, emit: k.add}
	lines.write([]byte(text))
	lines.end()
	return k.String(), k.total
}

// lineBuilder splits a stream into lines as a terminal would show them. It keeps only the first
// max characters of a line and counts the rest, so a megabyte without a newline costs no more
// than a short line.
type lineBuilder struct {
	max int // characters kept per line; 0 keeps them all
	// emit receives each line, how many characters were cut from it, and whether a newline
	// ended it (only the last line may lack one). line is reused after emit returns.
	emit   func(line []byte, cut int, ended bool)
	line   []byte
	chars  int
	cut    int
	rewind bool // a lone CR came: the next character starts the line afresh
}

func (b *lineBuilder) write(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexAny(p, "\r\n")
		if i < 0 {
			b.add(p)
			return
		}
		b.add(p[:i])
		if p[i] == '\n' {
			b.flush(true)
		} else {
			b.rewind = true
		}
		p = p[i+1:]
	}
}

// end emits the last line if the stream did not end with a newline.
func (b *lineBuilder) end() {
	if len(b.line) > 0 || b.cut > 0 {
		b.flush(false)
	}
}

func (b *lineBuilder) add(p []byte) {
	if len(p) == 0 {
		return
	}
	if b.rewind {
		b.line, b.chars, b.cut, b.rewind = b.line[:0], 0, 0, false
	}
	if b.max == 0 {
		b.line = append(b.line, p...)
		return
	}
	for i, c := range p {
		starts := c&0xc0 != 0x80 // not a UTF-8 continuation byte
		if b.cut > 0 || starts && b.chars == b.max {
			b.cut += countChars(p[i:])
			return
		}
		if starts {
			b.chars++
		}
		b.line = append(b.line, c)
	}
}

func (b *lineBuilder) flush(ended bool) {
	b.emit(b.line, b.cut, ended)
	b.line, b.chars, b.cut, b.rewind = b.line[:0], 0, 0, false
}

// countChars counts UTF-8 characters by their first bytes, so that a character split between
// two writes is counted once.
func countChars(p []byte) int {
	n := 0
	for _, c := range p {
		if c&0xc0 != 0x80 {
			n++
		}
	}
	return n
}

// keeper holds the first headLines lines and a ring of the last tailLines, reusing the ring's
// buffers so that millions of lines allocate nothing once it is full.
type keeper struct {
	head  []string
	tail  [tailLines][]byte
	next  int // ring slot for the next line
	total int
}

func (k *keeper) add(line []byte, cut int, _ bool) {
	k.total++
	if len(k.head) < headLines {
		k.head = append(k.head, string(appendLine(nil, line, cut)))
		return
	}
	k.tail[k.next] = appendLine(k.tail[k.next][:0], line, cut)
	k.next = (k.next + 1) % tailLines
}

func appendLine(dst, line []byte, cut int) []byte {
	dst = append(dst, line...)
	if cut > 0 {
		dst = fmt.Appendf(dst, "…[+%d chars]", cut)
	}
	return dst
}

func (k *keeper) String() string {
	lines := append([]string(nil), k.head...)
	inTail := k.total - len(k.head)
	if inTail > tailLines {
		lines = append(lines, fmt.Sprintf("[%d lines truncated]", inTail-tailLines))
		inTail = tailLines
	}
	for i := range inTail {
		lines = append(lines, string(k.tail[(k.next-inTail+i+tailLines)%tailLines]))
	}
	return strings.Join(lines, "\n")
}
