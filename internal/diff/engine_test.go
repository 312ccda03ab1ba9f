package diff

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// lcsLength is the textbook dynamic programme, to check the engine against.
func lcsLength[T comparable](a, b []T) int {
	row := make([]int, len(b)+1)
	for i := range a {
		diag := 0
		for j := range b {
			up := row[j+1]
			if a[i] == b[j] {
				row[j+1] = diag + 1
			} else {
				row[j+1] = max(row[j+1], row[j])
			}
			diag = up
		}
	}
	return row[len(b)]
}

func randomIDs(r *rand.Rand, n, alphabet int) []int32 {
	ids := make([]int32, r.IntN(n+1))
	for i := range ids {
		ids[i] = int32(r.IntN(alphabet))
	}
	return ids
}

// checkScript requires the unmarked lines of a and b to be the same sequence, and returns how
// many lines are marked.
func checkScript(t *testing.T, a, b []int32, delA, insB []bool, msg string) int {
	t.Helper()
	var keptA, keptB []int32
	marked := 0
	for i, del := range delA {
		if del {
			marked++
		} else {
			keptA = append(keptA, a[i])
		}
	}
	for j, ins := range insB {
		if ins {
			marked++
		} else {
			keptB = append(keptB, b[j])
		}
	}
	require.Equal(t, keptA, keptB, msg)
	return marked
}

// The engine (go-diff on line ids) finds a shortest script.
func TestEditScript(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		alphabet := 1 + r.IntN(8)
		a, b := randomIDs(r, 60, alphabet), randomIDs(r, 60, alphabet)
		msg := fmt.Sprintf("case %d: %v %v", i, a, b)
		delA, insB := editScript(a, b)
		marked := checkScript(t, a, b, delA, insB, msg)
		require.Equal(t, len(a)+len(b)-2*lcsLength(a, b), marked, msg)
	}
}

// Line ids past the surrogate range must survive go-diff's runes-to-string round trip.
func TestEditScriptWithManyDistinctLines(t *testing.T) {
	t.Parallel()
	a := make([]int32, 70_000)
	for i := range a {
		a[i] = int32(i)
	}
	b := append(append([]int32(nil), a[:60_000]...), a[60_001:]...)
	delA, insB := editScript(a, b)
	require.Equal(t, 1, checkScript(t, a, b, delA, insB, "one line removed"))
	require.True(t, delA[60_000])
}

// Lines found on one side only are set aside before the search; the result must still be a
// shortest one.
func TestComputeIsShortest(t *testing.T) {
	t.Parallel()
	for _, repeat := range []float64{0, 0.3, 0.8} {
		g := newTextGen(uint64(repeat*10)+200, repeat)
		for range 3000 {
			old, new := g.pair()
			a, b := splitLines(old), splitLines(new)
			s := Compute(old, new)
			require.Equal(t, len(a)+len(b)-2*lcsLength(a, b), s.Added+s.Removed, "old %q\nnew %q", old, new)
		}
	}
}

// Texts that make an O(ND) search quadratic: a large file shuffled, two halves swapped, and a
// rewrite that keeps only its braces. Anchors and the segment cap keep them fast; the result must
// still turn one text into the other and be the same every time (hunk IDs are positions in it),
// which a search stopped by a clock would not be.
func TestWorstCasesStayFast(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	lines := make([]string, 30_000)
	for i := range lines {
		lines[i] = fmt.Sprintf("x%d := f(%d)\n", r.IntN(1<<30), i)
		if i%5 == 0 {
			lines[i] = "}\n"
		}
	}
	shuffled := append([]string(nil), lines...)
	r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	rewritten := make([]string, len(lines))
	for i := range rewritten {
		rewritten[i] = fmt.Sprintf("y%d\n", i)
		if i%4 == 0 {
			rewritten[i] = "}\n"
		}
	}
	half := strings.Repeat("a\n", 30_000)
	other := strings.Repeat("b\n", 30_000)
	for name, c := range map[string][2]string{
		"shuffled":  {strings.Join(lines, ""), strings.Join(shuffled, "")},
		"rewritten": {strings.Join(lines, ""), strings.Join(rewritten, "")},
		"swapped":   {half + other, other + half},
	} {
		start := time.Now()
		hunks := Hunks(c[0], c[1], DefaultContext)
		took := time.Since(start)
		if name == "swapped" {
			// The search for the shortest script (moving one half, two hunks) would take
			// seconds here; past maxSegment lines the stretch is replaced whole instead. How
			// long these take is measured by make bench.
			require.Len(t, hunks, 1, name)
		}
		all := make([]int, len(hunks))
		for i := range all {
			all[i] = i
		}
		got, err := ApplyHunks(c[0], c[1], all)
		require.NoError(t, err)
		require.Equal(t, c[1], got, name)
		require.Equal(t, hunks, Hunks(c[0], c[1], DefaultContext), name)
		t.Logf("%s: %d hunks in %v", name, len(hunks), took)
	}
}

func TestUniqueAnchorsKeepALongestOrderedRun(t *testing.T) {
	t.Parallel()
	// 1 and 5 repeat, so only 2, 3, 4, 6, 7 can anchor; 7 is out of order.
	a := []int32{1, 2, 3, 1, 7, 4, 5, 5, 6}
	b := []int32{7, 2, 9, 3, 4, 6}
	require.Equal(t, []anchor{{1, 1}, {2, 3}, {5, 4}, {8, 5}}, uniqueAnchors(a, b))
	require.Empty(t, uniqueAnchors([]int32{1, 1}, []int32{1}))
}

// Past anchorFrom the texts are split at anchors; for the edits people and agents make, the
// result is still a shortest one.
func TestAnchoredDiffIsShortestForRealEdits(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 10))
	var old []string
	for i := range 3_000 {
		old = append(old, fmt.Sprintf("line %d\n", i))
		if i%7 == 0 {
			old = append(old, "}\n", "\n")
		}
	}
	new := append([]string(nil), old...)
	for range 60 {
		at := r.IntN(len(new))
		switch r.IntN(3) {
		case 0:
			new = append(new[:at], new[at+1:]...)
		case 1:
			new = append(new[:at], append([]string{fmt.Sprintf("added %d\n", r.IntN(1e6))}, new[at:]...)...)
		default:
			new[at] = fmt.Sprintf("changed %d\n", r.IntN(1e6))
		}
	}
	require.Greater(t, len(old)+len(new), anchorFrom)
	s := Compute(strings.Join(old, ""), strings.Join(new, ""))
	require.Equal(t, len(old)+len(new)-2*lcsLength(old, new), s.Added+s.Removed)
}
