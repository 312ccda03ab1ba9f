package toolcall

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// knownTools are the tools of the runs these tests imagine.
var knownTools = []string{"read_file", "write_file", "run_terminal_command", "get_weather", "list_files", "search"}

func isKnownTool(name string) bool { return slices.Contains(knownTools, name) }

var knownCases = []struct {
	name string
	text string
	want []Call
}{
	// Values the XML-ish dialects write as text.
	{"qwen3 typed values", "<tool_call>\n<function=write_file>\n<parameter=path>\na.json\n</parameter>\n<parameter=n>\n2\n</parameter>\n<parameter=ok>\ntrue\n</parameter>\n<parameter=none>\nnull\n</parameter>\n<parameter=list>\n[1, \"x\"]\n</parameter>\n<parameter=version>\n1.0\n</parameter>\n<parameter=quoted>\n\"x\"\n</parameter>\n</function>\n</tool_call>",
		[]Call{{"write_file", args{"path": "a.json", "n": 2.0, "ok": true, "none": nil, "list": []any{1.0, "x"}, "version": "1.0", "quoted": `"x"`}, DialectQwen3Coder}}},
	{"qwen3 code stays exact", "<function=write_file>\n<parameter=content>\n{\n  \"a\": 1\n}\n\n</parameter>\n</function>",
		[]Call{{"write_file", args{"content": "{\n  \"a\": 1\n}\n"}, DialectQwen3Coder}}},
	{"glm typed value", "<tool_call>get_weather<arg_key>days</arg_key><arg_value>3</arg_value><arg_key>city</arg_key><arg_value> Oslo </arg_value></tool_call>",
		[]Call{{"get_weather", args{"days": 3.0, "city": " Oslo "}, DialectGLM}}},

	// Units: a list holding an unknown name is prose whole.
	{"mistral list with an unknown name", `[TOOL_CALLS][{"name": "read_file", "arguments": {}}, {"name": "nope", "arguments": {}}]`, nil},
	{"mistral mid-sentence", `Let me read it.[TOOL_CALLS]read_file[ARGS]{"path": "a.go"}`, []Call{{"read_file", args{"path": "a.go"}, DialectMistral}}},
	{"mistral call id", `[TOOL_CALLS]read_file[CALL_ID]a1b2c3d4e[ARGS]{"path": "a.go"}`, []Call{{"read_file", args{"path": "a.go"}, DialectMistral}}},
	{"tool definition in a tag", `<tool_call>{"name": "read_file", "description": "Read a file", "parameters": {"type": "object", "properties": {}}}</tool_call>`, nil},
	{"top-level arguments", `{"name": "read_file", "path": "a.go"}`, []Call{{"read_file", args{"path": "a.go"}, DialectJSON}}},
	{"llama calls apart by semicolons", `{"name": "search", "parameters": {"query": "a"}}; {"name": "list_files", "parameters": {}}`,
		[]Call{{"search", args{"query": "a"}, DialectJSON}, {"list_files", args{}, DialectJSON}}},
	{"python tag calls apart by semicolons", `<|python_tag|>{"name": "search", "parameters": {"query": "a"}}; {"name": "list_files", "parameters": {}}<|eom_id|>`,
		[]Call{{"search", args{"query": "a"}, DialectLlamaPythonTag}, {"list_files", args{}, DialectLlamaPythonTag}}},
	{"python tag bare pythonic call", `<|python_tag|>get_weather(city="Oslo")<|eom_id|>`, []Call{{"get_weather", args{"city": "Oslo"}, DialectLlamaPythonTag}}},
	{"envelope in a tag", `<tool_call>{"tool_calls": [{"function": {"name": "list_files", "arguments": "{}"}}]}</tool_call>`, []Call{{"list_files", args{}, DialectOpenAIEnvelope}}},
	{"deepseek call without its section", "<｜tool▁call▁begin｜>list_files<｜tool▁sep｜>{}<｜tool▁call▁end｜>", []Call{{"list_files", args{}, DialectDeepSeek}}},
	{"kimi id without a name", "<|tool_calls_section_begin|><|tool_call_begin|>0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>", nil},
	{"harmony final channel", "<|channel|>final<|message|>The weather is fine.", nil},
	{"harmony unknown recipient", `<|channel|>commentary to=browser.search <|constrain|>json<|message|>{"query": "x"}<|call|>`, nil},
	{"harmony recipient before the channel", `<|start|>assistant to=functions.list_files<|channel|>commentary json<|message|>{}<|call|>`, []Call{{"list_files", args{}, DialectHarmony}}},
	{"command-r directly_answer", "Action: ```json\n[{\"tool_name\": \"directly_answer\", \"parameters\": {}}]\n```", nil},
	{"gemma fence of code", "```tool_code\nimport os\nprint(os.listdir())\n```", nil},
	{"invoke without a wrapper", `<invoke name="list_files"><parameter name="path">.</parameter></invoke>`, []Call{{"list_files", args{"path": "."}, DialectInvokeXML}}},

	// Pythonic literals.
	{"pythonic literals", `[search(query="a \"b\"\n", limit=-2.5e1, exact=False, filters={"lang": ["go", None]}, pair=(1, 2), raw=r"C:\x", text='''two
lines''')]`,
		[]Call{{"search", args{"query": "a \"b\"\n", "limit": -25.0, "exact": false, "filters": map[string]any{"lang": []any{"go", nil}},
			"pair": []any{1.0, 2.0}, "raw": `C:\x`, "text": "two\nlines"}, DialectPythonic}}},
	{"pythonic positional argument", `[get_weather("Oslo")]`, nil},
	{"pythonic mid-line is prose", `Call [get_weather(city="Oslo")] now.`, nil},
	{"pythonic in a python fence is code", "```python\n[get_weather(city=\"Oslo\")]\n```", nil},

	// Thinking.
	{"call inside think", `<think>maybe <tool_call>{"name": "read_file", "arguments": {}}</tool_call></think><tool_call>{"name": "list_files", "arguments": {}}</tool_call>`,
		[]Call{{"list_files", args{}, DialectHermes}}},
	{"think never closed", `<think>I will call [TOOL_CALLS]read_file[ARGS]{}`, nil},
	{"seed think", `<seed:think>[get_weather(city="x")]</seed:think>[get_weather(city="y")]`, []Call{{"get_weather", args{"city": "y"}, DialectPythonic}}},
}

func TestExtractKnown(t *testing.T) {
	t.Parallel()
	for _, tc := range knownCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, ExtractKnown(tc.text, isKnownTool))
			require.False(t, DetectPartialKnown(tc.text, isKnownTool))
			if tc.want == nil {
				require.Equal(t, strings.TrimSpace(tc.text), RemoveKnown(tc.text, isKnownTool), "prose stays whole")
			}
		})
	}
}

// Extract keeps its behaviour where known mode differs: strings for XML values, no reading
// of the other dialects; it too leaves a call inside <think> alone.
func TestExtractUnchangedByKnownMode(t *testing.T) {
	t.Parallel()
	xml := "<tool_call>\n<function=run>\n<parameter=n>\n2\n</parameter>\n</function>\n</tool_call>"
	require.Equal(t, []Call{{"run", args{"n": "2"}, DialectQwen3Coder}}, Extract(xml))
	require.Empty(t, Extract(`[TOOL_CALLS]read_file[ARGS]{"path": "a.go"}`))
	require.Empty(t, Extract(`<think><tool_call>{"name": "a", "arguments": {}}</tool_call></think>`))
	require.Empty(t, Extract(`Musing {"name": "a", "arguments": {}}`+"\n"+`{"name": "a", "arguments": {}}`+"\n</think>\nAnswer."))
	require.Empty(t, ExtractKnown(`<tool_call>{"name": "read_file", "arguments": {}}</tool_call>`, nil), "a nil known knows no tool")
}

func TestDetectPartialKnown(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text string
		want bool
	}{
		{"Hello there.", false},
		{"a < b and a[0]", false},
		{"[", true},
		{"[TOOL_C", true},
		{"Now [TOOL_CALLS]", true},
		{"Now [TOOL_CALLS]read_fi", true},
		{"Now [TOOL_CALLS]read_file[AR", true},
		{"Now [TOOL_CALLS]nope[ARGS]{\"a\": 1", false},
		{"see [TODO", false},
		{"[link", true}, // a pythonic list may be starting
		{"[link](https://x)", false},
		{"[get_weather(city=\"Os", true},
		{"[nope(city=\"Os", false},
		{"<|", true},
		{"<|tool_ca", true},
		{"<|im_end|>", false},
		{"<｜tool▁call", true},
		{"<\xef\xbd", true}, // a fullwidth bar cut in the middle
		{"<|python_tag|>de", true},
		{"<|python_tag|>def is_prime", false},
		{"<|python_tag|>def is_prime(n):", false},
		{"<|channel|>analysis<|message|>We need", false},
		{"<|channel|>commentary to=functions.get_wea", true},
		{"<|channel|>commentary to=functions.nope <|message|>{\"a\"", false},
		{"functo", true},
		{"function", false},
		{"Act", true},
		{"Acting", false},
		{"Action: ```js", true},
		{"Action: ```python\n", false},
		{`<tool_call>{"name": "read_fi`, true},
		{`<tool_call>{"name": "nope"`, false},
		{"<tool_call>read_fi", true},
		{"<tool_call>I forgot the JSON\n", false},
		{"<function=read_fi", true},
		{"<function=nope>", false},
		{"<invoke name=\"nope\">", false},
		{"<inv", true},
		{"```tool_co", true},
		{"```tool_code\nprint(default_api.read", true},
		{"```tool_code\nimport os\n", false},
		{"```tool_code\nprint(default_api.nope(", false},
		{"{\"name\": \"my-app\", \"version\"", false},
		{"{\"name\": \"read_file\", \"description\": \"x\",", false},
		{"{\"role\": \"assistant\", \"tool_calls\": [", true},
		{"<think>[TOOL_CALLS]", false},
		{`[TOOL_CALLS][{"name": "read_file", "arguments": {}}, {"name": "writ`, true},
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, DetectPartialKnown(tc.text, isKnownTool), "text %q", tc.text)
	}
}

// The corpus samples strung together into one long answer read as the samples do one by
// one: the dialects do not trip over each other.
func TestDialectsTogether(t *testing.T) {
	t.Parallel()
	want := dialectExpectations(t)
	var b strings.Builder
	var known, wantCalls []Call
	for k, d := range dialectSamples(t) {
		if strings.Contains(d.text, "</think>") && !strings.Contains(d.text, "<think>") {
			continue // a lone </think> makes all before it thinking
		}
		b.WriteString(d.text)
		b.WriteString("\n\nNext, step " + string(rune('A'+k%26)) + ".\n\n")
		wantCalls = append(wantCalls, want[d.file].Calls...)
		for _, name := range d.known {
			known = append(known, Call{Name: name})
		}
	}
	isKnown := func(name string) bool {
		return slices.ContainsFunc(known, func(c Call) bool { return c.Name == name })
	}
	text := b.String()
	require.Equal(t, jsonRoundTrip(t, wantCalls), jsonRoundTrip(t, ExtractKnown(text, isKnown)))
	require.False(t, DetectPartialKnown(text, isKnown))
	require.Empty(t, ExtractKnown(RemoveKnown(text, isKnown), isKnown))
}
