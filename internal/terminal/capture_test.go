package terminal

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCaptureMatchesStripThenTruncate(t *testing.T) {
	t.Parallel()
	var in strings.Builder
	for i := range 300 {
		in.WriteString("\x1b[32mok\x1b[0m ")
		in.WriteString(strings.Repeat("é", i*3))
		in.WriteString(" 10%\r100%\r\n")
	}
	raw := []byte(in.String())
	wantText, wantLines := TruncateForModel(StripANSI(in.String()))

	for _, size := range []int{1, 7, 4096} {
		c := newCapture(nil)
		for p := raw; len(p) > 0; p = p[min(size, len(p)):] {
			c.write(p[:min(size, len(p))])
		}
		text, lines := c.digest()
		require.Equal(t, wantText, text, "chunks of %d", size)
		require.Equal(t, wantLines, lines)
		require.Equal(t, in.String(), c.display())
	}
}

func TestCaptureMemoryIsBounded(t *testing.T) {
	t.Parallel()
	c := newCapture(nil)
	chunk := bytes.Repeat([]byte("x"), 32<<10)
	for range 320 { // 10 MiB without a newline
		c.write(chunk)
	}
	c.write([]byte("\n"))
	require.LessOrEqual(t, cap(c.lines.line), 4*maxLineChars)
	require.Len(t, c.shown, MaxDisplayBytes)

	line := []byte(strings.Repeat("y", 2000) + "\n")
	for range 1000 {
		c.write(line)
	}
	for _, slot := range c.kept.tail {
		require.LessOrEqual(t, cap(slot), 4*maxLineChars)
	}
	text, lines := c.digest()
	require.Equal(t, 1001, lines)
	require.Contains(t, text, "x…[+10485260 chars]")
	require.Contains(t, text, "y…[+1500 chars]")
	require.Len(t, c.shown, MaxDisplayBytes)
}

func TestDisplayCutDoesNotSplitACharacter(t *testing.T) {
	t.Parallel()
	c := newCapture(nil)
	c.write([]byte("ab"))
	c.write([]byte(strings.Repeat("日", MaxDisplayBytes/3)))
	out := c.display()
	shown, note, _ := strings.Cut(out, "\n[output cut")
	require.True(t, shown == "ab"+strings.Repeat("日", MaxDisplayBytes/3-1), "ends on a whole character")
	require.Equal(t, ": showing the first 1048574 of 1048577 bytes]", note)
}
