package diff

import (
	"sort"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// go-diff's search costs O(N·D): nothing for a real edit, minutes for a large file whose lines
// were shuffled. Two deterministic bounds keep it in check (a clock would not do: hunk IDs are
// positions in the result, which must be the same every time):
//   - past anchorFrom lines, lines that occur exactly once in each text and keep their order
//     anchor the texts, and go-diff runs only between anchors (patience style);
//   - a stretch between anchors longer than maxSegment lines is marked replaced as a whole.
//
// Below anchorFrom the result is a shortest edit script; above it, it is still correct and, for
// any edit a person or an agent makes, as short.
const (
	anchorFrom = 4_000
	maxSegment = 20_000
)

// editScript marks the elements of a deleted and of b inserted. Elements are line ids.
func editScript(a, b []int32) (delA, insB []bool) {
	delA, insB = make([]bool, len(a)), make([]bool, len(b))
	if len(a)+len(b) < anchorFrom {
		diffSegment(a, b, delA, insB)
		return delA, insB
	}
	i0, j0 := 0, 0
	for _, an := range uniqueAnchors(a, b) {
		diffSegment(a[i0:an.i], b[j0:an.j], delA[i0:an.i], insB[j0:an.j])
		i0, j0 = an.i+1, an.j+1
	}
	diffSegment(a[i0:], b[j0:], delA[i0:], insB[j0:])
	return delA, insB
}

// diffSegment runs go-diff on one stretch, each line id one rune of its input, the way its own
// line mode encodes lines. The deadline is off, for the same result every time.
func diffSegment(a, b []int32, delA, insB []bool) {
	if len(a)+len(b) > maxSegment {
		for i := range delA {
			delA[i] = true
		}
		for j := range insB {
			insB[j] = true
		}
		return
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0
	i, j := 0, 0
	for _, d := range dmp.DiffMainRunes(idRunes(a), idRunes(b), false) {
		n := len([]rune(d.Text))
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			i, j = i+n, j+n
		case diffmatchpatch.DiffDelete:
			for k := range n {
				delA[i+k] = true
			}
			i += n
		case diffmatchpatch.DiffInsert:
			for k := range n {
				insB[j+k] = true
			}
			j += n
		}
	}
}

// idRunes turns line ids into runes that survive go-diff's runes-to-string round trip: valid
// code points, skipping the surrogate range.
func idRunes(ids []int32) []rune {
	out := make([]rune, len(ids))
	for i, id := range ids {
		r := rune(id) + 1 // not NUL
		if r >= 0xD800 {
			r += 0x800
		}
		out[i] = r
	}
	return out
}

type anchor struct{ i, j int }

// uniqueAnchors pairs the lines that occur once in a and once in b, and keeps the longest run of
// pairs in the same order in both (a longest increasing subsequence, by patience sorting).
func uniqueAnchors(a, b []int32) []anchor {
	count := map[int32]int{}
	for _, id := range a {
		count[id]++
	}
	posB := map[int32]int{}
	for j, id := range b {
		if count[id] == 1 {
			if _, seen := posB[id]; seen {
				posB[id] = -1 // twice in b: not unique
			} else {
				posB[id] = j
			}
		}
	}
	var pairs []anchor
	for i, id := range a {
		if j, ok := posB[id]; ok && j >= 0 && count[id] == 1 {
			pairs = append(pairs, anchor{i, j})
		}
	}
	// tails[k] is the index in pairs of the smallest j ending an increasing run of length k+1.
	var tails []int
	prev := make([]int, len(pairs))
	for p, pr := range pairs {
		k := sort.Search(len(tails), func(k int) bool { return pairs[tails[k]].j >= pr.j })
		if k > 0 {
			prev[p] = tails[k-1]
		} else {
			prev[p] = -1
		}
		if k == len(tails) {
			tails = append(tails, p)
		} else {
			tails[k] = p
		}
	}
	out := make([]anchor, len(tails))
	for k, p := len(tails)-1, -1; k >= 0; k-- {
		if p == -1 {
			p = tails[len(tails)-1]
		} else {
			p = prev[p]
		}
		out[k] = pairs[p]
	}
	return out
}
