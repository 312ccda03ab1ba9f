package lsp

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Pos is a place in a file as people and models count: Line and Char 1-based, Char in
// characters (not bytes, not UTF-16 units).
type Pos struct {
	Line, Char int
}

// Where is how a tool call names a place: a symbol's name (nearest to Line when given, exact
// case first), or Line and Char, or Line alone (its first non-blank character). Reference 001,
// "Shared Position Resolution": models name symbols better than they count columns.
type Where struct {
	Symbol string
	Line   int
	Char   int
}

// Resolve finds where w points in text. An error is worded for the model to correct its call.
func (w Where) Resolve(text string) (Pos, error) {
	lines := strings.Split(text, "\n")
	switch {
	case strings.TrimSpace(w.Symbol) != "":
		return findSymbol(lines, strings.TrimSpace(w.Symbol), w.Line)
	case w.Line > 0:
		if w.Line > len(lines) {
			return Pos{}, fmt.Errorf("line %d is past the end of the file, which has %d lines", w.Line, len(lines))
		}
		line := lines[w.Line-1]
		if w.Char > 0 {
			if n := utf8.RuneCountInString(line); w.Char > n+1 {
				return Pos{}, fmt.Errorf("character %d is past the end of line %d, which has %d characters", w.Char, w.Line, n)
			}
			return Pos{Line: w.Line, Char: w.Char}, nil
		}
		indent := len(line) - len(strings.TrimLeft(line, " \t"))
		return Pos{Line: w.Line, Char: utf8.RuneCountInString(line[:indent]) + 1}, nil
	}
	return Pos{}, fmt.Errorf("give symbolName (a function, type or variable name in the file), or line and character")
}

// findSymbol finds name as a whole identifier: a qualified name (Server.Start) points at its
// last part where the whole appears, else at the last part alone. Exact case first, then any.
func findSymbol(lines []string, name string, near int) (Pos, error) {
	last := name
	if i := strings.LastIndexAny(name, ".:"); i >= 0 && i+1 < len(name) {
		last = name[i+1:]
	}
	for _, try := range []struct {
		needle string
		fold   bool
	}{{name, false}, {last, false}, {name, true}, {last, true}} {
		hits := occurrences(lines, try.needle, try.fold)
		if len(hits) == 0 {
			continue
		}
		// An import or a comment names a symbol without being it: a server answers there about the
		// import, or not at all.
		if rest := slices.DeleteFunc(slices.Clone(hits), func(p Pos) bool {
			line := lines[p.Line-1]
			return importLine(line) || inComment(line, p.Char)
		}); len(rest) > 0 {
			hits = rest
		}
		pick := hits[0]
		if near > 0 {
			best := abs(pick.Line - near)
			for _, h := range hits[1:] {
				if d := abs(h.Line - near); d < best {
					pick, best = h, d
				}
			}
		}
		// Point at the last part: the name a server resolves.
		pick.Char += utf8.RuneCountInString(try.needle) - utf8.RuneCountInString(lastPart(try.needle))
		return pick, nil
	}
	msg := fmt.Sprintf("%q does not appear in the file as a name", name)
	if similar := similarNames(lines, last); len(similar) > 0 {
		msg += "; names in the file that are close: " + strings.Join(similar, ", ")
	}
	return Pos{}, fmt.Errorf("%s", msg)
}

// inComment reports whether character char of line (1-based) comes after a comment starts on
// it, or the line is a block comment's middle ("* …").
func inComment(line string, char int) bool {
	before := string([]rune(line)[:min(max(char-1, 0), len([]rune(line)))])
	t := strings.TrimSpace(line)
	return strings.Contains(before, "//") || strings.Contains(before, "/*") || strings.Contains(before, "# ") ||
		strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "#\t")
}

// importLine reports whether a line imports names rather than using them.
func importLine(line string) bool {
	t := strings.TrimSpace(line)
	for _, kw := range []string{"import ", "import{", "from ", "#include", "use ", "using ", "require(", "export {"} {
		if strings.HasPrefix(t, kw) {
			return true
		}
	}
	return false
}

func lastPart(name string) string {
	if i := strings.LastIndexAny(name, ".:"); i >= 0 && i+1 < len(name) {
		return name[i+1:]
	}
	return name
}

// occurrences are where needle stands as a whole identifier (not inside a longer one).
func occurrences(lines []string, needle string, fold bool) []Pos {
	var out []Pos
	for i, line := range lines {
		hay, pin := line, needle
		if fold {
			hay, pin = strings.ToLower(line), strings.ToLower(needle)
		}
		for from := 0; ; {
			j := strings.Index(hay[from:], pin)
			if j < 0 {
				break
			}
			at := from + j
			end := at + len(pin)
			before, _ := utf8.DecodeLastRuneInString(line[:at])
			after, _ := utf8.DecodeRuneInString(line[min(end, len(line)):])
			if !identRune(before) && !identRune(after) {
				out = append(out, Pos{Line: i + 1, Char: utf8.RuneCountInString(line[:at]) + 1})
			}
			from = at + max(len(pin), 1)
		}
	}
	return out
}

func identRune(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// similarNames are up to five identifiers of the file that contain name or that name contains,
// ignoring case, for a model that misspelt or guessed a name.
func similarNames(lines []string, name string) []string {
	lower := strings.ToLower(name)
	seen := map[string]bool{}
	var out []string
	for _, line := range lines {
		for _, id := range strings.FieldsFunc(line, func(r rune) bool { return !identRune(r) }) {
			l := strings.ToLower(id)
			if seen[id] || len(id) < 3 || !(strings.Contains(l, lower) || strings.Contains(lower, l)) {
				continue
			}
			seen[id] = true
			out = append(out, id)
		}
	}
	slices.Sort(out)
	if len(out) > 5 {
		out = out[:5]
	}
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// toWire is p in LSP's terms: 0-based line, character in UTF-16 units of that line.
func toWire(lines []string, p Pos) (line, char uint32) {
	if p.Line < 1 || p.Line > len(lines) {
		return uint32(max(p.Line-1, 0)), 0
	}
	runes := []rune(lines[p.Line-1])
	n := min(max(p.Char-1, 0), len(runes))
	return uint32(p.Line - 1), uint32(len(utf16.Encode(runes[:n])))
}

// fromWire is an LSP position in people's terms.
func fromWire(lines []string, line, char uint32) Pos {
	p := Pos{Line: int(line) + 1, Char: int(char) + 1}
	if int(line) >= len(lines) {
		return p
	}
	units := utf16.Encode([]rune(lines[line]))
	n := min(int(char), len(units))
	p.Char = len(utf16.Decode(units[:n])) + 1
	return p
}
