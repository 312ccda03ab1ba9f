package toolcall

import "strings"

// lineStart returns the start of the line holding text[i] if only blanks precede i on it.
func lineStart(text string, i int) int {
	for k := i - 1; k >= 0; k-- {
		switch text[k] {
		case ' ', '\t', '\r':
		case '\n':
			return k + 1
		default:
			return -1
		}
	}
	return 0
}

func skipHSpace(text string, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r') {
		i++
	}
	return i
}

func skipSpace(text string, i int) int {
	for i < len(text) && isSpace(text[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

func isLetter(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
