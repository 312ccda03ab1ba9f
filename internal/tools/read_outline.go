package tools

import (
	"bytes"
	"fmt"
	"strings"
)

// A read of part of a large file ends with an outline of the lines it did not show: where the
// functions, types and headings are, so that the model can read on at the one it needs
// (startLine) instead of reading the whole file part by part.

const (
	// readOutlineEntries bounds the outline: enough to find one's way in a big source file.
	readOutlineEntries = 40
	// readOutlineLineBytes cuts a long definition line in the outline.
	readOutlineLineBytes = 100
	// readOutlineBytes is how far into a file the outline looks: source files are smaller,
	// and in a log of gigabytes there is nothing to outline.
	readOutlineBytes = 4 << 20
)

// outlineKeywords start a definition in the common languages (Go, Python, JavaScript and
// TypeScript, Rust, Java, C#, Kotlin, Swift, Ruby, PHP), after any outlineModifiers.
var (
	outlineKeywords  = wordSet("func function function* def class interface type struct enum impl trait fn mod module namespace record object protocol extension")
	outlineModifiers = wordSet("export default async pub public private protected internal static abstract final override open sealed data extern unsafe")
)

func wordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// isDefinition reports whether a line starts a definition or is a Markdown heading. A
// definition may be indented a little (a method in a class), not deeply (code inside one).
// It reads the first words by hand: a regular expression costs too much on every line of a
// large file.
func isDefinition(line []byte) bool {
	indent, width := 0, 0
	for ; indent < len(line) && (line[indent] == ' ' || line[indent] == '\t'); indent++ {
		width++
		if line[indent] == '\t' {
			width += 3
		}
	}
	if width > 4 {
		return false
	}
	line = line[indent:]
	if hashes := len(line) - len(bytes.TrimLeft(line, "#")); hashes > 0 {
		return hashes <= 4 && indent == 0 && len(line) > hashes+1 && line[hashes] == ' ' && line[hashes+1] != ' '
	}
	for range 6 {
		end := 0
		for end < len(line) && (isWordByte(line[end]) || line[end] == '*') {
			end++
		}
		word, rest := line[:end], line[end:]
		if outlineKeywords[string(word)] {
			return len(rest) == 0 || rest[0] == ' ' || rest[0] == '(' || rest[0] == '<' || rest[0] == '{' || rest[0] == ':'
		}
		if !outlineModifiers[string(word)] {
			return false
		}
		if len(rest) > 0 && rest[0] == '(' { // pub(crate)
			if k := bytes.IndexByte(rest, ')'); k >= 0 {
				rest = rest[k+1:]
			}
		}
		line = bytes.TrimLeft(rest, " \t")
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// readOutline collects the definition lines of the parts of a file a read did not show.
type readOutline struct {
	entries []outlineEntry
	more    int // definitions found beyond readOutlineEntries
}

type outlineEntry struct {
	line int
	text string
}

// note takes the start of line number n (up to its "\n", or a fragment of it).
func (o *readOutline) note(n int, text []byte) {
	text = bytes.TrimRight(text, "\r\n")
	if !isDefinition(text) {
		return
	}
	if len(o.entries) == readOutlineEntries {
		o.more++
		return
	}
	o.entries = append(o.entries, outlineEntry{line: n, text: Clip(strings.ToValidUTF8(strings.TrimSpace(string(text)), "\uFFFD"), readOutlineLineBytes)})
}

// write adds the outline to a read's text, if it found anything.
func (o *readOutline) write(b *strings.Builder) {
	if len(o.entries) == 0 {
		return
	}
	b.WriteString("Outline of the lines not shown (line: definition):\n")
	for _, e := range o.entries {
		fmt.Fprintf(b, "%6d: %s\n", e.line, e.text)
	}
	if o.more > 0 {
		fmt.Fprintf(b, "(%d more not listed)\n", o.more)
	}
}
