package search

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAgreesWithGrep checks per-file match counts against ripgrep, or GNU grep when rg is
// not installed, on a generated tree of text and binary files.
func TestAgreesWithGrep(t *testing.T) {
	tool, argsFor := grepTool()
	if tool == "" {
		t.Skip("neither rg nor grep is installed")
	}
	root := writeTree(t, randomTree())
	for _, tc := range []Options{
		{Pattern: "func main"},
		{Pattern: "error", CaseInsensitive: true},
		{Pattern: "(x)"},
		{Pattern: `func [A-Z][a-z]+\(`, IsRegex: true},
		{Pattern: `^[[:space:]]*return (nil|err)`, IsRegex: true},
		{Pattern: `todo|fixme`, IsRegex: true, CaseInsensitive: true},
	} {
		t.Run(tc.Pattern, func(t *testing.T) {
			out, err := exec.Command(tool, append(argsFor(tc), root)...).Output()
			if code := exitCode(err); code > 1 {
				t.Fatalf("%s: %v", tool, err)
			}
			want := map[string]int{}
			for line := range strings.Lines(string(out)) {
				name, count, _ := strings.Cut(strings.TrimSpace(line), ":")
				n, err := strconv.Atoi(count)
				require.NoError(t, err, line)
				rel, err := filepath.Rel(root, name)
				require.NoError(t, err)
				if n > 0 {
					want[filepath.ToSlash(rel)] = n
				}
			}
			got := map[string]int{}
			for _, f := range search(t, root, Options{Pattern: tc.Pattern, IsRegex: tc.IsRegex,
				CaseInsensitive: tc.CaseInsensitive, MaxResults: 1 << 20}).Files {
				got[f.Path] = len(f.Matches)
			}
			require.NotEmpty(t, want)
			require.Equal(t, want, got)
		})
	}
}

// grepTool returns the tool to compare with and how to ask it for per-file counts of
// matching lines with our semantics: binary files skipped, hidden files searched.
func grepTool() (string, func(Options) []string) {
	if path, err := exec.LookPath("rg"); err == nil {
		return path, func(o Options) []string {
			args := []string{"--count", "--hidden", "--no-require-git", "--no-ignore-dot", "--no-ignore-global", "--no-ignore-parent"}
			if !o.IsRegex {
				args = append(args, "--fixed-strings")
			}
			if o.CaseInsensitive {
				args = append(args, "--ignore-case")
			}
			return append(args, "--", o.Pattern)
		}
	}
	if path, err := exec.LookPath("grep"); err == nil {
		return path, func(o Options) []string {
			args := []string{"-r", "-c", "-I"}
			if o.IsRegex {
				args = append(args, "-E")
			} else {
				args = append(args, "-F")
			}
			if o.CaseInsensitive {
				args = append(args, "-i")
			}
			return append(args, "--", o.Pattern)
		}
	}
	return "", nil
}

func exitCode(err error) int {
	if e, ok := err.(*exec.ExitError); ok {
		return e.ExitCode()
	}
	if err != nil {
		return 2
	}
	return 0
}

// randomTree builds ASCII source-like files (so grep -i agrees whatever the locale) and a few
// binary ones, from a fixed seed.
func randomTree() map[string]string {
	rng := rand.New(rand.NewPCG(7, 7))
	words := []string{"func", "main", "Main", "return", "nil", "err", "error", "ERROR", "Error", "(x)",
		"TODO", "todo", "FixMe", "Open(", "x", "{", "}", "\t", "  ", "if", "Read", "// "}
	files := map[string]string{}
	for i := range 120 {
		var b strings.Builder
		for range rng.IntN(200) {
			for range rng.IntN(8) {
				b.WriteString(words[rng.IntN(len(words))])
				if rng.IntN(3) > 0 {
					b.WriteByte(' ')
				}
			}
			if rng.IntN(10) == 0 {
				b.WriteString("\r")
			}
			b.WriteByte('\n')
		}
		name := fmt.Sprintf("pkg%d/sub%d/file%d.go", i%5, i%4, i)
		if i%17 == 0 {
			name = fmt.Sprintf(".hidden/file%d.txt", i)
		}
		files[name] = b.String()
		if i%10 == 0 {
			files[fmt.Sprintf("bin/blob%d.bin", i)] = "func main\x00" + b.String()
		}
	}
	return files
}
