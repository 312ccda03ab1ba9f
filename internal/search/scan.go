package search

import (
	"bytes"
	"context"
	"strings"
	"unicode/utf8"
)

const (
	// maxFileSize: a file this big is a data dump or a log, not source the model can use, and
	// reading it whole would cost that much memory per worker. Such files are skipped and
	// counted in Result.SkippedLarge.
	maxFileSize = 50 << 20
	// binarySniff is how much of a file decides whether it is binary, as in git and grep.
	binarySniff = 8 << 10
	// maxLineLen bounds a line in the output: minified code would otherwise flood the model.
	maxLineLen = 300
	// ctxCheckEvery: how many candidate lines are checked between looks at the context, so a
	// slow regexp over a big file still stops soon after cancellation.
	ctxCheckEvery = 1024
)

// outcome is what became of one file handed to a scanner.
type outcome int

const (
	searched outcome = iota
	skippedBinary
	skippedLarge
	unreadable
)

// hit is a matching line: its number, its byte range in the file (without the newline) and
// where the match starts in it.
type hit struct {
	number, start, end, col int
}

// scanner searches files one at a time. Each worker owns one, so its buffers are reused for
// every file it reads without locking.
type scanner struct {
	m            *matcher
	contextLines int
	limit        int // MaxResults: no one file can show more
	buf          []byte
	lowered      []byte
	next         []int
	hits         []hit
}

func newScanner(m *matcher, opts Options) *scanner {
	return &scanner{m: m, contextLines: opts.ContextLines, limit: opts.MaxResults, next: make([]int, len(m.needles))}
}

type fileResult struct {
	seq     int
	outcome outcome
	file    File // Matches holds at most limit entries
	more    bool // the file has more than limit matches
}

func (s *scanner) searchFile(ctx context.Context, abs string, j job) fileResult {
	r := fileResult{seq: j.seq}
	data, out := readFile(abs, &s.buf)
	if out == searched && isBinary(data) {
		out = skippedBinary
	}
	r.outcome = out
	if out != searched {
		return r
	}
	// Asking for one hit past the limit tells whether the file had more than can be shown.
	hits := s.scan(ctx, data, s.limit+1)
	if kept := min(len(hits), s.limit); kept > 0 {
		r.more = len(hits) > s.limit
		r.file = File{Path: j.rel, Matches: s.matches(data, hits, kept)}
	}
	return r
}

// grow returns (*buf)[:size], reallocating *buf when it is too small. The spare quarter
// saves reallocating for each slightly bigger file.
func grow(buf *[]byte, size int) []byte {
	if cap(*buf) < size {
		*buf = make([]byte, max(size+size/4, 64<<10))
	}
	return (*buf)[:size]
}

// isBinary follows git and grep: a NUL byte early on means binary. Text in a legacy encoding
// such as Latin-1 is not valid UTF-8 either, but only a few of its bytes are invalid, while
// in binary data most are.
func isBinary(data []byte) bool {
	sample := data[:min(len(data), binarySniff)]
	if bytes.IndexByte(sample, 0) >= 0 {
		return true
	}
	if utf8.Valid(sample) {
		return false
	}
	invalid := 0
	for i := 0; i < len(sample); {
		r, size := utf8.DecodeRune(sample[i:])
		if r == utf8.RuneError && size == 1 {
			invalid++
		}
		i += size
	}
	return invalid*8 > len(sample)
}

// scan returns up to limit matching lines of data. It stops early (returning what it has)
// when ctx is cancelled: the caller then discards the result anyway.
func (s *scanner) scan(ctx context.Context, data []byte, limit int) []hit {
	m := s.m
	hay := data
	if m.fold {
		hay = grow(&s.lowered, len(data))
		lowerASCII(hay, data)
	}
	for i := range s.next {
		s.next[i] = -1
	}
	s.hits = s.hits[:0]
	// Line numbers are counted lazily: only the stretch up to each matching line, once.
	number, counted := 1, 0
	for from, checks := 0, 0; from < len(data) && len(s.hits) < limit; checks++ {
		if checks%ctxCheckEvery == ctxCheckEvery-1 && ctx.Err() != nil {
			break
		}
		at := from
		if len(m.needles) > 0 {
			if at = indexAny(hay, from, m.needles, s.next); at == len(hay) {
				break
			}
		}
		start := from + bytes.LastIndexByte(data[from:at], '\n') + 1
		end := len(data)
		if i := bytes.IndexByte(data[at:], '\n'); i >= 0 {
			end = at + i
		}
		from = end + 1
		line, col := data[start:end], at-start
		if !m.exact {
			if len(line) <= maxLineLen {
				if !m.re.Match(line) {
					continue
				}
			} else if loc := m.re.FindIndex(line); loc != nil {
				col = loc[0]
			} else {
				continue
			}
		}
		number += bytes.Count(data[counted:start], []byte{'\n'})
		counted = start
		s.hits = append(s.hits, hit{number: number, start: start, end: end, col: col})
	}
	return s.hits
}

// matches turns the first n hits into Matches with context. Context lines are shared out so
// that no line appears twice: a match's After stops before the next match, and its Before
// starts after what the previous match already showed.
func (s *scanner) matches(data []byte, hits []hit, n int) []Match {
	out := make([]Match, n)
	shown := 0 // the last line number already part of an earlier match
	for i, h := range hits[:n] {
		match := Match{Line: Line{Number: h.number, Text: display(data[h.start:h.end], h.col)}}
		if s.contextLines > 0 {
			match.Before = linesBefore(data, h, min(s.contextLines, h.number-shown-1))
			last := h.number + s.contextLines
			if i+1 < len(hits) {
				last = min(last, hits[i+1].number-1)
			}
			match.After = linesAfter(data, h, last-h.number)
		}
		shown = h.number + len(match.After)
		out[i] = match
	}
	return out
}

func linesBefore(data []byte, h hit, n int) []Line {
	if n <= 0 {
		return nil
	}
	lines := make([]Line, 0, n)
	for end := h.start - 1; len(lines) < n && end >= 0; {
		start := bytes.LastIndexByte(data[:end], '\n') + 1
		lines = append(lines, Line{Number: h.number - len(lines) - 1, Text: display(data[start:end], 0)})
		end = start - 1
	}
	for i, j := 0, len(lines)-1; i < j; i, j = i+1, j-1 {
		lines[i], lines[j] = lines[j], lines[i]
	}
	return lines
}

func linesAfter(data []byte, h hit, n int) []Line {
	var lines []Line
	for start := h.end + 1; len(lines) < n && start < len(data); {
		end := len(data)
		if i := bytes.IndexByte(data[start:], '\n'); i >= 0 {
			end = start + i
		}
		lines = append(lines, Line{Number: h.number + len(lines) + 1, Text: display(data[start:end], 0)})
		start = end + 1
	}
	return lines
}

// display returns a line for the output: without its CR, and when too long, a window of it
// around col marked with "…" where it was cut.
func display(line []byte, col int) string {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if len(line) <= maxLineLen {
		return string(line)
	}
	// The match sits a third of the way in, leaving room for what follows it.
	start := max(0, min(col-maxLineLen/3, len(line)-maxLineLen))
	end := start + maxLineLen
	for start > 0 && start < len(line) && !utf8.RuneStart(line[start]) {
		start++
	}
	for end < len(line) && !utf8.RuneStart(line[end]) {
		end--
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	b.Write(line[start:end])
	if end < len(line) {
		b.WriteString("…")
	}
	return b.String()
}
