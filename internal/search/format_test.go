package search

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden with the current output")

func TestFormatGolden(t *testing.T) {
	root := writeTree(t, map[string]string{
		"src/services/myService.ts": numbered(30, map[int]bool{3: true, 5: true, 11: true, 29: true}),
		"src/utils/helper.ts":       "import x\n\nexport function match() {}\n",
		"README.md":                 "no hits\n",
		"logo.png":                  "\x89PNG\x00\x00match",
	})
	for name, opts := range map[string]Options{
		"context":   {Pattern: "match", IsRegex: true, CaseInsensitive: true, ContextLines: 2},
		"plain":     {Pattern: "MATCH"},
		"truncated": {Pattern: "MATCH", MaxResults: 3, Path: "src"},
		"none":      {Pattern: "no such text", Include: []string{"*.ts"}},
	} {
		t.Run(name, func(t *testing.T) {
			got := Format(search(t, root, opts), opts)
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test -update to create it")
			require.Equal(t, string(want), got)
		})
	}
}
