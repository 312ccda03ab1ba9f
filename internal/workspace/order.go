package workspace

import (
	"cmp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// compareNames orders names the way people expect in a file tree: letter case is ignored and
// runs of digits compare by value, so "img2" comes before "img10". Names that only differ in
// case or zero padding fall back to byte order, keeping the order total and stable.
func compareNames(a, b string) int {
	if c := compareNatural(a, b); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func compareNatural(a, b string) int {
	for a != "" && b != "" {
		if da, db := digitRun(a), digitRun(b); da > 0 && db > 0 {
			if c := compareNumbers(a[:da], b[:db]); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if c := cmp.Compare(unicode.ToLower(ra), unicode.ToLower(rb)); c != 0 {
			return c
		}
		a, b = a[na:], b[nb:]
	}
	return cmp.Compare(len(a), len(b))
}

func digitRun(s string) int {
	n := 0
	for n < len(s) && '0' <= s[n] && s[n] <= '9' {
		n++
	}
	return n
}

// compareNumbers compares digit strings by value without parsing, so long runs cannot overflow.
func compareNumbers(a, b string) int {
	a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	if c := cmp.Compare(len(a), len(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}
