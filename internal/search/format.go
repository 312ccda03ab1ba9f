package search

import (
	"fmt"
	"strings"
)

// Format renders r for the model in the layout the UI also parses: a summary line, then per
// file a "── path ──" header, "→ N: text" for matching lines and "  N: text" for context.
// "…" separates groups of lines that are not adjacent when context is shown.
func Format(r Result, opts Options) string {
	opts = withDefaults(opts)
	var b strings.Builder
	subject := describe(opts)
	scope := searchedNote(r)
	if r.Matches == 0 {
		fmt.Fprintf(&b, "No matches for %s (%s). Files ignored by .gitignore are not searched.\n", subject, scope)
		return b.String()
	}
	if r.Truncated {
		fmt.Fprintf(&b, "Showing the first %s in %s for %s (%s); more exist.\n",
			plural(r.Matches, "match", "matches"), plural(len(r.Files), "file", "files"), subject, scope)
	} else {
		fmt.Fprintf(&b, "Found %s in %s for %s (%s).\n",
			plural(r.Matches, "match", "matches"), plural(len(r.Files), "file", "files"), subject, scope)
	}
	for _, f := range r.Files {
		fmt.Fprintf(&b, "\n── %s ──\n", f.Path)
		last := 0 // the last line number written for this file
		for _, m := range f.Matches {
			first := m.Number - len(m.Before)
			if opts.ContextLines > 0 && last > 0 && first > last+1 {
				b.WriteString("…\n")
			}
			for _, l := range m.Before {
				fmt.Fprintf(&b, "  %d: %s\n", l.Number, l.Text)
			}
			fmt.Fprintf(&b, "→ %d: %s\n", m.Number, m.Text)
			for _, l := range m.After {
				fmt.Fprintf(&b, "  %d: %s\n", l.Number, l.Text)
			}
			last = m.Number + len(m.After)
		}
	}
	if r.Truncated {
		fmt.Fprintf(&b, "\n[Stopped at %d matches. To see the rest, narrow the search with path or "+
			"include, or use a more specific pattern.]\n", r.Matches)
	}
	return b.String()
}

func describe(opts Options) string {
	var kind []string
	if opts.IsRegex {
		kind = append(kind, "regex")
	}
	if opts.CaseInsensitive {
		kind = append(kind, "case-insensitive")
	}
	if opts.Path != "" {
		kind = append(kind, "in "+opts.Path)
	}
	s := fmt.Sprintf("%q", opts.Pattern)
	if len(kind) > 0 {
		s += " [" + strings.Join(kind, ", ") + "]"
	}
	return s
}

func searchedNote(r Result) string {
	s := "searched " + plural(r.FilesSearched, "file", "files")
	if r.SkippedBinary > 0 {
		s += fmt.Sprintf(", skipped %d binary", r.SkippedBinary)
	}
	if r.SkippedLarge > 0 {
		s += fmt.Sprintf(", skipped %d over 50 MB", r.SkippedLarge)
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
