package diff

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestIsBinary(t *testing.T) {
	t.Parallel()
	random := make([]byte, 4096)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(1 + r.IntN(255)) // no NUL, so only the share of odd bytes can tell
	}
	utf8Cut := strings.Repeat("a", sniffBytes-1) + "é" // the sniff ends inside "é"
	for _, c := range []struct {
		name   string
		data   string
		binary bool
	}{
		{"empty", "", false},
		{"ascii", "package main\n\nfunc main() {}\n", false},
		{"utf-8", "größe := 3 // 大きさ\n", false},
		{"latin-1", strings.Repeat("caf\xe9 cr\xe8me br\xfbl\xe9e, na\xefve\n", 50), false},
		{"crlf and tabs", "a\tb\r\nc\r\n", false},
		{"terminal colours", "\x1b[31merror\x1b[0m: failed\n", false},
		{"man page overstrike", "N\bNA\bAM\bME\bE\n", false},
		{"nul", "text\x00more text", true},
		{"utf-16", "\xff\xfeh\x00i\x00", true},
		{"png header", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", true},
		{"random bytes", string(random), true},
		{"control characters", strings.Repeat("\x01\x02\x03 abc", 20), true},
		{"utf-8 cut by the sniff", utf8Cut, false},
		{"nul past the sniff", strings.Repeat("a", sniffBytes) + "\x00", false},
	} {
		require.Equal(t, c.binary, IsBinary([]byte(c.data)), c.name)
	}
}
