package terminal

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLongOutputKeepsHeadAndTail(t *testing.T) {
	t.Parallel()
	s, _ := newTestSession(t)
	res := run(t, s, "seq 1 100000", "")
	require.Equal(t, 100000, res.TotalLines)

	lines := strings.Split(res.ForModel, "\n")
	require.Len(t, lines, 15+1+85+1)
	for i := range 15 {
		require.Equal(t, strconv.Itoa(i+1), lines[i])
	}
	require.Equal(t, "[99900 lines truncated]", lines[15])
	for i := range 85 {
		require.Equal(t, strconv.Itoa(99916+i), lines[16+i])
	}
	require.Regexp(t, `^\[exit code 0, .*\]$`, lines[101])

	require.True(t, strings.HasPrefix(res.Output, "1\n2\n3\n"))
	require.Len(t, res.Output, len(seqOutput(100000)), "under MaxDisplayBytes, so not cut")
}

func TestDisplayOutputIsCapped(t *testing.T) {
	t.Parallel()
	s, _ := newTestSession(t)
	res := run(t, s, "seq 1 300000", "")
	full := seqOutput(300000)
	require.Greater(t, len(full), MaxDisplayBytes)
	want := full[:MaxDisplayBytes] + "\n[output cut: showing the first 1048576 of " + strconv.Itoa(len(full)) + " bytes]"
	require.Equal(t, want, res.Output)
	require.Contains(t, res.ForModel, "\n300000\n[exit code 0, ")
}

func TestHugeSingleLineIsCut(t *testing.T) {
	t.Parallel()
	s, _ := newTestSession(t)
	res := run(t, s, "head -c 5000000 /dev/zero | tr '\\0' x", "")
	require.Equal(t, 1, res.TotalLines)
	body, _, _ := strings.Cut(res.ForModel, "\n")
	require.Equal(t, strings.Repeat("x", 500)+"…[+4999500 chars]", body)
	require.True(t, strings.HasPrefix(res.Output, strings.Repeat("x", MaxDisplayBytes)+"\n[output cut: showing the first 1048576 of 5000000 bytes]"))
}

func TestEscapesStrippedForModelOnly(t *testing.T) {
	t.Parallel()
	s, _ := newTestSession(t)
	res := run(t, s, `printf '\033]0;my title\007\033[1;31mred\033[0m plain\n'; printf 'get 10%%\rget 50%%\rget 100%%\n'; printf '\033]8;;http://x\033\\link\033]8;;\033\\\n'`, "")
	require.Equal(t, "\x1b]0;my title\x07\x1b[1;31mred\x1b[0m plain\nget 10%\rget 50%\rget 100%\n\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\n", res.Output)
	require.True(t, strings.HasPrefix(res.ForModel, "red plain\nget 100%\nlink\n[exit code 0, "), res.ForModel)
	require.Equal(t, 3, res.TotalLines)
}

func TestBinaryOutputIsValidText(t *testing.T) {
	t.Parallel()
	s, _ := newTestSession(t)
	res := run(t, s, `printf 'a\377\376b\n'`, "")
	require.True(t, strings.HasPrefix(res.ForModel, "a\uFFFDb\n"), res.ForModel)
}

func seqOutput(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(strconv.Itoa(i))
		b.WriteByte('\n')
	}
	return b.String()
}
