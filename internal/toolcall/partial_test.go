package toolcall

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestDetectPartial(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text string
		want bool
	}{
		{"", false},
		{"Hello there.", false},
		{"a < b", false},
		{"if (x) {", false},
		{"if (x) {\n  return y", false},
		{"[link](https://x) and [1]", false},
		{"<div>hi</div>", false},
		{"<", true},
		{"Let me check <", true},
		{"<t", true},
		{"<tool_c", true},
		{"< TOOL_ca", true},
		{"<toolc", true},
		{"</tool_c", true},
		{"<tool_call>", true},
		{"<tool_call>\n", true},
		{`<tool_call>{"na`, true},
		{`<tool_call>{"name": "a", "arguments": {}}`, true},
		{`<tool_call>{"name": "a", "arguments": {}}</tool_call>`, false},
		{"<tool_call>{\"name\": \"a\", \"arguments\": {}}\nNext I will", false},
		{"<tool_call>I forgot the JSON", false},
		{"<tool_call>{broken, then prose", true}, // broken calls run to the next tag or the end
		{"```", true},
		{"```js", true}, // may become ```json
		{"```json", true},
		{"```json\n", true},
		{"```json\n{", true},
		{"```json\n{\"name\": \"a\", \"arguments\": {}}\n", true},
		{"```json\n{\"name\": \"a\", \"arguments\": {}}\n```", false},
		{"```json\n{\"version\": 1}\n", false},
		{"```json\n{\"name\": \"my-app\", \"version\": \"1\"}\n", false},
		{"```go\n", false},
		{"```go\nfunc main() {", false},
		{"```\nnpm install", false},
		{"`code` is here", false},
		{"{", true},
		{`{"name": "a"`, true},
		{`{"type": "func`, true},
		{`{"type": "object"`, false},
		{`{"version": 1`, false},
		{`{"name": "a", "arguments": {}}`, false},
		{"{x}", false},
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, DetectPartial(tc.text), "text %q", tc.text)
	}
}

// streamCalls are calls as they appear in an answer, each ending where the call is over.
var streamCalls = []string{
	`<tool_call>{"name": "read_file", "arguments": {"path": "a.go"}}</tool_call>`,
	"<tool_call>\n```json\n{\"name\": \"w\", \"arguments\": {\"content\": \"a } b </tool_call> \\\" c\\\\\"}}\n```\n</tool_call>",
	"< tool_call >\n{\"tool\": \"shell\", \"command\": \"ls\"}\n</ tool_call >",
	`<toolcall> {"name": "weather", "arguments": {"zip": [12345]}} </toolcall>`,
	"```json\n{\"name\": \"query\", \"parameters\": {\"q\": \"x\"}}\n```",
	"```\n<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>\n```",
	`{"name": "shell", "arguments": {"command": ["ls", "-la"]}}`,
	`{"type": "function", "function": {"name": "t", "parameters": {"loc": "Sydney"}}}`,
	"<tool_call>\n<function=run>\n<parameter=command>\ngit init\n</parameter>\n</function>\n</tool_call>",
}

// Fed a byte at a time, a call is partial from its first byte until its last.
func TestDetectPartialStream(t *testing.T) {
	t.Parallel()
	for _, prose := range []string{"", "Let me look at that.\n", "First:\n\n"} {
		for _, call := range streamCalls {
			for k := 1; k < len(call); k++ {
				require.True(t, DetectPartial(prose+call[:k]), "prefix %q", prose+call[:k])
			}
			require.False(t, DetectPartial(prose+call), "whole %q", prose+call)
			require.False(t, DetectPartial(prose+call+"\nDone."), "followed by prose")
			require.NotEmpty(t, Extract(prose+call))
		}
	}
}

// Streamed a byte at a time, an answer mixing prose and calls is partial exactly while a
// call is being written.
func TestDetectPartialAnswer(t *testing.T) {
	t.Parallel()
	var answer strings.Builder
	var calls []span
	for k, c := range streamCalls {
		fmt.Fprintf(&answer, "Step %d: as planned, (x) and [y] stay prose.\n", k)
		start := answer.Len()
		answer.WriteString(c)
		calls = append(calls, span{start, answer.Len()})
		answer.WriteString("\n")
	}
	text := answer.String()
	for n := 0; n <= len(text); n++ {
		inside := false
		for _, c := range calls {
			inside = inside || c.start < n && n < c.end
		}
		require.Equal(t, inside, DetectPartial(text[:n]), "prefix %q", text[:n])
	}
	require.Len(t, Extract(text), len(streamCalls))
}

// Text built to make a naive parser rescan — unclosed values, endless tag prefixes, nested
// line-start objects, every dialect's opener over and over — still takes one pass.
func TestLinearTime(t *testing.T) {
	t.Parallel()
	const n = 1 << 20
	inputs := []string{
		strings.Repeat("{\"a\": [\n", n/8),
		strings.Repeat("{\"name\": \"x\", \"arguments\": {\n", n/30),
		strings.Repeat("<tool_c <", n/9),
		strings.Repeat("<tool_call>{", n/12),
		strings.Repeat("```json\n{\"a\n", n/12),
		strings.Repeat("\"", n),
		strings.Repeat("[", n),
		strings.Repeat("<tool_call>{\"a\": \"\\", n/16),
		// The known-mode dialect readers.
		strings.Repeat("[TOOL_CALLS]", n/12),
		strings.Repeat("[TOOL_CALLS][{'a': [", n/20),
		strings.Repeat("[a(b='x\n", n/8),
		strings.Repeat("[read_file(path='''\n", n/20),
		strings.Repeat("<function=read_file>", n/20),
		strings.Repeat("<｜tool▁call▁begin｜>", n/30),
		strings.Repeat("<｜tool▁calls▁begin｜>", n/30),
		strings.Repeat("<|start|>", n/9),
		strings.Repeat("<|channel|>analysis<|message|>", n/30),
		strings.Repeat("<tool_call>read_file<arg_key>", n/30),
		strings.Repeat("<invoke name=\"read_file\">", n/25),
		strings.Repeat("```tool_code\n", n/13),
		strings.Repeat("{\"role\": ", n/9),
		strings.Repeat("functools[", n/10),
		strings.Repeat("Action: ```json\n[", n/17),
		strings.Repeat("<think>", n/7),
		strings.Repeat("<|python_tag|>read_file(a=1) ", n/29),
		strings.Repeat("[", n),
		strings.Repeat("<|", n/2),
	}
	for _, text := range inputs {
		start := time.Now()
		DetectPartial(text)
		Extract(text)
		Remove(text)
		DetectPartialKnown(text, isKnownTool)
		ExtractKnown(text, isKnownTool)
		RemoveKnown(text, isKnownTool)
		// Quadratic work on a megabyte would take hours; linear takes milliseconds, and a minute
		// tells the two apart however busy the machine (make bench measures the speed).
		require.Less(t, time.Since(start), time.Minute, "input %.40q", text)
	}
}
