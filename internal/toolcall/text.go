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

func isDigit(c byte) bool {
	return '0' <= c && c <= '9'
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// isNameStart reports whether a tool's name, a Python identifier, may start with c.
func isNameStart(c byte) bool {
	return isLetter(c) || c == '_'
}

func isIdentByte(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_'
}

// isNameByte reports whether c may stand in a tool's name written bare (Mistral's
// [TOOL_CALLS]NAME): tools are named like my-server.read_file too.
func isNameByte(c byte) bool {
	return isIdentByte(c) || c == '-' || c == '.'
}
