package workspace

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCompareNamesNaturalCaseInsensitive(t *testing.T) {
	t.Parallel()
	want := []string{
		"_build", "a", "A.txt", "a.txt", "a1", "a01b", "a1b", "a2", "a10", "a99999999999999999999", "a100000000000000000000",
		"B", "b.go", "file", "file.txt", "img2.png", "img10.png", "Zeta", "ünïcode",
	}
	got := slices.Clone(want)
	slices.Reverse(got)
	slices.SortFunc(got, compareNames)
	require.Equal(t, want, got)
	require.Zero(t, compareNames("same", "same"))
}
