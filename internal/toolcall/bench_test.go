package toolcall

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// benchShapes are the call shapes mixed into the benchmark answers.
var benchShapes = []string{
	"<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"internal/pkg%d/file.go\"}}\n</tool_call>",
	"<tool_call>{\"name\": \"write_file\", \"arguments\": {\"path\": \"gen/out%d.go\", \"content\": \"package gen\\n\\nfunc F() map[string]int {\\n\\treturn map[string]int{\\\"a\\\": 1}\\n}\\n\"}}</tool_call>",
	"```json\n{\"name\": \"search_workspace\", \"parameters\": {\"query\": \"TODO %d\", \"isRegex\": false}}\n```",
	"{\"type\": \"function\", \"function\": {\"name\": \"run_terminal_command\", \"arguments\": \"{\\\"command\\\": \\\"go test ./... -run T%d\\\"}\"}}",
	"< tool_call >{\"tool\": \"list_files\", \"path\": \"dir%d\",}</tool_call>",
	"<tool_call>\n<function=get_diagnostics>\n<parameter=path>\nmain%d.go\n</parameter>\n</function>\n</tool_call>",
}

// benchKnownShapes add a call in each other dialect, for the known-mode benchmarks.
var benchKnownShapes = append(slices.Clone(benchShapes),
	"[TOOL_CALLS]read_file[ARGS]{\"path\": \"a%d.go\"}",
	"<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{\"path\": \"b%d.go\"}<|call|>",
	"[list_files(path=\"dir%d\", recursive=True)]",
	"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{\"path\": \"c%d.go\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
	"<tool_call>get_diagnostics\n<arg_key>path</arg_key>\n<arg_value>d%d.go</arg_value>\n</tool_call>",
	"<|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>{\"path\": \"e%d.go\"}<|tool_call_end|><|tool_calls_section_end|>",
	"<function_calls>\n<invoke name=\"read_file\">\n<parameter name=\"path\">f%d.go</parameter>\n</invoke>\n</function_calls>",
	"```tool_code\nprint(default_api.list_files(path=\"g%d\"))\n```",
)

// benchTools are the tools the benchmark answers call.
func benchTools(name string) bool {
	switch name {
	case "read_file", "write_file", "search_workspace", "run_terminal_command", "list_files", "get_diagnostics":
		return true
	}
	return false
}

const benchProse = `The handler reads the request, checks that a < b holds for every pair, and only then
writes the response. If (x) { y } appears in the text it is just prose, as is [a link](x).
Here is what I found in ` + "`parse.go`" + `: the loop never terminates when the input is empty,
because the index is compared with <= instead of <. I will fix that next.

` + "```go\nfor i := 0; i <= len(s); i++ {\n\tif s[i] == '{' {\n\t\tdepth++\n\t}\n}\n```" + `

`

// benchAnswer builds an answer of about size bytes: prose with calls of every shape, one
// every gap bytes.
func benchAnswer(size, gap int, shapes []string) (string, int) {
	var b strings.Builder
	calls := 0
	for b.Len() < size {
		for since := 0; since < gap && b.Len() < size; since += len(benchProse) {
			b.WriteString(benchProse)
		}
		fmt.Fprintf(&b, shapes[calls%len(shapes)]+"\n\n", calls)
		calls++
	}
	return b.String(), calls
}

func TestBenchAnswer(t *testing.T) {
	t.Parallel()
	text, calls := benchAnswer(64<<10, 2500, benchShapes)
	require.Len(t, Extract(text), calls)
	require.False(t, DetectPartial(text))
	require.NotContains(t, Remove(text), "_file")

	text, calls = benchAnswer(64<<10, 2500, benchKnownShapes)
	require.Len(t, ExtractKnown(text, benchTools), calls)
	require.False(t, DetectPartialKnown(text, benchTools))
	require.NotContains(t, RemoveKnown(text, benchTools), "_file")
}

func BenchmarkExtract1MB(b *testing.B) {
	benchmarkExtract(b, benchShapes, Extract)
}

func BenchmarkExtractKnown1MB(b *testing.B) {
	benchmarkExtract(b, benchKnownShapes, func(text string) []Call { return ExtractKnown(text, benchTools) })
}

func benchmarkExtract(b *testing.B, shapes []string, extract func(string) []Call) {
	text, calls := benchAnswer(1<<20, 5000, shapes)
	require.Len(b, extract(text), calls)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		extract(text)
	}
}

func BenchmarkDetectPartialStream(b *testing.B) {
	benchmarkStream(b, benchShapes, DetectPartial)
}

func BenchmarkDetectPartialKnownStream(b *testing.B) {
	benchmarkStream(b, benchKnownShapes, func(text string) bool { return DetectPartialKnown(text, benchTools) })
}

// benchmarkStream looks at a 100 KB answer as it streams in, 64 bytes at a time.
func benchmarkStream(b *testing.B, shapes []string, partial func(string) bool) {
	text, _ := benchAnswer(100<<10, 2500, shapes)
	total := len(text)
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for n := 64; n < total+64; n += 64 {
			partial(text[:min(n, total)])
		}
	}
}
