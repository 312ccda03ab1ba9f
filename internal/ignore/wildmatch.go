package ignore

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// glob reports whether a slash-separated path matches one gitignore pattern. Patterns are
// compiled once when an ignore file is read, because the same few lines are asked about
// every file in the workspace.
type glob func(text string) bool

func never(string) bool { return false }

// compileGlob turns a gitignore pattern into a glob that agrees with git: "*", "?" and
// bracket classes stay inside one path component, while "**" as a whole component spans
// any number of them. A malformed pattern (an unclosed class, an unknown [:name:], a
// trailing backslash) never matches anything, which is what git does with such a line.
func compileGlob(pattern string) glob {
	// Most ignore lines are plain names, and a plain name can only match itself.
	lead := strings.IndexAny(pattern, `*?[\`)
	if lead < 0 {
		return func(text string) bool { return text == pattern }
	}

	var re strings.Builder
	re.WriteString(`(?s)\A`)
	for i := range lead {
		writeByte(&re, pattern[i])
	}
	// git compares the text before the first wildcard literally and matches the rest as a
	// pattern of its own, so a "**" right after that text counts as starting a component:
	// "a**/b" matches "ax/y/b". Starting the scan "at a component" reproduces that.
	atComponent := true
	for i := lead; i < len(pattern); {
		c := pattern[i]
		switch c {
		case '*':
			end := i
			for end < len(pattern) && pattern[end] == '*' {
				end++
			}
			slash := slashAt(pattern, end)
			wholeComponent := end-i > 1 && atComponent && (end == len(pattern) || slash > 0)
			switch {
			case !wholeComponent:
				re.WriteString(`[^/]*`)
				atComponent = false
			case end == len(pattern):
				re.WriteString(`.*`)
			default:
				// "**/" also stands for no directory at all: "a/**/b" matches "a/b".
				re.WriteString(`(?:.*/)?`)
				end += slash
			}
			i = end
			continue
		case '?':
			re.WriteString(`[^/]`)
		case '[':
			set, end, ok := parseClass(pattern, i)
			if !ok || set == "" {
				return never
			}
			re.WriteString(set)
			i = end
			atComponent = false
			continue
		case '\\':
			if i+1 == len(pattern) {
				return never
			}
			i++
			c = pattern[i]
			writeByte(&re, c)
		default:
			writeByte(&re, c)
		}
		atComponent = c == '/'
		i++
	}
	re.WriteString(`\z`)

	compiled, err := regexp.Compile(re.String())
	if err != nil {
		// Cannot happen for the expressions built above, but a strange .gitignore line must
		// never take the whole program down.
		return never
	}
	return func(text string) bool { return compiled.MatchString(widen(text)) }
}

// slashAt returns how many pattern bytes at i spell a "/" (escaped or not), or 0.
func slashAt(p string, i int) int {
	switch {
	case strings.HasPrefix(p[i:], "/"):
		return 1
	case strings.HasPrefix(p[i:], `\/`):
		return 2
	}
	return 0
}

// writeByte adds b to the expression as a literal, widened the way texts are.
func writeByte(re *strings.Builder, b byte) {
	re.WriteString(regexp.QuoteMeta(string(rune(b))))
}

// widen maps each byte of s to the rune of the same value (Latin-1). git matches bytes while
// Go's regexp matches runes; widening makes "?" consume exactly one byte of "é" as in git,
// and lets names that are not valid UTF-8 match like any others. Pure ASCII, the usual case,
// is returned as is.
func widen(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			r := make([]rune, len(s))
			for j := range len(s) {
				r[j] = rune(s[j])
			}
			return string(r)
		}
	}
	return s
}

// parseClass reads the bracket expression starting at p[i] == '[' into the exact set of
// bytes it accepts, returned as a regexp class ("" when empty), and the index just past it.
// Working out membership here rather than translating the syntax keeps git's quirks in one
// place: the first member may be "]", a range's start is itself a member, a "-" just after a
// range or a named class is literal, and "[:" without a ":]" ending is an ordinary "[".
func parseClass(p string, i int) (class string, end int, ok bool) {
	var in [256]bool
	i++
	negate := i < len(p) && (p[i] == '!' || p[i] == '^')
	if negate {
		i++
	}
	rangeFrom := -1 // the previous single member, which a following "-" turns into a range
	for first := true; ; first = false {
		if i == len(p) {
			return "", 0, false
		}
		c := p[i]
		if c == ']' && !first {
			end = i + 1
			break
		}
		switch {
		case c == '\\':
			if i+1 == len(p) {
				return "", 0, false
			}
			c = p[i+1]
			in[c] = true
			rangeFrom = int(c)
			i += 2
		case c == '-' && rangeFrom >= 0 && i+1 < len(p) && p[i+1] != ']':
			to, next := p[i+1], i+2
			if to == '\\' {
				if next == len(p) {
					return "", 0, false
				}
				to, next = p[next], next+1
			}
			for b := rangeFrom; b <= int(to); b++ {
				in[b] = true
			}
			rangeFrom = -1
			i = next
		case c == '[' && namedClassLen(p[i:]) > 0:
			size := namedClassLen(p[i:])
			member, known := namedClasses[p[i+2:i+size-2]]
			if !known {
				return "", 0, false
			}
			for b := range in {
				in[b] = in[b] || member(byte(b))
			}
			rangeFrom = -1
			i += size
		default:
			in[c] = true
			rangeFrom = int(c)
			i++
		}
	}

	if negate {
		for b := range in {
			in[b] = !in[b]
		}
	}
	// A class stands for one character of a name, so it never matches the separator.
	in['/'] = false
	var set strings.Builder
	for b := 0; b < 256; b++ {
		if !in[b] {
			continue
		}
		from := b
		for b+1 < 256 && in[b+1] {
			b++
		}
		fmt.Fprintf(&set, `\x{%x}-\x{%x}`, from, b)
	}
	if set.Len() == 0 {
		return "", end, true
	}
	return "[" + set.String() + "]", end, true
}

// namedClassLen returns the length of the "[:name:]" that s starts with, or 0. Only the
// first "]" after "[:" can end it; without a ":" just before that "]", the "[" is an
// ordinary member, as git treats it.
func namedClassLen(s string) int {
	if !strings.HasPrefix(s, "[:") {
		return 0
	}
	if end := strings.IndexByte(s[2:], ']'); end > 0 && s[2+end-1] == ':' {
		return end + 3
	}
	return 0
}

// namedClasses are the POSIX classes as git has them: ASCII only (bytes of UTF-8 names are
// in none of them), and "space" without vertical tab or form feed.
var namedClasses = map[string]func(byte) bool{
	"alnum":  func(c byte) bool { return isAlpha(c) || isDigit(c) },
	"alpha":  isAlpha,
	"blank":  func(c byte) bool { return c == ' ' || c == '\t' },
	"cntrl":  func(c byte) bool { return c < ' ' || c == 0x7f },
	"digit":  isDigit,
	"graph":  func(c byte) bool { return '!' <= c && c <= '~' },
	"lower":  func(c byte) bool { return 'a' <= c && c <= 'z' },
	"print":  func(c byte) bool { return ' ' <= c && c <= '~' },
	"punct":  func(c byte) bool { return '!' <= c && c <= '~' && !isAlpha(c) && !isDigit(c) },
	"space":  func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' },
	"upper":  func(c byte) bool { return 'A' <= c && c <= 'Z' },
	"xdigit": func(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' },
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
