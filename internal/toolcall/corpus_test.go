package toolcall

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The corpus holds model output quoted in public bug reports about agents on local models.
// Each file's first line names its source; expected.json lists the calls each should yield.
func TestCorpus(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "corpus")
	raw, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	require.NoError(t, err)
	var expected map[string][]string
	require.NoError(t, json.Unmarshal(raw, &expected))

	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 15)
	require.Len(t, expected, len(files), "every corpus file needs an expectation and the reverse")

	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			want, ok := expected[filepath.Base(file)]
			require.True(t, ok, "no expectation")
			text := corpusText(t, file)

			names := []string{}
			for _, c := range Extract(text) {
				names = append(names, c.Name)
			}
			require.Equal(t, want, names)
			require.False(t, DetectPartial(text))
			if len(want) > 0 {
				prose := Remove(text)
				require.Empty(t, Extract(prose))
				require.NotContains(t, prose, `"name"`)
			}
		})
	}
}

func corpusText(t *testing.T, file string) string {
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	header, text, ok := strings.Cut(string(raw), "\n")
	require.True(t, ok && strings.HasPrefix(header, "# source: "), "first line must name the source")
	return text
}
