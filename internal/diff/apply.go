package diff

import (
	"fmt"
	"strings"
)

// ApplyHunks returns old with only the accepted hunks of the change to new applied, as when a
// person keeps some hunks of a proposed edit and rejects the others. IDs are those of
// Hunks(old, new, DefaultContext): with all of them the result is new, with none it is old. An
// ID that is not one of them is an error, since it means the caller's hunks were made from
// other texts.
func ApplyHunks(old, new string, accepted []int) (string, error) {
	script := lineDiff(old, new)
	spans := hunkSpans(script.lines, DefaultContext)
	take := make([]bool, len(spans))
	for _, id := range accepted {
		if id < 0 || id >= len(spans) {
			return "", fmt.Errorf("no hunk %d: the change has %d, numbered from 0", id, len(spans))
		}
		take[id] = true
	}
	var b strings.Builder
	b.Grow(max(len(old), len(new)))
	h := 0
	for i, l := range script.lines {
		for h < len(spans) && i >= spans[h].to {
			h++
		}
		accept := h < len(spans) && i >= spans[h].from && take[h]
		// Unchanged lines stay; of a hunk's changed lines, the new ones if it is accepted, else
		// the old ones.
		if l.kind == kindContext || (l.kind == kindAdd) == accept {
			b.WriteString(script.text(l))
		}
	}
	return b.String(), nil
}
