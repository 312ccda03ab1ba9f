// Package toolcall finds the tool calls a model wrote as text, for models that lack native
// tool calling and for native answers whose calls Ollama's parser missed. Small local models are sloppy about the format the system prompt asks for
// (<tool_call>{"name": …, "arguments": {…}}</tool_call>): they drop or misspell the tags,
// wrap the call in a Markdown fence, rename the fields, break the JSON or stop halfway. The
// parser accepts what they really write and never fails: at worst it finds no call.
//
// Three kinds of place can hold a call:
//   - a <tool_call> (or nemotron-mini's <toolcall>) tag, whose JSON is read leniently;
//   - a bare JSON object or array at the start of a line, in prose or in a ```json fence,
//     which counts only when it is unmistakably a call (see toCall);
//   - a <tool_call> holding Qwen3-Coder's <function=…><parameter=…> form instead of JSON.
//
// ExtractKnown and its companions also know the run's tool names, which lets them read every
// other dialect real models speak (Mistral's [TOOL_CALLS], gpt-oss harmony, Llama's
// <|python_tag|> and pythonic lists, DeepSeek, Kimi, GLM, <invoke> XML, …; see the Dialect
// constants) without taking a package.json or a JSON example for a call: a call to a name
// that is not a tool is prose. A call written inside <think>…</think> is the model musing and
// is never a call, whichever function reads it.
package toolcall

import "strings"

// Call is one tool invocation found in the text.
type Call struct {
	Name      string
	Arguments map[string]any
	// Dialect names the form the call was written in (DialectHermes, DialectMistral, …), so
	// that the run can record which dialect the model speaks.
	Dialect string
}

// Extract returns every complete or repairable call in text, in order. Every call has a
// non-empty name and non-nil arguments.
func Extract(text string) []Call {
	s := newScanner(text, true)
	s.run()
	return s.calls
}

// DetectPartial reports whether text, as streamed so far, ends inside a call that is not
// finished yet, so the caller can hold back text that may turn out to be call markup. It
// reads text once, in time linear in its length.
func DetectPartial(text string) bool {
	s := newScanner(text, false)
	s.run()
	return s.partial
}

// Remove returns the prose of text: every call, its tags, a fence that held nothing but
// calls and an unfinished call at the end are cut out, the whitespace where they stood is
// tidied and the ends are trimmed.
func Remove(text string) string {
	s := newScanner(text, false)
	s.run()
	for len(s.cuts) > 0 {
		text = splice(text, s.cuts)
		// Joining the pieces can form a new tag ("<tool" + "_call>"): cut those too.
		s.cuts = s.cuts[:0]
		for from := 0; ; {
			start, end, kind := nextTag(text, from)
			if kind != openTag && kind != closeTag {
				break
			}
			s.cuts, from = append(s.cuts, span{start, end}), end
		}
	}
	return strings.TrimSpace(text)
}

// ExtractKnown returns the calls in text to tools known reports as the run's, in order, in
// any dialect this package reads. A call to any other name is prose, and so is a unit of
// markup holding one (a list with one unknown name is not half a call). Every call has a
// known name and non-nil arguments; a call cut off by the end of the text is repaired as
// Extract repairs one. A nil known knows no tool.
func ExtractKnown(text string, known func(name string) bool) []Call {
	s := newKnownScanner(text, known)
	s.run()
	return s.calls
}

// DetectPartialKnown reports whether text, as streamed so far, ends inside what may still
// become a call to a known tool in any dialect, so that the caller holds it back instead of
// showing raw markup. Prose is held only while it may still be the start of a call: a marker
// being written ("[TOOL_C", "<|tool"), or a call whose name is not complete yet; once the
// name is complete and unknown the text is released.
func DetectPartialKnown(text string, known func(name string) bool) bool {
	s := newKnownScanner(text, known)
	s.run()
	return s.partial
}

// RemoveKnown returns the prose of text: exactly the calls ExtractKnown finds are cut (with
// their wrappers and the end-of-turn tokens right after them), plus an unfinished call at
// the end, and the whitespace where they stood is tidied as Remove tidies it. A call to an
// unknown tool stays, as the prose it is.
func RemoveKnown(text string, known func(name string) bool) string {
	s := newKnownScanner(text, known)
	s.run()
	if len(s.cuts) > 0 {
		text = splice(text, s.cuts)
	}
	return strings.TrimSpace(text)
}

// splice removes the cuts from text. The whitespace either side of a cut becomes a single
// separator that keeps the larger line break (at most one blank line) and the indentation of
// the line after it, so removed calls leave no holes behind.
func splice(text string, cuts []span) string {
	out := make([]byte, 0, len(text))
	out = append(out, text[:cuts[0].start]...)
	for k, c := range cuts {
		next := len(text)
		if k+1 < len(cuts) {
			next = cuts[k+1].start
		}
		piece := text[c.end:next]

		before, hadSpace := 0, false
		for len(out) > 0 && isSpace(out[len(out)-1]) {
			if out[len(out)-1] == '\n' {
				before++
			}
			out, hadSpace = out[:len(out)-1], true
		}
		lead := skipSpace(piece, 0)
		after, keep := 0, lead
		for j := range lead {
			if piece[j] == '\n' {
				after, keep = after+1, j+1
			}
		}
		if len(out) > 0 {
			switch breaks := min(max(before, after), 2); {
			case breaks > 0:
				out = append(out, "\n\n"[:breaks]...)
			case hadSpace || lead > 0:
				out = append(out, ' ')
			}
		}
		out = append(out, piece[keep:]...)
	}
	return strings.TrimSpace(string(out))
}
