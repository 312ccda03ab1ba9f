package terminal

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStripANSI(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "hello\nworld\n", "hello\nworld\n"},
		{"no final newline", "a\nb", "a\nb"},
		{"colours", "\x1b[1;31mred\x1b[0m and \x1b[38;5;208morange\x1b[m", "red and orange"},
		{"cursor and erase", "\x1b[2K\x1b[1Gdone\x1b[?25h", "done"},
		{"OSC ended by BEL", "\x1b]0;title\x07text", "text"},
		{"OSC ended by ST", "\x1b]633;A\x1b\\$ ls", "$ ls"},
		{"hyperlink", "\x1b]8;;https://x.y\x1b\\click\x1b]8;;\x1b\\", "click"},
		{"DCS", "\x1bPq#0;2;0;0;0\x1b\\after", "after"},
		{"charset and two-byte", "\x1b(B\x1b7\x1b=ok\x1b8", "ok"},
		{"progress bar", "10%\r50%\r100%\n", "100%\n"},
		{"shorter last segment", "downloading big.tar\rdone\n", "done\n"},
		{"CRLF", "a\r\nb\r\n", "a\nb\n"},
		{"trailing CR keeps the line", "50%\r", "50%"},
		{"CR before newline keeps the line", "50%\r\r\n", "50%\n"},
		{"colour inside progress", "\x1b[32m10%\x1b[0m\r\x1b[32m20%\x1b[0m\n", "20%\n"},
		{"stray controls", "a\bb\x07c\x00d\x7fe\tf", "abcde\tf"},
		{"unicode", "\x1b[1mhé 日本\x1b[0m", "hé 日本"},
		{"unterminated OSC stops at newline", "x\x1b]0;never ends\nvisible\n", "x\nvisible\n"},
		{"ESC breaks off CSI", "\x1b[31\x1b[32mgreen", "green"},
		{"newline breaks off CSI", "\x1b[31\nnext", "\nnext"},
		{"lone ESC at end", "end\x1b", "end"},
	} {
		require.Equal(t, tc.want, StripANSI(tc.in), tc.name)
	}
}

func TestStripperStateSurvivesSplitWrites(t *testing.T) {
	t.Parallel()
	in := "\x1b[1;31mred\x1b[0m \x1b]0;ti\x1b\\tle\x07x\x1b]8;;u\x1b\\link\r\nok"
	want := StripANSI(in)
	for cut := range len(in) + 1 {
		var st stripper
		var got []byte
		out := func(p []byte) { got = append(got, p...) }
		st.write([]byte(in[:cut]), out)
		st.write([]byte(in[cut:]), out)
		require.Equal(t, want, StripANSI(string(got)), "cut at %d", cut)
	}
}
