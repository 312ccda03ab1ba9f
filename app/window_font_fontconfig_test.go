//go:build desktop && linux

package app

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fcMatch is fontconfig's own answer for a pattern, from the fc-match command.
func fcMatch(t *testing.T, pattern string) string {
	t.Helper()
	out, err := exec.Command("fc-match", "-f", "%{family[0]}", pattern).Output()
	if err != nil {
		t.Skip("fc-match is not installed:", err)
	}
	return strings.TrimSpace(string(out))
}

func TestWindowFontStackResolvesToTheFontFontconfigMatches(t *testing.T) {
	t.Parallel()
	mono := fcMatch(t, "monospace:lang=en:scalable=true")
	require.NotEmpty(t, mono)

	// Names that are not installed are passed over, a generic name takes what fontconfig matches.
	require.Equal(t, mono, resolveFontStack([]string{"Gantry Missing Font", "monospace"}))
	// An installed family is taken at once, even before a generic name.
	require.Equal(t, mono, resolveFontStack([]string{mono, "serif"}))
	// A stack of names that are all missing comes to nothing.
	require.Empty(t, resolveFontStack([]string{"Gantry Missing Font"}))
	// The app's own stacks come to installed families.
	require.NotEmpty(t, resolveFontStack(uiFontStack))
	require.NotEmpty(t, resolveFontStack(monoFontStack))
}
