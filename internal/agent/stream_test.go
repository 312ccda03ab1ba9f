package agent

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"gantry/internal/terminal"
	"gantry/internal/tools"

	"github.com/stretchr/testify/require"
)

// streamRecorder is a StreamSink that writes down every call, in order.
type streamRecorder struct {
	events []string
}

func (r *streamRecorder) Text(visible string)  { r.events = append(r.events, "text:"+visible) }
func (r *streamRecorder) Thinking(text string) { r.events = append(r.events, "thinking:"+text) }
func (r *streamRecorder) ThinkingDone(d time.Duration) {
	r.events = append(r.events, "done:"+d.String())
}
func (r *streamRecorder) Spinner(label string) { r.events = append(r.events, "spinner:"+label) }

// of returns the payloads of the events of one kind.
func (r *streamRecorder) of(kind string) []string {
	var out []string
	for _, e := range r.events {
		if payload, ok := strings.CutPrefix(e, kind+":"); ok {
			out = append(out, payload)
		}
	}
	return out
}

// streamClock is a fake clock the test moves by hand.
type streamClock struct{ t time.Time }

func (c *streamClock) now() time.Time          { return c.t }
func (c *streamClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// play feeds the steps to p, moving the clock before each.
func (c *streamClock) play(p *StreamProcessor, steps []streamStep) {
	for _, s := range steps {
		c.advance(s.after)
		p.Add(s.chunk)
	}
}

// streamChars streams s one character a second, as content or as thinking.
func streamChars(s string, step func(time.Duration, string) streamStep) []streamStep {
	var out []streamStep
	for _, c := range strings.Split(s, "") {
		out = append(out, step(time.Second, c))
	}
	return out
}

// newStreamTest makes a processor; withTools gives it the built-in tools' names, so that calls
// to them written as text are cut out of what shows.
func newStreamTest(withTools bool) (*StreamProcessor, *streamRecorder, *streamClock) {
	rec := &streamRecorder{}
	clock := &streamClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	opts := StreamOptions{Now: clock.now, Label: builtinLabel}
	if withTools {
		opts.Known = builtinKnown
	}
	return NewStreamProcessor(rec, opts), rec, clock
}

// builtinKnown knows the built-in tools' names, as a run with them does.
func builtinKnown(name string) bool {
	_, ok := builtinTool(name)
	return ok
}

func builtinTool(name string) (tools.Tool, bool) {
	for _, t := range tools.Builtins(&tools.Env{}, terminal.NewSession(os.TempDir())) {
		if t.Name() == name {
			return t, true
		}
	}
	return nil, false
}

// builtinLabel labels calls as a run with the built-in tools does.
func builtinLabel(name string, args map[string]any) string {
	if t, ok := builtinTool(name); ok {
		return tools.ViewOf(t, args).Spinner
	}
	return tools.DefaultView(name, args).Spinner
}

// streamStep is one chunk and the time that passes before it arrives.
type streamStep struct {
	after time.Duration
	chunk Chunk
}

func streamText(after time.Duration, s string) streamStep {
	return streamStep{after: after, chunk: Chunk{Content: s}}
}

func streamThought(after time.Duration, s string) streamStep {
	return streamStep{after: after, chunk: Chunk{Thinking: s}}
}

func TestStreamThrottleAndGate(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	tests := []struct {
		name       string
		steps      []streamStep
		streamed   []string // Text calls before Finish
		afterFlush []string // Text calls including Finish
	}{
		{
			name: "chunks within the throttle wait for the next look",
			steps: []streamStep{
				streamText(0, "Hello "), streamText(5*ms, "there, "), streamText(5*ms, "my "), streamText(5*ms, "good "),
				streamText(5*ms, "friend"), streamText(10*ms, "!"), streamText(5*ms, " How"),
			},
			streamed:   []string{"Hello there, my good friend! How"},
			afterFlush: []string{"Hello there, my good friend! How"},
		},
		{
			name:       "a look at most every 32ms",
			steps:      []streamStep{streamText(0, "Everything is"), streamText(10*ms, " fine"), streamText(40*ms, " here"), streamText(1*ms, " too")},
			streamed:   []string{"Everything is", "Everything is fine here"},
			afterFlush: []string{"Everything is", "Everything is fine here", "Everything is fine here too"},
		},
		{
			name:       "markdown fragment is not shown first",
			steps:      []streamStep{streamText(0, "**What"), streamText(40*ms, " is"), streamText(40*ms, " this")},
			streamed:   []string{"**What is this"},
			afterFlush: []string{"**What is this"},
		},
		{
			name:       "unicode letters count as word characters",
			steps:      []streamStep{streamText(0, "Привет, мир")},
			streamed:   []string{"Привет, мир"},
			afterFlush: []string{"Привет, мир"},
		},
		{
			name:       "growth without a word character is held",
			steps:      []streamStep{streamText(0, "Here it comes"), streamText(40*ms, ":\n\n"), streamText(40*ms, "**"), streamText(40*ms, "Step")},
			streamed:   []string{"Here it comes", "Here it comes:\n\n**Step"},
			afterFlush: []string{"Here it comes", "Here it comes:\n\n**Step"},
		},
		{
			name:       "Finish shows a short answer the gate held",
			steps:      []streamStep{streamText(0, "Done.")},
			afterFlush: []string{"Done."},
		},
		{
			name:       "Finish shows held punctuation",
			steps:      []streamStep{streamText(0, "All tests pass"), streamText(40*ms, "!")},
			streamed:   []string{"All tests pass"},
			afterFlush: []string{"All tests pass", "All tests pass!"},
		},
		{
			name:  "whitespace-only answer shows nothing",
			steps: []streamStep{streamText(0, "\n\n"), streamText(40*ms, "  ")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, rec, clock := newStreamTest(false)
			clock.play(p, tt.steps)
			require.Equal(t, tt.streamed, rec.of("text"))
			res := p.Finish()
			require.Equal(t, tt.afterFlush, rec.of("text"))
			if len(tt.afterFlush) > 0 {
				require.Equal(t, tt.afterFlush[len(tt.afterFlush)-1], res.Text)
			}
		})
	}
}

// Every way of cutting the answer into chunks, with a look at the text after each one: the
// marker, or any prefix of it, never reaches the screen.
func TestStreamMarkerNeverShown(t *testing.T) {
	t.Parallel()
	for _, answer := range []string{
		"Done! [TASK_COMPLETE]",
		"Done! [task_complete]\n",
		"All done here.\n\n[TASK_COMPLETE]",
		"[TASK_COMPLETE] Everything is done.",
	} {
		want := strings.TrimSpace(streamMarkerRe.ReplaceAllString(answer, ""))
		for name, chunks := range streamSplits(answer) {
			t.Run(fmt.Sprintf("%q/%s", answer, name), func(t *testing.T) {
				t.Parallel()
				p, rec, clock := newStreamTest(false)
				for _, c := range chunks {
					clock.advance(time.Second)
					p.Add(Chunk{Content: c})
				}
				res := p.Finish()
				for _, shown := range rec.of("text") {
					require.NotContains(t, shown, "[")
				}
				require.Equal(t, want, res.Text)
				require.Equal(t, answer, res.RawText)
				require.True(t, res.Completed)
			})
		}
	}
}

// streamSplits cuts s into two chunks at every position, and into single characters.
func streamSplits(s string) map[string][]string {
	out := map[string][]string{"char by char": strings.Split(s, "")}
	for i := 1; i < len(s); i++ {
		out[fmt.Sprintf("split at %d", i)] = []string{s[:i], s[i:]}
	}
	return out
}

func TestStreamMarkerStripping(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		content   string
		thinking  string
		text      string
		thought   string
		completed bool
	}{
		{name: "between sentences", content: "First. [TASK_COMPLETE] Second.", text: "First. Second.", completed: true},
		{name: "on its own line", content: "First.\n[Task_Complete]\nSecond.", text: "First.\nSecond.", completed: true},
		{name: "in a paragraph of its own", content: "First.\n\n[TASK_COMPLETE]\n\nSecond.", text: "First.\n\nSecond.", completed: true},
		{name: "twice", content: "[TASK_COMPLETE]Ok[TASK_COMPLETE]", text: "Ok", completed: true},
		{name: "cutting forms another", content: "Ok [TASK_[TASK_COMPLETE]COMPLETE]", text: "Ok", completed: true},
		{name: "partial at the end is dropped", content: "All good [TASK_COMP", text: "All good"},
		{name: "a bracket that is prose stays", content: "See [the docs] for more", text: "See [the docs] for more"},
		{name: "in thinking only", content: "Here you go.", thinking: "I will say [TASK_COMPLETE] at the end [TASK", text: "Here you go.", thought: "I will say at the end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, rec, clock := newStreamTest(false)
			clock.play(p, streamChars(tt.thinking, streamThought))
			clock.play(p, streamChars(tt.content, streamText))
			res := p.Finish()
			require.Equal(t, tt.text, res.Text)
			require.Equal(t, tt.thought, res.Thinking)
			require.Equal(t, tt.completed, res.Completed)
			for _, shown := range append(rec.of("text"), rec.of("thinking")...) {
				require.NotContains(t, strings.ToUpper(shown), "[TASK")
				require.Zero(t, streamMarkerTail(shown), shown)
			}
		})
	}
}

func TestStreamThinkingCollapse(t *testing.T) {
	t.Parallel()
	call := Chunk{ToolCalls: []ToolCallStart{{Name: "write_file", Args: map[string]any{"path": "cmd/app/main.go", "content": "package main"}}}}
	tests := []struct {
		name     string
		steps    []streamStep
		events   []string
		duration time.Duration
	}{
		{
			name: "native call collapses at once, timed to the last thinking token",
			steps: []streamStep{
				streamThought(0, "Let me"), streamThought(time.Second, " write"), streamThought(2*time.Second, " it."),
				{after: 20 * time.Second, chunk: call},
			},
			events: []string{
				"thinking:Let me", "thinking:Let me write", "thinking:Let me write it.",
				"done:3s", "spinner:Writing main.go…",
			},
			duration: 3 * time.Second,
		},
		{
			name: "first content collapses, after the whole thinking is shown",
			steps: []streamStep{
				streamThought(0, "Hmm"), streamThought(time.Millisecond, ", easy."), streamText(5*time.Second, "The answer is 42."),
			},
			events:   []string{"thinking:Hmm", "thinking:Hmm, easy.", "done:1ms", "text:The answer is 42."},
			duration: time.Millisecond,
		},
		{
			name: "whitespace content does not collapse; later thinking is kept but not shown",
			steps: []streamStep{
				streamThought(0, "A"), streamText(time.Second, "\n"), streamThought(time.Second, "B"),
				streamText(time.Second, "Result: fine"), streamThought(time.Second, "C"),
			},
			events:   []string{"thinking:A", "thinking:AB", "done:2s", "text:Result: fine"},
			duration: 4 * time.Second,
		},
		{
			name:     "thinking only collapses at Finish",
			steps:    []streamStep{streamThought(0, "Just"), streamThought(2*time.Second, " thinking")},
			events:   []string{"thinking:Just", "thinking:Just thinking", "done:2s"},
			duration: 2 * time.Second,
		},
		{
			name:   "no thinking, no collapse",
			steps:  []streamStep{streamText(0, "Straight to the answer.")},
			events: []string{"text:Straight to the answer."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, rec, clock := newStreamTest(false)
			clock.play(p, tt.steps)
			res := p.Finish()
			require.Equal(t, tt.events, rec.events)
			require.Equal(t, tt.duration, res.ThinkingDuration)
		})
	}
}

func TestStreamNativeSpinnerOncePerLabel(t *testing.T) {
	t.Parallel()
	p, rec, _ := newStreamTest(false)
	read := ToolCallStart{Name: "read_file", Args: map[string]any{"path": "a.go"}}
	p.Add(Chunk{ToolCalls: []ToolCallStart{read, {Name: "read_file", Args: map[string]any{"path": "b.go"}}}})
	p.Add(Chunk{ToolCalls: []ToolCallStart{read}})
	p.Add(Chunk{ToolCalls: []ToolCallStart{{Name: "run_terminal_command"}}})
	p.Finish()
	require.Equal(t, []string{"spinner:Reading a.go…", "spinner:Running command…"}, rec.events)
}

// A call written as text freezes the visible text where it stood: its markup never shows.
func TestStreamTextPathFreeze(t *testing.T) {
	t.Parallel()
	call := `{"name":"read_file","arguments":{"path":"a.go"}}`
	tests := []struct {
		name    string
		answer  string
		visible string
		spinner []string
	}{
		{
			name:    "tagged call",
			answer:  "I'll read it.\n<tool_call>" + call + "</tool_call>",
			visible: "I'll read it.",
			spinner: []string{"Reading a.go…"},
		},
		{
			name:    "bare call and the completion marker",
			answer:  "I'll read it.\n" + call + "\n[TASK_COMPLETE]",
			visible: "I'll read it.",
			spinner: []string{"Reading a.go…"},
		},
		{
			name:    "fenced call between prose",
			answer:  "First the file.\n```json\n" + call + "\n```\nThen we see.",
			visible: "First the file.\nThen we see.",
			spinner: []string{"Reading a.go…"},
		},
		{
			name:    "cut off mid-call",
			answer:  "Writing it now.\n<tool_call>{\"name\":\"write_file\",\"arguments\":{\"path\":\"x.go\",\"content\":\"pack",
			visible: "Writing it now.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, rec, clock := newStreamTest(true)
			clock.play(p, streamChars(tt.answer, streamText))
			res := p.Finish()
			for _, shown := range rec.of("text") {
				require.NotContains(t, shown, "{")
				require.NotContains(t, shown, "<tool")
				require.NotContains(t, shown, "`")
			}
			shown := rec.of("text")
			require.Equal(t, tt.visible, shown[len(shown)-1])
			require.Equal(t, tt.visible, res.Text)
			require.Equal(t, tt.answer, res.RawText)
			require.Equal(t, tt.spinner, rec.of("spinner"))
		})
	}
}

// A call to a name that is not one of the run's tools is the model's prose and shows as
// written; without any tool names, so does every call.
func TestStreamUnknownCallIsProse(t *testing.T) {
	t.Parallel()
	p, _, _ := newStreamTest(true)
	answer := "Example:\n<tool_call>{\"name\":\"get_weather\",\"arguments\":{}}</tool_call>"
	p.Add(Chunk{Content: answer})
	require.Equal(t, answer, p.Finish().Text)

	p, _, _ = newStreamTest(false)
	answer = "Example:\n<tool_call>{\"name\":\"read_file\",\"arguments\":{}}</tool_call>"
	p.Add(Chunk{Content: answer})
	require.Equal(t, answer, p.Finish().Text)
}

func TestStreamDefaults(t *testing.T) {
	t.Parallel()
	rec := &streamRecorder{}
	p := NewStreamProcessor(rec, StreamOptions{})
	p.Add(Chunk{Content: "Plenty of words here."})
	require.Equal(t, []string{"text:Plenty of words here."}, rec.events)
	p.Add(Chunk{Content: " More."})
	require.Equal(t, "Plenty of words here. More.", p.Finish().Text)
}

func TestStreamReady(t *testing.T) {
	t.Parallel()
	tests := []struct {
		shown, visible string
		want           bool
	}{
		{"", "**What", false},
		{"", "**What is this", true},
		{"", "été à Zürich", true},
		{"Hello", "Hello", false},
		{"Hello", "Hello,", false},
		{"Hello", "Hello, w", true},
		{"Hello", "Hello\n\n```", false},
		{"Hello, world", "Hello,\nworld", true}, // rewritten, not grown
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, streamReady(tt.shown, tt.visible), "%q → %q", tt.shown, tt.visible)
	}
}
