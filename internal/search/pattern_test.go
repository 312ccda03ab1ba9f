package search

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNeedles(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		regex   bool
		fold    bool
		needles []string // nil: every line is a candidate
		exact   bool
	}{
		{pattern: "func main", needles: []string{"func main"}, exact: true},
		{pattern: "a.b(", needles: []string{"a.b("}, exact: true},
		{pattern: "Read", fold: true, needles: []string{"read"}, exact: true},
		// k and s also fold with non-ASCII runes, so they are not looked for lowered.
		{pattern: "ReadString", fold: true, needles: []string{"tring"}},
		{pattern: "ks", fold: true},
		{pattern: "(?i)Hello", regex: true, needles: []string{"hello"}, exact: true},
		{pattern: `func \(\w+ \*?\w+\) Read`, regex: true, needles: []string{"func ("}},
		{pattern: `TODO|FIXME`, regex: true, needles: []string{"TODO", "FIXME"}},
		{pattern: `(?i)todo|Fixme`, regex: true, needles: []string{"todo", "fixme"}},
		{pattern: `todo|(?i:fixme)`, regex: true, needles: []string{"todo", "fixme"}},
		{pattern: `foo(bar)+`, regex: true, needles: []string{"foo"}},
		{pattern: `(abc){2,}`, regex: true, needles: []string{"abc"}},
		{pattern: `x*`, regex: true},
		{pattern: `(foo)?bar`, regex: true, needles: []string{"bar"}},
		{pattern: `foo|\w+`, regex: true},
		{pattern: `[abc]+`, regex: true},
		{pattern: `a|b|c|d|e|f|g|h|i`, regex: true}, // more needles than are worth a pass each
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			m, err := compile(Options{Pattern: tc.pattern, IsRegex: tc.regex, CaseInsensitive: tc.fold})
			require.NoError(t, err)
			var got []string
			for _, n := range m.needles {
				got = append(got, string(n))
			}
			require.Equal(t, tc.needles, got)
			require.Equal(t, tc.exact, m.exact)
		})
	}
}

func TestLowerASCII(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 40 {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(rng.IntN(256))
		}
		want := make([]byte, n)
		for i, c := range src {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			want[i] = c
		}
		got := make([]byte, n)
		lowerASCII(got, src)
		require.Equal(t, want, got)
	}
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	lowerASCII(all, all)
	require.Equal(t, []byte("@abcdefghijklmnopqrstuvwxyz["), all['@':'\\'])
	require.Equal(t, byte(0xC1), all[0xC1], "bytes above ASCII are kept")
}

func TestIsBinary(t *testing.T) {
	require.False(t, isBinary(nil))
	require.False(t, isBinary([]byte("plain text\n")))
	require.False(t, isBinary([]byte("UTF-8: héllo wörld → ✓\n")))
	require.False(t, isBinary([]byte("Latin-1: caf\xe9, na\xefve, \xfcber den Flu\xdf\n")))
	require.True(t, isBinary([]byte("ELF\x00\x01")))
	require.True(t, isBinary(bytes.Repeat([]byte{0xff, 0xfe, 'a'}, 100)))
	// A rune cut by the end of the sniffed part is not held against the file.
	cut := append(bytes.Repeat([]byte("a"), binarySniff-1), "é"...)
	require.False(t, isBinary(cut))
}

func TestDisplay(t *testing.T) {
	require.Equal(t, "short", display([]byte("short\r"), 0))
	long := bytes.Repeat([]byte("é"), 1000) // 2 bytes each: cuts must not split one
	got := display(long, 1000)
	require.True(t, len(got) <= maxLineLen+2*len("…"))
	require.Equal(t, "…", got[:len("…")])
	require.Equal(t, "…", got[len(got)-len("…"):])
	require.True(t, bytes.Equal([]byte(got[len("…"):len(got)-len("…")]), bytes.Repeat([]byte("é"), maxLineLen/2)))
	start := display(long, 0)
	require.NotContains(t, start[:3], "…", "a match at the start keeps the start")
}
