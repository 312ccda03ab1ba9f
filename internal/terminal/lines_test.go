package terminal

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func numbered(n int) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = "line " + strconv.Itoa(i+1)
	}
	return lines
}

func TestTruncateForModel(t *testing.T) {
	t.Parallel()
	text, n := TruncateForModel("")
	require.Empty(t, text)
	require.Zero(t, n)

	text, n = TruncateForModel("a\nb\n")
	require.Equal(t, "a\nb", text)
	require.Equal(t, 2, n, "a final newline does not start another line")

	hundred := strings.Join(numbered(100), "\n")
	text, n = TruncateForModel(hundred + "\n")
	require.Equal(t, hundred, text)
	require.Equal(t, 100, n)

	lines := numbered(101)
	text, n = TruncateForModel(strings.Join(lines, "\n"))
	want := append(append(append([]string{}, lines[:15]...), "[1 lines truncated]"), lines[16:]...)
	require.Equal(t, strings.Join(want, "\n"), text)
	require.Equal(t, 101, n)
}

func TestTruncateForModelCutsLongLines(t *testing.T) {
	t.Parallel()
	text, _ := TruncateForModel(strings.Repeat("x", 500) + "\n" + strings.Repeat("y", 501))
	require.Equal(t, strings.Repeat("x", 500)+"\n"+strings.Repeat("y", 500)+"…[+1 chars]", text)

	text, _ = TruncateForModel(strings.Repeat("é", 600))
	require.Equal(t, strings.Repeat("é", 500)+"…[+100 chars]", text, "characters, not bytes")
}

func TestLineBuilderCountsCharactersSplitAcrossWrites(t *testing.T) {
	t.Parallel()
	in := []byte(strings.Repeat("日", 600) + "\n")
	var got string
	var cut int
	b := lineBuilder{max: 500, emit: func(line []byte, c int, _ bool) { got, cut = string(line), c }}
	for i := range in {
		b.write(in[i : i+1])
	}
	require.Equal(t, strings.Repeat("日", 500), got)
	require.Equal(t, 100, cut)
}
