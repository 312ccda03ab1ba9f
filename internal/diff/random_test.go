package diff

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// textGen makes pairs of texts shaped like source files and their edits: lines mostly of their
// own, with a share (repeat) of the lines that recur in code (blank lines, braces), some bytes
// that are not UTF-8, CRLF endings now and then, and a missing final newline on either side.
type textGen struct {
	r      *rand.Rand
	repeat float64
	next   int
}

func newTextGen(seed uint64, repeat float64) *textGen {
	return &textGen{r: rand.New(rand.NewPCG(seed, 1)), repeat: repeat}
}

var recurring = []string{"", "}", "\treturn nil", "{", "\t}"}

func (g *textGen) line() string {
	if g.r.Float64() < g.repeat {
		return recurring[g.r.IntN(len(recurring))]
	}
	g.next++
	if g.r.IntN(10) == 0 {
		return fmt.Sprintf("caf\xe9 %d \xff", g.next)
	}
	return fmt.Sprintf("line %d", g.next)
}

// pair returns a text and an edit of it: up to six blocks inserted, deleted or replaced.
func (g *textGen) pair() (old, new string) {
	a := make([]string, g.r.IntN(40))
	for i := range a {
		a[i] = g.line()
	}
	b := append([]string(nil), a...)
	for range g.r.IntN(7) {
		at := g.r.IntN(len(b) + 1)
		var block []string
		if g.r.IntN(3) > 0 {
			for range 1 + g.r.IntN(3) {
				block = append(block, g.line())
			}
		}
		del := 0
		if g.r.IntN(3) > 0 {
			del = min(1+g.r.IntN(3), len(b)-at)
		}
		b = append(b[:at], append(block, b[at+del:]...)...)
	}
	return g.join(a), g.join(b)
}

func (g *textGen) join(lines []string) string {
	eol := "\n"
	if g.r.IntN(8) == 0 {
		eol = "\r\n"
	}
	s := strings.Join(lines, eol)
	if len(lines) > 0 && g.r.IntN(6) > 0 {
		s += eol
	}
	return s
}

// parseUnified reads the hunks of a unified diff, numbering them in order.
func parseUnified(t *testing.T, unified string) []Hunk {
	t.Helper()
	hunks := []Hunk{}
	if unified == "" {
		return hunks
	}
	rows := strings.Split(strings.TrimSuffix(unified, "\n"), "\n")
	var h *Hunk
	oldNo, newNo := 0, 0
	for i, row := range rows {
		switch {
		case strings.HasPrefix(row, "--- "), strings.HasPrefix(row, "+++ "):
			if h == nil {
				continue
			}
		case strings.HasPrefix(row, "@@ "):
			hunks = append(hunks, Hunk{ID: len(hunks), Lines: []Line{}})
			h = &hunks[len(hunks)-1]
			var oldRange, newRange string
			_, err := fmt.Sscanf(row, "@@ -%s +%s @@", &oldRange, &newRange)
			require.NoError(t, err, row)
			h.OldStart, h.OldLines = parseRange(t, oldRange)
			h.NewStart, h.NewLines = parseRange(t, newRange)
			oldNo, newNo = h.OldStart, h.NewStart
			continue
		case strings.HasPrefix(row, `\ `):
			continue
		}
		require.NotNil(t, h, "line before the first hunk: %q", row)
		l := Line{Kind: map[byte]LineKind{' ': LineContext, '-': LineDelete, '+': LineAdd}[row[0]], Text: row[1:], EOL: "\n"}
		require.NotEmpty(t, l.Kind, row)
		if i+1 < len(rows) && strings.HasPrefix(rows[i+1], `\ `) {
			l.EOL = ""
		} else if text, ok := strings.CutSuffix(l.Text, "\r"); ok {
			l.Text, l.EOL = text, "\r\n"
		}
		if l.Kind != LineAdd {
			l.OldNumber = oldNo
			oldNo++
		}
		if l.Kind != LineDelete {
			l.NewNumber = newNo
			newNo++
		}
		h.Lines = append(h.Lines, l)
	}
	return hunks
}

func parseRange(t *testing.T, r string) (start, count int) {
	t.Helper()
	startText, countText, found := strings.Cut(r, ",")
	start, err := strconv.Atoi(startText)
	require.NoError(t, err, r)
	count = 1
	if found {
		count, err = strconv.Atoi(countText)
		require.NoError(t, err, r)
	}
	return start, count
}

// The random cases are like code, where lines mostly differ. With many equal lines (a text of
// only "a" and "b" lines) there are often several shortest ways to go from one text to the
// other, and diff and this package may pick different ones; both are right.
func TestHunksMatchDiffURandom(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("diff"); err != nil {
		t.Skip("diff is not installed")
	}
	for _, repeat := range []float64{0, 0.15, 0.4} {
		t.Run(fmt.Sprint("repeat ", repeat), func(t *testing.T) {
			t.Parallel()
			g := newTextGen(uint64(repeat*100), repeat)
			for i := range 150 {
				old, new := g.pair()
				context := g.r.IntN(5)
				msg := fmt.Sprintf("case %d, -U%d\nold %q\nnew %q", i, context, old, new)
				want := gnuUnified(t, old, new, context)
				if repeat >= 0.4 {
					// With many repeated lines several shortest diffs exist and the engines may
					// pick different ones: require one as short as diff's, not the same one.
					require.Equal(t, countChanges(t, want), countChanges(t, Unified("f", old, new, context)), msg)
					continue
				}
				require.Equal(t, parseUnified(t, want), Hunks(old, new, context), msg)
				require.Equal(t, want, hunks(Unified("f", old, new, context)), msg)
			}
		})
	}
}

func TestUnifiedReadsBackAsHunks(t *testing.T) {
	t.Parallel()
	g := newTextGen(7, 0.3)
	for range 500 {
		old, new := g.pair()
		require.Equal(t, Hunks(old, new, DefaultContext), parseUnified(t, Unified("f", old, new, DefaultContext)))
	}
}

// countChanges counts the added and removed lines of unified diff text.
func countChanges(t *testing.T, unified string) [2]int {
	t.Helper()
	var n [2]int
	for _, l := range strings.Split(unified, "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			n[0]++
		case strings.HasPrefix(l, "-"):
			n[1]++
		}
	}
	return n
}
