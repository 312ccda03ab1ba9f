// Package diff compares two versions of a text line by line: change counts for the +N −M
// badges, hunks for approval cards and the review panel (each one can be applied on its own),
// and unified diffs for the model and exports, written from the same hunks so that all of them
// show the same change.
package diff

import (
	"fmt"
	"strings"
)

// Stats counts changed lines.
type Stats struct{ Added, Removed int }

// Compute counts the lines added and removed going from old to new.
func Compute(old, new string) Stats {
	var s Stats
	for _, l := range lineDiff(old, new).lines {
		switch l.kind {
		case kindAdd:
			s.Added++
		case kindDelete:
			s.Removed++
		}
	}
	return s
}

// Unified returns the changes from old to new as a unified diff (the format of `diff -u` and
// git), with context lines of unchanged text around each change, or "" when the texts are
// equal. Lines keep their own endings, so a CRLF file shows as CRLF and a change of line
// endings alone is visible; a last line without a newline gets the usual
// "\ No newline at end of file" marker. Bytes that are not UTF-8 are kept as they are.
func Unified(path, old, new string, context int) string {
	hunks := Hunks(old, new, context)
	if len(hunks) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", path, path)
	for _, h := range hunks {
		writeHunk(&b, h)
	}
	return b.String()
}

var linePrefix = map[LineKind]byte{LineContext: ' ', LineDelete: '-', LineAdd: '+'}

func writeHunk(b *strings.Builder, h Hunk) {
	fmt.Fprintf(b, "@@ -%s +%s @@\n", hunkRange(h.OldStart, h.OldLines), hunkRange(h.NewStart, h.NewLines))
	for _, l := range h.Lines {
		b.WriteByte(linePrefix[l.Kind])
		b.WriteString(l.Text)
		if l.EOL == "" {
			b.WriteString("\n\\ No newline at end of file\n")
		} else {
			b.WriteString(l.EOL)
		}
	}
}

func hunkRange(start, count int) string {
	if count == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, count)
}
