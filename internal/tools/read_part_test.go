package tools

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// goFile is a Go source of n lines with a function every 500 lines.
func goFile(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i%500 == 0 {
			fmt.Fprintf(&b, "func step%d(x int) int {\n", i)
		} else {
			fmt.Fprintf(&b, "\tx += %d\n", i)
		}
	}
	return b.String()
}

// A large file is read a part at a time: each read says which startLine reads on, and reading
// on from there covers every line exactly once; the chunk actions and the result's meta name
// the real line numbers.
func TestReadFileReadsOnFromStartLine(t *testing.T) {
	t.Parallel()
	f := newReadFixture(t, map[string]string{"big.go": goFile(4500)})
	seen := map[int]int{}
	start, reads := 1, 0
	for start > 0 {
		rec := &actionRecorder{}
		res := f.call(t, "read_file", map[string]any{"path": "big.go", "startLine": start}, rec)
		require.False(t, res.Failed(), res.Content)
		reads++
		span := res.Meta.Read[0]
		require.Equal(t, start, span.From)
		require.Equal(t, 4500, span.Total)
		d := res.Display.(ReadFileDisplay)
		require.Equal(t, span.To-span.From+1, d.Lines)
		require.Equal(t, rec.actions[0].StartLine, start)
		require.Equal(t, rec.actions[len(rec.actions)-1].EndLine, span.To)
		for _, a := range rec.actions {
			require.LessOrEqual(t, a.EndLine-a.StartLine+1, readChunkLines, "100-line chunks")
		}
		shown := numberedIn(res.Content)
		require.Len(t, shown, span.To-span.From+1)
		require.Equal(t, span.From, shown[0])
		for _, n := range shown {
			seen[n]++
		}
		if start > 1 {
			require.Contains(t, res.Content, fmt.Sprintf("[lines 1–%d not shown: this read started at line %d.]", start-1, start))
			require.Equal(t, start, d.From)
		}
		start = 0
		if span.To < 4500 {
			require.Contains(t, res.Content, fmt.Sprintf("To read on, call read_file with startLine %d;", span.To+1))
			start = span.To + 1
		}
	}
	require.Equal(t, 3, reads)
	require.Len(t, seen, 4500)
	for n, k := range seen {
		require.Equal(t, 1, k, "line %d", n)
	}
}

// numberedIn returns the numbers of the file's lines in a read's text, in order.
func numberedIn(content string) []int {
	var out []int
	for _, line := range strings.Split(content, "\n") {
		num, _, ok := strings.Cut(strings.TrimLeft(line, " "), "| ")
		if n, err := strconv.Atoi(num); ok && err == nil {
			out = append(out, n)
		}
	}
	return out
}

// A read of part of a file ends with an outline of the definitions it did not show, before
// and after it, so that the model can start at the one it needs.
func TestReadFileOutlinesTheRest(t *testing.T) {
	t.Parallel()
	f := newReadFixture(t, map[string]string{"big.go": goFile(4500), "small.go": goFile(600)})
	res := f.call(t, "read_file", map[string]any{"path": "big.go", "startLine": 1001}, nil)
	require.False(t, res.Failed())
	outline := res.Content[strings.Index(res.Content, "Outline of the lines not shown (line: definition):\n"):]
	require.Equal(t, "Outline of the lines not shown (line: definition):\n"+
		"   500: func step500(x int) int {\n"+
		"  1000: func step1000(x int) int {\n"+
		"  3500: func step3500(x int) int {\n"+
		"  4000: func step4000(x int) int {\n"+
		"  4500: func step4500(x int) int {\n", outline)

	// A whole file needs no outline.
	require.NotContains(t, f.read(t, "small.go").Content, "Outline")
}

func TestReadFileStartLinePastTheEnd(t *testing.T) {
	t.Parallel()
	f := newReadFixture(t, map[string]string{"a.txt": numberedLines(30, "%d"), "b.txt": "one\ntwo"})
	for _, tt := range []struct {
		path  string
		start int
		want  string
	}{
		{"a.txt", 31, `"a.txt" has 30 lines, so there is no line 31 to start from.`},
		{"a.txt", 500, `"a.txt" has 30 lines, so there is no line 500 to start from.`},
		{"b.txt", 3, `"b.txt" has 2 lines, so there is no line 3 to start from.`},
	} {
		res := f.call(t, "read_file", map[string]any{"path": tt.path, "startLine": tt.start}, nil)
		require.Equal(t, ErrInvalidArguments, res.ErrorKind, tt.path)
		require.Equal(t, tt.want, res.Content)
	}
	res := f.call(t, "read_file", map[string]any{"path": "b.txt", "startLine": 2}, nil)
	require.False(t, res.Failed())
	require.Equal(t, "b.txt (2 lines; lines 2–2 shown):\n2| two\n(no newline at end of file)\n[lines 1–1 not shown: this read started at line 2.]\n", res.Content)
}

func TestIsDefinition(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]bool{
		"func main() {":                           true,
		"func (s *Server) Start() error {":        true,
		"type Server struct {":                    true,
		"    def parse(self, text):":              true,
		"class Parser:":                           true,
		"export default async function go() {":    true,
		"export const x = 1":                      false,
		"pub(crate) fn run() {":                   true,
		"  public static void main(String[] a) {": false,
		"public class Main {":                     true,
		"interface Props {":                       true,
		"## Installing":                           true,
		"#include <stdio.h>":                      false,
		"\t\t\tfunc inner() {}":                   false,
		"\tx += 1":                                false,
		"functional programming":                  false,
		"":                                        false,
	} {
		require.Equal(t, want, isDefinition([]byte(line)), "%q", line)
	}
}
