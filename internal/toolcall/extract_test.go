package toolcall

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

type args = map[string]any

// nameArgs is what a case expects of a call: its name and arguments.
type nameArgs struct {
	Name      string
	Arguments map[string]any
}

func namesArgs(calls []Call) []nameArgs {
	var out []nameArgs
	for _, c := range calls {
		out = append(out, nameArgs{c.Name, c.Arguments})
	}
	return out
}

var extractCases = []struct {
	name string
	text string
	want []nameArgs
}{
	// The canonical form and its tag variants.
	{"canonical", `<tool_call>{"name": "read_file", "arguments": {"path": "a.go"}}</tool_call>`,
		[]nameArgs{{"read_file", args{"path": "a.go"}}}},
	{"prose around", "Let me look.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}\n</tool_call>\nDone.",
		[]nameArgs{{"read_file", args{"path": "a.go"}}}},
	{"spaces in tags", `< tool_call >{"name": "a", "arguments": {}}</ tool_call >`, []nameArgs{{"a", args{}}}},
	{"newline in tags", "<tool_call\n>{\"name\": \"a\", \"arguments\": {}}</tool_call\n>", []nameArgs{{"a", args{}}}},
	{"upper case tags", `<TOOL_CALL>{"name": "a", "arguments": {}}</TOOL_CALL>`, []nameArgs{{"a", args{}}}},
	{"nemotron toolcall tag", ` <toolcall> {"name": "a", "arguments": {"x": 1}} </toolcall>`, []nameArgs{{"a", args{"x": 1.0}}}},
	{"several calls", `<tool_call>{"name": "a", "arguments": {}}</tool_call> then <tool_call>{"name": "b", "arguments": {}}</tool_call>`,
		[]nameArgs{{"a", args{}}, {"b", args{}}}},
	{"repeated identical calls are all kept", "<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>\n<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>",
		[]nameArgs{{"a", args{}}, {"a", args{}}}},
	{"two objects in one tag", "<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n{\"name\": \"b\", \"arguments\": {}}\n</tool_call>",
		[]nameArgs{{"a", args{}}, {"b", args{}}}},
	{"array in a tag", `<tool_call>[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}]</tool_call>`,
		[]nameArgs{{"a", args{}}, {"b", args{}}}},
	{"stray brace after the JSON", `<tool_call>{"name": "a", "arguments": {"x": 1}}}</tool_call>`, []nameArgs{{"a", args{"x": 1.0}}}},

	// Missing closing tags.
	{"no closing tag at end", `<tool_call>{"name": "a", "arguments": {"p": "x"}}`, []nameArgs{{"a", args{"p": "x"}}}},
	{"no closing tag before next call", `<tool_call>{"name": "a", "arguments": {}} <tool_call>{"name": "b", "arguments": {}}</tool_call>`,
		[]nameArgs{{"a", args{}}, {"b", args{}}}},
	{"no closing tag, prose after", "<tool_call>{\"name\": \"a\", \"arguments\": {}}\nNow the next step.", []nameArgs{{"a", args{}}}},
	{"missing braces before closing tag", `<tool_call>{"name": "a", "arguments": {"p": "x"}</tool_call>`, []nameArgs{{"a", args{"p": "x"}}}},

	// Fences.
	{"tagged call in json fence", "```json\n<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>\n```", []nameArgs{{"a", args{}}}},
	{"bare call in json fence", "```json\n{\"name\": \"a\", \"arguments\": {\"p\": 1}}\n```", []nameArgs{{"a", args{"p": 1.0}}}},
	{"bare call in plain fence", "```\n{\"name\": \"a\", \"parameters\": {}}\n```", []nameArgs{{"a", args{}}}},
	{"bare call in upper-case JSON fence", "```JSON\n{\"name\": \"a\", \"args\": {}}\n```", []nameArgs{{"a", args{}}}},
	{"fence inside the tag", "<tool_call>\n```json\n{\"name\": \"a\", \"arguments\": {}}\n```\n</tool_call>", []nameArgs{{"a", args{}}}},
	{"tag in fence, no closing tag", "```xml\n<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n```\nok", []nameArgs{{"a", args{}}}},
	{"json data in fence is not a call", "```json\n{\"name\": \"my-app\", \"version\": \"1.0.0\"}\n```", nil},
	{"bare call in a go fence is code", "```go\n{\"name\": \"a\", \"arguments\": {}}\n```", nil},

	// Bare calls in prose.
	{"bare call", `{"name": "shell", "arguments": {"command": ["ls"]}}`, []nameArgs{{"shell", args{"command": []any{"ls"}}}}},
	{"bare call after a heading", "### Time\n{\"name\": \"now\", \"parameters\": {\"utc\": true}}", []nameArgs{{"now", args{"utc": true}}}},
	{"bare calls on one line", `{"name": "a", "arguments": {}} {"name": "b", "arguments": {}}`, []nameArgs{{"a", args{}}, {"b", args{}}}},
	{"bare array of calls", `[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}]`, []nameArgs{{"a", args{}}, {"b", args{}}}},
	{"bare call missing a brace, then another", "{\"name\": \"a\", \"arguments\": {\"p\": 1}\n{\"name\": \"b\", \"arguments\": {}}",
		[]nameArgs{{"a", args{"p": 1.0}}, {"b", args{}}}},
	{"bare object mid-line is prose", `Use {"name": "a", "arguments": {}} like this.`, nil},
	{"bare object without arguments key is data", `{"name": "Alice", "age": 3}`, nil},
	{"bare array with a non-call is data", `[{"name": "a", "arguments": {}}, 3]`, nil},

	// Field names.
	{"args", `<tool_call>{"name": "a", "args": {"p": 1}}</tool_call>`, []nameArgs{{"a", args{"p": 1.0}}}},
	{"params", `<tool_call>{"name": "a", "params": {"p": 1}}</tool_call>`, []nameArgs{{"a", args{"p": 1.0}}}},
	{"parameters", `<tool_call>{"name": "a", "parameters": {"p": 1}}</tool_call>`, []nameArgs{{"a", args{"p": 1.0}}}},
	{"top-level arguments", `<tool_call>{"name": "read_file", "path": "a.go", "line": 3}</tool_call>`,
		[]nameArgs{{"read_file", args{"path": "a.go", "line": 3.0}}}},
	{"tool key", `<tool_call>{"tool": "a", "arguments": {}}</tool_call>`, []nameArgs{{"a", args{}}}},
	{"function key as name", `<tool_call>{"function": "a", "arguments": {}}</tool_call>`, []nameArgs{{"a", args{}}}},
	{"tool key with a name argument", `<tool_call>{"tool": "create_branch", "name": "fix-1"}</tool_call>`,
		[]nameArgs{{"create_branch", args{"name": "fix-1"}}}},
	{"openai wrapper", `<tool_call>{"function": {"name": "a", "arguments": {"p": 1}}}</tool_call>`, []nameArgs{{"a", args{"p": 1.0}}}},
	{"openai typed wrapper", `<tool_call>{"type": "function", "function": {"name": "a", "arguments": "{\"p\": 1}"}}</tool_call>`,
		[]nameArgs{{"a", args{"p": 1.0}}}},
	{"openai typed wrapper bare", `{"type": "function", "function": {"name": "a", "parameters": {"p": 1}}}`, []nameArgs{{"a", args{"p": 1.0}}}},
	{"bare wrapper with arguments", `{"function": {"name": "a", "arguments": {}}}`, []nameArgs{{"a", args{}}}},
	{"bare typed wrapper without arguments", `{"type": "function", "function": {"name": "a"}}`, []nameArgs{{"a", args{}}}},
	{"bare wrapper-like data", "```json\n{\"function\": {\"name\": \"my-func\", \"runtime\": \"node\"}}\n```", nil},
	{"type function is not an argument", `<tool_call>{"type": "function", "name": "a", "p": 1}</tool_call>`, []nameArgs{{"a", args{"p": 1.0}}}},
	{"arguments as a JSON string", `<tool_call>{"name": "a", "arguments": "{\"path\": \"x\", \"n\": [1, 2]}"}</tool_call>`,
		[]nameArgs{{"a", args{"path": "x", "n": []any{1.0, 2.0}}}}},
	{"arguments as a non-JSON string", `<tool_call>{"name": "a", "arguments": "ls -la"}</tool_call>`, []nameArgs{{"a", args{}}}},
	{"null arguments", `<tool_call>{"name": "a", "arguments": null}</tool_call>`, []nameArgs{{"a", args{}}}},
	{"name is trimmed", `<tool_call>{"name": " a ", "arguments": {}}</tool_call>`, []nameArgs{{"a", args{}}}},

	// Strings the brace counting must respect.
	{"brace in a string", `<tool_call>{"name": "w", "arguments": {"content": "func f() {"}}</tool_call>`,
		[]nameArgs{{"w", args{"content": "func f() {"}}}},
	{"closing tag in a string", `<tool_call>{"name": "w", "arguments": {"content": "x</tool_call>y"}}</tool_call>`,
		[]nameArgs{{"w", args{"content": "x</tool_call>y"}}}},
	{"escaped quotes", `<tool_call>{"name": "w", "arguments": {"content": "say \"}\" now"}}</tool_call>`,
		[]nameArgs{{"w", args{"content": `say "}" now`}}}},
	{"escaped backslash before quote", `<tool_call>{"name": "w", "arguments": {"p": "C:\\", "q": "}"}}</tool_call>`,
		[]nameArgs{{"w", args{"p": `C:\`, "q": "}"}}}},

	// JSON the model got wrong.
	{"trailing commas", `<tool_call>{"name": "a", "arguments": {"l": [1, 2,], "p": "x",},}</tool_call>`,
		[]nameArgs{{"a", args{"l": []any{1.0, 2.0}, "p": "x"}}}},
	{"raw newlines in a string", "<tool_call>{\"name\": \"w\", \"arguments\": {\"content\": \"a\n\tb\"}}</tool_call>",
		[]nameArgs{{"w", args{"content": "a\n\tb"}}}},
	{"unescaped quotes in a string", `<tool_call>{"name": "w", "arguments": {"content": "<html lang="en">"}}</tool_call>`,
		[]nameArgs{{"w", args{"content": `<html lang="en">`}}}},
	{"invalid escapes", `<tool_call>{"name": "w", "arguments": {"path": "C:\Users\it\'s"}}</tool_call>`,
		[]nameArgs{{"w", args{"path": `C:\Users\it's`}}}},

	// Cut-off calls.
	{"cut in a string", `<tool_call>{"name": "write_file", "arguments": {"path": "x.go", "content": "abc`,
		[]nameArgs{{"write_file", args{"path": "x.go", "content": "abc"}}}},
	{"cut in an array", `<tool_call>{"name": "a", "arguments": {"l": [1, 2`, []nameArgs{{"a", args{"l": []any{1.0, 2.0}}}}},
	{"cut after a comma", `<tool_call>{"name": "a", "arguments": {"p": 1,`, []nameArgs{{"a", args{"p": 1.0}}}},
	{"cut in a key", `<tool_call>{"name": "a", "arguments": {"p": 1, "con`, []nameArgs{{"a", args{"p": 1.0}}}},
	{"cut after a colon", `<tool_call>{"name": "a", "arguments": {"p": 1, "q":`, []nameArgs{{"a", args{"p": 1.0}}}},
	{"cut in a literal", `<tool_call>{"name": "a", "arguments": {"p": 1, "q": tr`, []nameArgs{{"a", args{"p": 1.0}}}},
	{"cut in an escape", `<tool_call>{"name": "a", "arguments": {"p": "x\u00`, []nameArgs{{"a", args{"p": "x"}}}},
	{"cut before arguments", `<tool_call>{"name": "a", "argu`, []nameArgs{{"a", args{}}}},
	{"cut before the name", `<tool_call>{"na`, nil},
	{"cut bare call", `{"name": "a", "arguments": {"p": "ab`, []nameArgs{{"a", args{"p": "ab"}}}},

	// Qwen3-Coder's XML body.
	{"qwen3 xml", "<tool_call>\n<function=run>\n<parameter=command>\ngit init\n</parameter>\n<parameter=n>\n2\n</parameter>\n</function>\n</tool_call>",
		[]nameArgs{{"run", args{"command": "git init", "n": "2"}}}},
	{"qwen3 xml cut off", "<tool_call>\n<function=write>\n<parameter=content>\nline 1\nli", []nameArgs{{"write", args{"content": "line 1\nli"}}}},

	// Garbage.
	{"empty", "", nil},
	{"prose", "Nothing to do here. a < b, if (x) { y }", nil},
	{"empty tag", "<tool_call></tool_call>", nil},
	{"tag mention", "I will use <tool_call> tags.", nil},
	{"no name", `<tool_call>{"arguments": {"p": 1}}</tool_call>`, nil},
	{"empty name", `<tool_call>{"name": "", "arguments": {}}</tool_call>`, nil},
	{"name not a string", `<tool_call>{"name": 3, "arguments": {}}</tool_call>`, nil},
	{"unquoted keys", `<tool_call>{name: "a"}</tool_call>`, nil},
	{"broken JSON before a good call", `<tool_call>{"name": "a" "x"}</tool_call><tool_call>{"name": "b", "arguments": {}}</tool_call>`,
		[]nameArgs{{"b", args{}}}},
}

func TestExtract(t *testing.T) {
	t.Parallel()
	for _, tc := range extractCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, namesArgs(Extract(tc.text)))
		})
	}
}

// Every call carries a name, however the text is cut or mangled.
func TestExtractNeverReturnsEmptyName(t *testing.T) {
	t.Parallel()
	for _, tc := range extractCases {
		for _, text := range mangle(tc.text) {
			for _, c := range Extract(text) {
				require.NotEmpty(t, strings.TrimSpace(c.Name), "text %q", text)
				require.NotNil(t, c.Arguments, "text %q", text)
			}
		}
	}
}

// Random mixes of call fragments, prose and markup never yield a nameless call, and Remove
// never leaves a tag behind.
func TestRandomText(t *testing.T) {
	t.Parallel()
	pieces := []string{
		"<tool_call>", "</tool_call>", "< toolcall >", "<", "{", "}", "[", "]", "\"", "\\", ":", ",", "\n",
		"```json\n", "```\n", "\n```", `"name"`, `"arguments"`, `"function"`, `"read_file"`, `""`,
		"<function=", "<parameter=x>", "</parameter>", "text ", "tru", "1", " ",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.String()
		for _, c := range Extract(text) {
			require.NotEmpty(t, strings.TrimSpace(c.Name), "text %q", text)
			require.NotNil(t, c.Arguments, "text %q", text)
		}
		DetectPartial(text)
		requireNoTag(t, Remove(text), text)
	}
}

// mangle returns variants of text: every prefix, every single byte dropped, and each quote,
// brace or bracket doubled.
func mangle(text string) []string {
	out := []string{text}
	for i := range len(text) {
		out = append(out, text[:i], text[:i]+text[i+1:])
		if strings.IndexByte(`"{}[]<>`, text[i]) >= 0 {
			out = append(out, text[:i+1]+text[i:])
		}
	}
	return out
}
