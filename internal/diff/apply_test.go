package diff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestApplyHunks(t *testing.T) {
	t.Parallel()
	old := numbered(1, 30)
	new := strings.NewReplacer("line 2\n", "two\n", "line 15\n", "", "line 29\n", "line 29\nextra\n").Replace(old)
	hunks := Hunks(old, new, DefaultContext)
	require.Len(t, hunks, 3)
	for id, h := range hunks {
		require.Equal(t, id, h.ID)
	}

	got, err := ApplyHunks(old, new, []int{1})
	require.NoError(t, err)
	require.Equal(t, strings.Replace(old, "line 15\n", "", 1), got)

	got, err = ApplyHunks(old, new, []int{2, 0, 2})
	require.NoError(t, err, "order and repeats do not matter")
	require.Equal(t, strings.NewReplacer("line 2\n", "two\n", "line 29\n", "line 29\nextra\n").Replace(old), got)
}

func TestApplyHunksUnknownID(t *testing.T) {
	t.Parallel()
	old, new := "a\nb\n", "a\nB\n"
	for _, id := range []int{-1, 1, 7} {
		_, err := ApplyHunks(old, new, []int{0, id})
		require.ErrorContains(t, err, fmt.Sprintf("no hunk %d", id))
	}
	_, err := ApplyHunks(old, old, []int{0})
	require.Error(t, err, "equal texts have no hunks")
	got, err := ApplyHunks(old, old, nil)
	require.NoError(t, err)
	require.Equal(t, old, got)
}

// IDs are defined on hunks with DefaultContext: changes that another context would show apart
// are still one hunk to ApplyHunks.
func TestApplyHunksIDsAreThoseOfDefaultContext(t *testing.T) {
	t.Parallel()
	old := numbered(1, 20)
	new := strings.NewReplacer("line 5\n", "five\n", "line 10\n", "ten\n").Replace(old)
	require.Len(t, Hunks(old, new, 0), 2)
	require.Len(t, Hunks(old, new, DefaultContext), 1)
	got, err := ApplyHunks(old, new, []int{0})
	require.NoError(t, err)
	require.Equal(t, new, got)
	_, err = ApplyHunks(old, new, []int{1})
	require.Error(t, err)
}

// The bytes of every line survive, whatever the encoding and line endings: what a person keeps
// is what is written.
func TestApplyHunksKeepsBytes(t *testing.T) {
	t.Parallel()
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			all := make([]int, len(Hunks(c.old, c.new, DefaultContext)))
			for i := range all {
				all[i] = i
			}
			got, err := ApplyHunks(c.old, c.new, all)
			require.NoError(t, err)
			require.Equal(t, []byte(c.new), []byte(got))
			got, err = ApplyHunks(c.old, c.new, nil)
			require.NoError(t, err)
			require.Equal(t, []byte(c.old), []byte(got))
		})
	}
}

// Over many random edits: all hunks give new, none give old, and any choice gives a text whose
// own diff from old is exactly the chosen hunks. "Exactly" is by the lines each hunk covers and
// the text on each side of it: where the text repeats itself, the same change can be lined up
// in more than one way inside a hunk. In a text made almost only of repeated lines ("}", blank)
// the new diff may even find a hunk a line longer, an equally short way to the same text, so
// the random texts here stop at half repeated lines.
func TestApplyHunksProperty(t *testing.T) {
	t.Parallel()
	for _, repeat := range []float64{0, 0.2, 0.5} {
		t.Run(fmt.Sprint("repeat ", repeat), func(t *testing.T) {
			t.Parallel()
			g := newTextGen(uint64(repeat*10)+100, repeat)
			for i := range 3000 {
				old, new := g.pair()
				hunks := Hunks(old, new, DefaultContext)
				msg := fmt.Sprintf("case %d\nold %q\nnew %q", i, old, new)

				var all, chosen []int
				var want []Hunk
				for _, h := range hunks {
					all = append(all, h.ID)
					if g.r.IntN(2) == 0 {
						chosen = append(chosen, h.ID)
						want = append(want, h)
					}
				}
				got, err := ApplyHunks(old, new, all)
				require.NoError(t, err, msg)
				require.Equal(t, new, got, msg)
				got, err = ApplyHunks(old, new, nil)
				require.NoError(t, err, msg)
				require.Equal(t, old, got, msg)

				got, err = ApplyHunks(old, new, chosen)
				require.NoError(t, err, msg)
				require.Equal(t, hunkShapes(want), hunkShapes(Hunks(old, got, DefaultContext)), "%s\nchosen %v", msg, chosen)
			}
		})
	}
}

// hunkShape is what a hunk changes: the old lines it covers, and its text before and after.
type hunkShape struct {
	oldStart, oldLines, newLines int
	before, after                string
}

func hunkShapes(hunks []Hunk) []hunkShape {
	var shapes []hunkShape
	for _, h := range hunks {
		s := hunkShape{oldStart: h.OldStart, oldLines: h.OldLines, newLines: h.NewLines}
		for _, l := range h.Lines {
			if l.Kind != LineAdd {
				s.before += l.Text + l.EOL
			}
			if l.Kind != LineDelete {
				s.after += l.Text + l.EOL
			}
		}
		shapes = append(shapes, s)
	}
	return shapes
}
