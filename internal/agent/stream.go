package agent

import (
	"regexp"
	"strings"
	"time"
	"unicode"

	"gantry/internal/toolcall"
)

// StreamSink receives what the UI should show while an answer streams. Text and Thinking carry
// the whole cleaned text so far, not a delta: in the text path the visible text is recomputed
// from the raw answer (calls cut out, the completion marker dropped), so earlier text can
// change and a delta could not say so.
type StreamSink interface {
	Text(visible string)
	Thinking(text string)
	// ThinkingDone collapses the thinking block to "Thought for Ns"; sent at most once.
	ThinkingDone(d time.Duration)
	// Spinner labels what the model is about to do ("Writing main.go…"); "" clears it.
	Spinner(label string)
}

// Chunk is one piece of a streamed answer, as the model client delivers it.
type Chunk struct {
	Thinking  string
	Content   string
	ToolCalls []ToolCallStart
}

// ToolCallStart is a native tool call as it arrives in the stream.
type ToolCallStart struct {
	Name string
	Args map[string]any
}

// StreamOptions tunes a StreamProcessor.
type StreamOptions struct {
	// Known names the run's tools. Calls to them written in the text (the text path's calls,
	// and on the native path those Ollama's parser missed) are cut out of the visible text and
	// name the spinner, and a call being written holds the text back. nil shows the text as
	// written.
	Known func(name string) bool
	// Throttle is the least time between two looks at the text; zero means 32 ms.
	Throttle time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Label names what a tool call is about to do, for the spinner ("Writing main.go…"); nil
	// says "Working…" for every call.
	Label func(name string, args map[string]any) string
}

// Result is what one streamed answer came to.
type Result struct {
	Text             string // what the person sees: cleaned, calls cut out in the text path
	RawText          string // the content exactly as streamed, for history and call parsing
	Thinking         string // cleaned thinking
	ThinkingDuration time.Duration
	Completed        bool // the content carried [TASK_COMPLETE]
}

const (
	streamDefaultThrottle = 32 * time.Millisecond
	// streamFirstWords is how many word characters the first visible text needs, so that a
	// fragment like "**What" never flashes in place of the spinner.
	streamFirstWords = 8
)

var streamMarkerRe = regexp.MustCompile(`(?i)\s*\[task_complete\]\s*`)

// StreamProcessor turns a model's streamed chunks into what the UI shows. It is pure logic
// with an injected clock: it emits only from Add and Finish (no timer), so text that arrives
// during a pause in the stream waits for the next chunk or for Finish. It is not safe for
// concurrent use; the one goroutine reading the stream drives it.
type StreamProcessor struct {
	sink     StreamSink
	known    func(name string) bool
	throttle time.Duration
	now      func() time.Time
	label    func(name string, args map[string]any) string

	raw      strings.Builder
	thinking strings.Builder

	thinkingFirst, thinkingLast time.Time
	thinkingDone                bool

	// The text and the thinking are looked at no more than once per throttle each (the look
	// is linear in the answer's length); *Dirty says something arrived since the last look.
	textLook, thinkingLook   time.Time
	textDirty, thinkingDirty bool
	shownText, shownThinking string
	spinner                  string
}

// NewStreamProcessor returns a processor for one answer.
func NewStreamProcessor(sink StreamSink, opts StreamOptions) *StreamProcessor {
	p := &StreamProcessor{sink: sink, known: opts.Known, throttle: opts.Throttle, now: opts.Now, label: opts.Label}
	if p.label == nil {
		p.label = func(string, map[string]any) string { return "Working…" }
	}
	if p.throttle <= 0 {
		p.throttle = streamDefaultThrottle
	}
	if p.now == nil {
		p.now = time.Now
	}
	return p
}

// Add takes the next chunk of the stream.
func (p *StreamProcessor) Add(c Chunk) {
	now := p.now()
	if c.Thinking != "" {
		if p.thinkingFirst.IsZero() {
			p.thinkingFirst = now
		}
		p.thinkingLast = now
		p.thinking.WriteString(c.Thinking)
		p.thinkingDirty = true
	}
	// Any content or a native call means the model has stopped thinking. Ollama can take a
	// long time to deliver a native call's arguments, so the block collapses now rather than
	// reading "Thinking…" all that while.
	if len(c.ToolCalls) > 0 || strings.TrimSpace(c.Content) != "" {
		p.collapseThinking()
	}
	if c.Content != "" {
		p.raw.WriteString(c.Content)
		p.textDirty = true
	}
	if len(c.ToolCalls) > 0 {
		p.setSpinner(p.label(c.ToolCalls[0].Name, c.ToolCalls[0].Args))
	}

	if p.thinkingDirty && !p.thinkingDone && now.Sub(p.thinkingLook) >= p.throttle {
		p.thinkingLook = now
		p.showThinking()
	}
	if p.textDirty && now.Sub(p.textLook) >= p.throttle {
		p.textLook = now
		p.textDirty = false
		if visible := p.visible(); streamReady(p.shownText, visible) {
			p.showText(visible)
		}
	}
}

// Finish flushes what is still held back and returns the answer. The first-chunk gate no
// longer applies (the answer is complete), and a trailing partial marker, held back while
// it could still become the marker, stays out for good.
func (p *StreamProcessor) Finish() Result {
	p.collapseThinking()
	visible := p.visible()
	if visible != p.shownText {
		p.showText(visible)
	}
	raw := p.raw.String()
	return Result{
		Text:             visible,
		RawText:          raw,
		Thinking:         streamStripMarker(p.thinking.String()),
		ThinkingDuration: p.thinkingLast.Sub(p.thinkingFirst),
		Completed:        streamMarkerRe.MatchString(raw),
	}
}

// visible computes the text to show from the raw answer. toolcall.RemoveKnown also cuts an
// unfinished call (or a marker that may still open one) at the end, which is what freezes the
// text at where it stood before the call began: raw markup never reaches the screen, in any
// dialect. This is also where calls written as text, once complete, name the spinner; a
// cut-off call is left alone, since ExtractKnown would repair it into a guess.
func (p *StreamProcessor) visible() string {
	text := streamStripMarker(p.raw.String())
	if p.known == nil {
		return text
	}
	if !toolcall.DetectPartialKnown(text, p.known) {
		if calls := toolcall.ExtractKnown(text, p.known); len(calls) > 0 {
			p.setSpinner(p.label(calls[0].Name, calls[0].Arguments))
		}
	}
	return toolcall.RemoveKnown(text, p.known)
}

func (p *StreamProcessor) showText(visible string) {
	p.shownText = visible
	p.sink.Text(visible)
}

func (p *StreamProcessor) showThinking() {
	p.thinkingDirty = false
	text := streamStripMarker(p.thinking.String())
	if text != "" && text != p.shownThinking {
		p.shownThinking = text
		p.sink.Thinking(text)
	}
}

// collapseThinking closes the thinking block once, after showing all of it. The duration runs
// to the last thinking token, not to now: the wait for a native call's arguments is not
// thinking.
func (p *StreamProcessor) collapseThinking() {
	if p.thinkingDone || p.thinkingFirst.IsZero() {
		return
	}
	p.showThinking()
	p.thinkingDone = true
	p.sink.ThinkingDone(p.thinkingLast.Sub(p.thinkingFirst))
}

func (p *StreamProcessor) setSpinner(label string) {
	if label != p.spinner {
		p.spinner = label
		p.sink.Spinner(label)
	}
}

// streamReady decides whether visible is worth sending after shown. The first text needs
// enough word characters; after that growth needs at least one, so a lone "**" or " " waits
// for what follows it. Text that changed other than by growing is always sent.
func streamReady(shown, visible string) bool {
	if visible == shown {
		return false
	}
	if shown == "" {
		return streamWordChars(visible) >= streamFirstWords
	}
	if grown, ok := strings.CutPrefix(visible, shown); ok {
		return streamWordChars(grown) > 0
	}
	return true
}

func streamWordChars(s string) int {
	n := 0
	for _, r := range s {
		if r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
	}
	return n
}

// streamStripMarker removes every [TASK_COMPLETE] (any case) from s and trims it. A marker
// between two pieces of text leaves the larger of the gaps either side of it (at most a
// blank line). A trailing
// prefix of the marker ("[", "[TASK_COMP") goes too: while streaming the next chunk may
// complete it, and the text is recomputed from the raw answer each time, so a prefix that
// turns out to be prose ("[link]") comes back.
func streamStripMarker(s string) string {
	// Cutting can join pieces into a new marker ("[TASK_[TASK_COMPLETE]COMPLETE]"): repeat.
	for {
		spans := streamMarkerRe.FindAllStringIndex(s, -1)
		if len(spans) == 0 {
			break
		}
		var b strings.Builder
		last := 0
		for _, sp := range spans {
			b.WriteString(s[last:sp[0]])
			if sp[0] > 0 && sp[1] < len(s) {
				b.WriteString(streamMarkerGap(s[sp[0]:sp[1]]))
			}
			last = sp[1]
		}
		b.WriteString(s[last:])
		s = b.String()
	}
	return strings.TrimSpace(s[:len(s)-streamMarkerTail(s)])
}

func streamMarkerGap(match string) string {
	before, after, _ := strings.Cut(strings.ToUpper(match), CompletionMarker)
	switch n := max(strings.Count(before, "\n"), strings.Count(after, "\n")); {
	case n >= 2:
		return "\n\n"
	case n == 1:
		return "\n"
	case before != "" || after != "":
		return " "
	}
	return ""
}

// streamMarkerTail is the length of the longest proper prefix of the marker that s ends with.
func streamMarkerTail(s string) int {
	for k := min(len(CompletionMarker)-1, len(s)); k > 0; k-- {
		if strings.EqualFold(s[len(s)-k:], CompletionMarker[:k]) {
			return k
		}
	}
	return 0
}
