package search

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// matcher decides which lines match. Running a regexp over every line is far too slow for a
// large tree, so every line that can match must contain one of the needles: they are found
// in the whole file at once with bytes.Index and only the lines around a hit are checked.
type matcher struct {
	re      *regexp.Regexp
	needles [][]byte // empty: no literal is required, so every line is a candidate
	// fold: the needles are lower-case and searched in an ASCII-lowered copy of the file,
	// which finds every case-insensitive occurrence (see foldFragment for why that holds).
	fold bool
	// exact: the pattern is a single literal, so a needle hit is itself a match and the
	// regexp never needs to run.
	exact bool
}

// maxNeedles bounds the literals searched per file: each one costs a pass over the file, so
// past a handful checking every line with the regexp is as fast.
const maxNeedles = 8

func compile(opts Options) (*matcher, error) {
	if opts.Pattern == "" {
		return nil, errors.New("the search pattern is empty")
	}
	expr := opts.Pattern
	if !opts.IsRegex {
		expr = regexp.QuoteMeta(expr)
	}
	if opts.CaseInsensitive {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		if !opts.IsRegex {
			return nil, fmt.Errorf("cannot search for %q: %w", opts.Pattern, err)
		}
		return nil, fmt.Errorf("invalid regex %q: %v. The syntax is RE2 (Go): no lookahead, "+
			"lookbehind or backreferences. Escape special characters with a backslash "+
			`(\( \. \[ \{ \*), or set isRegex=false to search for the text literally`,
			opts.Pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	// regexp.Compile parses with syntax.Perl too, so this tree is the one re runs.
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err
	}
	if hasNewline(tree) {
		return nil, fmt.Errorf("the pattern %q contains a line break, but every line is "+
			"matched on its own: search for one line of it instead", opts.Pattern)
	}
	m := &matcher{re: re}
	if set, ok := required(tree); ok {
		m.needles, m.fold = set.bytes()
		m.exact = tree.Op == syntax.OpLiteral && len(set) == 1 && set[0].whole
	}
	return m, nil
}

// needle is a literal that every match contains, already reduced to what is searched.
type needle struct {
	text  string
	fold  bool // text is to be found, lowered, in the ASCII-lowered file
	whole bool // text is the entire literal it came from, not a fragment of it
}

type needleSet []needle

// score ranks alternatives: the shortest needle decides how many false candidates turn up.
func (s needleSet) score() int {
	shortest := -1
	for _, n := range s {
		if shortest < 0 || len(n.text) < shortest {
			shortest = len(n.text)
		}
	}
	return shortest
}

// bytes returns the needles to search for and whether they go against the lowered file. Once
// one needle needs the lowered file they all do, lowering the exact ones too: a lowered hit
// is a superset, and the regexp check on the line removes the extra candidates.
func (s needleSet) bytes() ([][]byte, bool) {
	fold := false
	for _, n := range s {
		fold = fold || n.fold
	}
	out := make([][]byte, len(s))
	for i, n := range s {
		out[i] = []byte(n.text)
		if fold {
			lowerASCII(out[i], out[i])
		}
	}
	return out, fold
}

// required returns literals at least one of which occurs in every match of re, with ok false
// when no such set is known (a match may be any text).
func required(re *syntax.Regexp) (needleSet, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		lit := string(re.Rune)
		if re.Flags&syntax.FoldCase == 0 {
			return needleSet{{text: lit, whole: true}}, true
		}
		frag := foldFragment(lit)
		if frag == "" {
			return nil, false
		}
		return needleSet{{text: frag, fold: true, whole: len(frag) == len(lit)}}, true
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		var best needleSet
		for _, sub := range re.Sub {
			if set, ok := required(sub); ok && set.score() > best.score() {
				best = set
			}
		}
		return best, best != nil
	case syntax.OpAlternate:
		var all needleSet
		for _, sub := range re.Sub {
			set, ok := required(sub)
			if !ok || len(all)+len(set) > maxNeedles {
				return nil, false
			}
			all = append(all, set...)
		}
		return all, true
	}
	return nil, false
}

// foldFragment returns the longest run of lit made of ASCII characters whose case variants
// are all ASCII. Wherever lit matches case-insensitively, the ASCII-lowered text holds the
// run lowered. 'k' and 's' are left out because Unicode folds them with the Kelvin sign and
// the long s, and non-ASCII runes have variants of other byte lengths.
func foldFragment(lit string) string {
	best, start := "", 0
	for i := 0; i <= len(lit); i++ {
		if i < len(lit) && asciiFoldsInASCII(lit[i]) {
			continue
		}
		if i-start > len(best) {
			best = lit[start:i]
		}
		start = i + 1
	}
	return best
}

func asciiFoldsInASCII(c byte) bool {
	if c >= utf8.RuneSelf {
		return false
	}
	switch c | 0x20 {
	case 'k', 's':
		return false
	}
	return true
}

func hasNewline(re *syntax.Regexp) bool {
	if re.Op == syntax.OpLiteral && strings.ContainsRune(string(re.Rune), '\n') {
		return true
	}
	for _, sub := range re.Sub {
		if hasNewline(sub) {
			return true
		}
	}
	return false
}

// lowerASCII writes src into dst (of the same length) with ASCII letters lowered. Only ASCII
// changes, so offsets in dst are offsets in src. It works a word at a time: lowering the
// whole file is on the hot path of every case-insensitive search.
func lowerASCII(dst, src []byte) {
	const ones, high, low7 = 0x0101010101010101, 0x8080808080808080, 0x7f7f7f7f7f7f7f7f
	i := 0
	for ; i+8 <= len(src); i += 8 {
		x := binary.LittleEndian.Uint64(src[i:])
		// Per byte: the high bit of atLeastA is set when the low seven bits are >= 'A', that of
		// pastZ when they are > 'Z'; no sum carries into the next byte. Bytes >= 0x80 are
		// not ASCII and stay as they are.
		atLeastA := x&low7 + (0x80-'A')*ones
		pastZ := x&low7 + (0x80-'Z'-1)*ones
		upper := atLeastA &^ pastZ &^ x & high
		binary.LittleEndian.PutUint64(dst[i:], x|upper>>2)
	}
	for ; i < len(src); i++ {
		c := src[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst[i] = c
	}
}

// indexAny is bytes.Index over several needles, remembering each one's next hit in next so
// that every needle scans the file once however many candidates there are.
func indexAny(hay []byte, from int, needles [][]byte, next []int) int {
	best := len(hay)
	for i, n := range needles {
		if next[i] < from {
			if j := bytes.Index(hay[from:], n); j >= 0 {
				next[i] = from + j
			} else {
				next[i] = len(hay)
			}
		}
		best = min(best, next[i])
	}
	return best
}
