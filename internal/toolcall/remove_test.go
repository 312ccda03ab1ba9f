package toolcall

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const call = `<tool_call>{"name": "read_file", "arguments": {"path": "a.go"}}</tool_call>`

func TestRemove(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, text, want string
	}{
		{"prose only", "  a < b, if (x) { y }\n", "a < b, if (x) { y }"},
		{"only a call", call, ""},
		{"paragraphs", "Let me read it.\n\n" + call + "\n\nDone.", "Let me read it.\n\nDone."},
		{"line between lines", "Reading:\n" + call + "\nDone.", "Reading:\nDone."},
		{"inline", "Reading " + call + " now.", "Reading now."},
		{"no space around", "a" + call + "b", "ab"},
		{"blank lines collapse", "A\n\n\n\n" + call + "\n\n\n\n" + call + "\n\n\nB", "A\n\nB"},
		{"indentation kept", "Steps:\n" + call + "\n    indented", "Steps:\n    indented"},
		{"prose between calls kept", call + "\nFirst this.\n" + call + "\nThen that.", "First this.\nThen that."},
		{"string holding the closing tag", `x <tool_call>{"name": "w", "arguments": {"c": "</tool_call> y"}}</tool_call> z`, "x z"},
		{"stray closing tag", "Done.</tool_call>", "Done."},
		{"tag mention", "I use <tool_call> tags.", "I use tags."},
		{"missing closing tag", "<tool_call>{\"name\": \"a\", \"arguments\": {}}\nAnd then.", "And then."},
		{"broken call runs to the next tag", "A <tool_call>{name: a}</tool_call> B", "A B"},
		{"broken call runs to the end", "A <tool_call>{name: a}\nB", "A"},
		{"broken call in a fence runs to its end", "A\n```\n<tool_call>{name: a}\n```\nB", "A\nB"},
		{"fence holding a call", "Intro\n\n```json\n{\"name\": \"a\", \"arguments\": {}}\n```\n\nOutro", "Intro\n\nOutro"},
		{"fence holding a tagged call", "Intro\n```\n<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>\n```\nOutro", "Intro\nOutro"},
		{"fence holding more than a call", "```json\n// read it\n" + call + "\n```", "```json\n// read it\n```"},
		{"fence with data kept", "```json\n{\"name\": \"my-app\"}\n```", "```json\n{\"name\": \"my-app\"}\n```"},
		{"bare call", "I'll run it.\n{\"name\": \"shell\", \"arguments\": {\"command\": \"ls\"}}", "I'll run it."},
		{"bare call mid-line is prose", `Write {"name": "a", "arguments": {}} to call.`, `Write {"name": "a", "arguments": {}} to call.`},
		{"qwen3 xml", "Init:\n<tool_call>\n<function=run>\n<parameter=c>\nx\n</parameter>\n</function>\n</tool_call>", "Init:"},
		{"cut-off call", "Let me check.\n<tool_call>{\"na", "Let me check."},
		{"tag prefix", "Hello <tool_c", "Hello"},
		{"lone angle bracket at end", "Hello <", "Hello"},
		{"opened fence", "Hello\n```json\n", "Hello"},
		{"fence with call not closed yet", "Hello\n```json\n{\"name\": \"a\", \"arguments\": {}}\n``", "Hello"},
		{"joining forms a tag", "<tool" + call + "_call>x", "x"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, Remove(tc.text))
		})
	}
}

// Whatever Remove leaves holds no call markup.
func TestRemoveLeavesNoMarkup(t *testing.T) {
	t.Parallel()
	for _, tc := range extractCases {
		for _, text := range mangle(tc.text) {
			out := Remove(text)
			requireNoTag(t, out, text)
		}
	}
}

// requireNoTag fails if out, what Remove made of text, still holds an opening or closing tag.
func requireNoTag(t *testing.T, out, text string) {
	t.Helper()
	_, _, kind := nextTag(out, 0)
	require.NotContains(t, []tagKind{openTag, closeTag}, kind, "Remove(%q) = %q", text, out)
}
