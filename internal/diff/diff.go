// Package diff compares two versions of a text line by line: change counts for the +N −M
// badges, and unified diffs for approval cards, the review panel and the model.
package diff

import (
	"fmt"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Stats counts changed lines.
type Stats struct{ Added, Removed int }

// Compute counts the lines added and removed going from old to new.
func Compute(old, new string) Stats {
	var s Stats
	for _, l := range lineDiff(old, new) {
		switch l.kind {
		case added:
			s.Added++
		case removed:
			s.Removed++
		}
	}
	return s
}

// Unified returns the changes from old to new as a unified diff (the format of `diff -u` and
// git), with context lines of unchanged text around each change, or "" when the texts are
// equal. Lines keep their own endings, so a CRLF file shows as CRLF and a change of line
// endings alone is visible; a last line without a newline gets the usual
// "\ No newline at end of file" marker.
func Unified(path, old, new string, context int) string {
	if old == new {
		return ""
	}
	context = max(context, 0)
	lines := lineDiff(old, new)
	var b strings.Builder
	fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", path, path)
	for start := 0; start < len(lines); {
		first := nextChange(lines, start)
		if first == len(lines) {
			break
		}
		last := first
		// Changes separated by at most two contexts' worth of equal lines share a hunk, since
		// their contexts would touch.
		for {
			next := nextChange(lines, last+1)
			if next == len(lines) || next-(last+1) > 2*context {
				break
			}
			last = next
		}
		from := max(first-context, start)
		to := min(last+1+context, len(lines))
		writeHunk(&b, lines[from:to])
		start = to
	}
	return b.String()
}

type lineKind byte

const (
	equal   lineKind = ' '
	removed lineKind = '-'
	added   lineKind = '+'
)

// line is one line of the diff with its 1-based numbers before and after; on the side a line
// is not on, the number is that of the next line there.
type line struct {
	kind         lineKind
	text         string // with its line ending, if it has one
	oldNo, newNo int
}

func nextChange(lines []line, from int) int {
	for from < len(lines) && lines[from].kind == equal {
		from++
	}
	return from
}

func writeHunk(b *strings.Builder, hunk []line) {
	oldStart, newStart := hunk[0].oldNo, hunk[0].newNo
	oldCount, newCount := 0, 0
	for _, l := range hunk {
		if l.kind != added {
			oldCount++
		}
		if l.kind != removed {
			newCount++
		}
	}
	// A side with no lines in the hunk is numbered by the line before the change, as diff -u
	// does.
	if oldCount == 0 {
		oldStart--
	}
	if newCount == 0 {
		newStart--
	}
	fmt.Fprintf(b, "@@ -%s +%s @@\n", hunkRange(oldStart, oldCount), hunkRange(newStart, newCount))
	for _, l := range hunk {
		b.WriteByte(byte(l.kind))
		b.WriteString(l.text)
		if !strings.HasSuffix(l.text, "\n") {
			b.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

func hunkRange(start, count int) string {
	if count == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, count)
}

// maxDiffedLines bounds the lines handed to the diff engine, which numbers distinct lines with
// runes and cannot go past about a million; beyond that, everything between the common start
// and end is shown as replaced.
const maxDiffedLines = 500_000

// lineDiff lines old and new up, each line either in both, only in old, or only in new.
func lineDiff(old, new string) []line {
	a, b := splitLines(old), splitLines(new)
	prefix := 0
	for prefix < len(a) && prefix < len(b) && a[prefix] == b[prefix] {
		prefix++
	}
	suffix := 0
	for suffix < len(a)-prefix && suffix < len(b)-prefix && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	out := make([]line, 0, len(a)+len(b)-prefix-suffix)
	emit := func(kind lineKind, texts []string) {
		for _, t := range texts {
			out = append(out, line{kind: kind, text: t})
		}
	}
	emit(equal, a[:prefix])
	midA, midB := a[prefix:len(a)-suffix], b[prefix:len(b)-suffix]
	if len(midA)+len(midB) > maxDiffedLines {
		emit(removed, midA)
		emit(added, midB)
	} else {
		dmp := diffmatchpatch.New()
		charsA, charsB, table := dmp.DiffLinesToChars(strings.Join(midA, ""), strings.Join(midB, ""))
		for _, d := range dmp.DiffCharsToLines(dmp.DiffMain(charsA, charsB, false), table) {
			switch d.Type {
			case diffmatchpatch.DiffEqual:
				emit(equal, splitLines(d.Text))
			case diffmatchpatch.DiffDelete:
				emit(removed, splitLines(d.Text))
			case diffmatchpatch.DiffInsert:
				emit(added, splitLines(d.Text))
			}
		}
	}
	emit(equal, a[len(a)-suffix:])
	slideDown(out)
	oldNo, newNo := 1, 1
	for i := range out {
		out[i].oldNo, out[i].newNo = oldNo, newNo
		if out[i].kind != added {
			oldNo++
		}
		if out[i].kind != removed {
			newNo++
		}
	}
	return out
}

// slideDown moves each run of only added or only removed lines as far down as it can go
// without changing the texts: "+b", " b" becomes " b", "+b". Both are right, but diff -u and
// git put the change last, so a new function shows as its own lines rather than as the tail of
// the one before plus the head of the new one, and the diffs read the same as theirs.
func slideDown(lines []line) {
	for i := 0; i < len(lines); {
		if lines[i].kind == equal || i > 0 && lines[i-1].kind != equal {
			i++
			continue
		}
		end := i
		for end < len(lines) && lines[end].kind == lines[i].kind {
			end++
		}
		for end < len(lines) && lines[end].kind == equal && lines[end].text == lines[i].text {
			lines[i], lines[end] = lines[end], lines[i]
			i++
			end++
		}
		i = end
	}
}

// splitLines cuts s after each "\n"; only the last line may lack one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
