package terminal

import (
	"fmt"
	"unicode/utf8"
)

// capture keeps, in bounded memory, both copies of a command's output: the start of the raw
// bytes for the UI and the stripped, line-cut digest for the model.
type capture struct {
	shown []byte // the first MaxDisplayBytes of raw output
	total int64  // raw bytes seen
	strip stripper
	lines lineBuilder
	kept  keeper
	// watch, when set, is shown every line of the model's text (before the cut to 100 lines);
	// watched says whether it matched one.
	watch   func(line []byte) bool
	watched bool
}

func newCapture(watch func(line []byte) bool) *capture {
	c := &capture{watch: watch}
	c.lines = lineBuilder{max: maxLineChars, emit: func(line []byte, cut int, ended bool) {
		if c.watch != nil && !c.watched && c.watch(line) {
			c.watched = true
		}
		c.kept.add(line, cut, ended)
	}}
	return c
}

func (c *capture) write(p []byte) {
	c.total += int64(len(p))
	if room := MaxDisplayBytes - len(c.shown); room > 0 {
		c.shown = append(c.shown, p[:min(room, len(p))]...)
	}
	c.strip.write(p, c.lines.write)
}

// display returns the raw output for the UI, saying so when it was cut.
func (c *capture) display() string {
	if c.total == int64(len(c.shown)) {
		return string(c.shown)
	}
	shown := trimPartialRune(c.shown)
	return fmt.Sprintf("%s\n[output cut: showing the first %d of %d bytes]", shown, len(shown), c.total)
}

// digest ends the stream and returns the model's text and the total line count.
func (c *capture) digest() (string, int) {
	c.lines.end()
	return c.kept.String(), c.kept.total
}

// trimPartialRune drops a character that the cut split in half.
func trimPartialRune(p []byte) []byte {
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			if utf8.FullRune(p[i:]) {
				return p
			}
			return p[:i]
		}
	}
	return p
}
