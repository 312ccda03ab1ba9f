package diff

import "strings"

// DefaultContext is how many unchanged lines surround a change, as in diff -u and git. Hunk IDs
// are those of the hunks with this much context.
const DefaultContext = 3

// LineKind says which side of a change a line is on.
type LineKind string

const (
	LineContext LineKind = "context" // unchanged, on both sides
	LineAdd     LineKind = "add"     // only in the new text
	LineDelete  LineKind = "delete"  // only in the old text
)

// Line is one line of a hunk.
type Line struct {
	Kind LineKind `json:"kind"`
	// OldNumber and NewNumber are 1-based line numbers before and after; 0 on the side the line
	// is not on.
	OldNumber int `json:"oldNumber"`
	NewNumber int `json:"newNumber"`
	// Text is the line without its ending. It holds the file's bytes as they are; JSON shows any
	// that are not UTF-8 as U+FFFD, which is for display only: Unified and ApplyHunks keep them.
	Text string `json:"text"`
	// EOL is the line's ending: "\n", "\r\n", or "" for a last line without one, so that a
	// change of line endings or of the final newline is visible.
	EOL string `json:"eol"`
}

// Hunk is a run of changes with the unchanged lines around them.
type Hunk struct {
	// ID numbers the hunks of one change from 0 in order. IDs from Hunks with DefaultContext
	// are the ones ApplyHunks takes; they depend only on the two texts, so asking again gives
	// the same ones.
	ID int `json:"id"`
	// The ranges are those of a unified diff's "@@ -OldStart,OldLines +NewStart,NewLines @@": a
	// side with no lines in the hunk starts at the line before it (0 at the top of the file).
	OldStart int    `json:"oldStart"`
	OldLines int    `json:"oldLines"`
	NewStart int    `json:"newStart"`
	NewLines int    `json:"newLines"`
	Lines    []Line `json:"lines"`
}

// Hunks returns the changes from old to new as hunks with up to context unchanged lines around
// each change (at least 0), or none when the texts are equal.
func Hunks(old, new string, context int) []Hunk {
	script := lineDiff(old, new)
	spans := hunkSpans(script.lines, context)
	hunks := make([]Hunk, len(spans))
	for id, s := range spans {
		hunks[id] = makeHunk(id, &script, script.lines[s.from:s.to])
	}
	return hunks
}

// span is where a hunk's lines are in a lineDiff.
type span struct{ from, to int }

func hunkSpans(lines []line, context int) []span {
	context = max(context, 0)
	var spans []span
	for start := 0; start < len(lines); {
		first := nextChange(lines, start)
		if first == len(lines) {
			break
		}
		last := first
		// Changes separated by at most two contexts' worth of unchanged lines share a hunk,
		// since their contexts would touch.
		for {
			next := nextChange(lines, last+1)
			if next == len(lines) || next-(last+1) > 2*context {
				break
			}
			last = next
		}
		s := span{from: max(first-context, start), to: min(last+1+context, len(lines))}
		spans = append(spans, s)
		start = s.to
	}
	return spans
}

func nextChange(lines []line, from int) int {
	for from < len(lines) && lines[from].kind == kindContext {
		from++
	}
	return from
}

func makeHunk(id int, script *script, lines []line) Hunk {
	h := Hunk{ID: id, OldStart: int(lines[0].oldNo), NewStart: int(lines[0].newNo), Lines: make([]Line, len(lines))}
	for i, l := range lines {
		text, eol := cutEOL(script.text(l))
		out := Line{Kind: lineKinds[l.kind], Text: text, EOL: eol}
		if l.kind != kindAdd {
			out.OldNumber = int(l.oldNo)
			h.OldLines++
		}
		if l.kind != kindDelete {
			out.NewNumber = int(l.newNo)
			h.NewLines++
		}
		h.Lines[i] = out
	}
	if h.OldLines == 0 {
		h.OldStart--
	}
	if h.NewLines == 0 {
		h.NewStart--
	}
	return h
}

func cutEOL(s string) (text, eol string) {
	if t, ok := strings.CutSuffix(s, "\r\n"); ok {
		return t, "\r\n"
	}
	if t, ok := strings.CutSuffix(s, "\n"); ok {
		return t, "\n"
	}
	return s, ""
}
