package diff

import (
	"bytes"
	"unicode/utf8"
)

// sniffBytes is how much of a file IsBinary looks at, as much as git does.
const sniffBytes = 8000

// IsBinary guesses whether b (a file's content, or its start) is not text, in which case a
// caller shows "binary file changed" rather than a diff. A NUL byte means binary, as in git.
// Otherwise it is binary when more than 30% of the bytes are neither valid UTF-8 nor ordinary
// text characters: a Latin-1 file, with an accented letter here and there, is still text, while
// random or compressed bytes are far above that. Text in a legacy multi-byte encoding (GBK,
// Shift JIS) may count as binary.
func IsBinary(b []byte) bool {
	cut := len(b) > sniffBytes
	b = b[:min(len(b), sniffBytes)]
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	odd := 0
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			if cut && !utf8.FullRune(b[i:]) {
				// A character cut in two by the sniff.
				i = len(b)
				continue
			}
			odd++
		case r < ' ' && !textControl(byte(r)), r == 0x7f:
			odd++
		}
		i += size
	}
	return odd*10 > len(b)*3
}

// textControl reports whether c is a control character that text files contain: whitespace,
// backspace (overstrike in man pages) and escape (terminal colours in logs).
func textControl(c byte) bool {
	switch c {
	case '\t', '\n', '\v', '\f', '\r', '\b', 0x1b:
		return true
	}
	return false
}
