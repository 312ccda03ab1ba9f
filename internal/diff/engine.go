package diff

import (
	"slices"
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
	// Most stretches between anchors of an edited file are empty on both sides or on one (the
	// anchors are adjacent, or lines were only added or only removed): nothing to search there.
	if len(a) == 0 || len(b) == 0 || len(a)+len(b) > maxSegment {
		for i := range delA {
			delA[i] = true
		}
		for j := range insB {
			insB[j] = true
		}
		return
	}
	// Stretches between anchors are mostly the recurring lines (braces, blank lines) left as they
	// were; go-diff would say so too, after allocating for it.
	if slices.Equal(a, b) {
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
	// Line ids are small and dense (numbered from 0 as lines are first seen), so slices indexed
	// by id count them: a map here cost more than all of go-diff's search.
	var ids int32
	for _, id := range a {
		ids = max(ids, id+1)
	}
	// inA[id] counts id's lines in a, up to 2; posB[id] is its line in b plus one, -1 when it
	// is there twice or more, 0 when not at all.
	inA := make([]uint8, ids)
	for _, id := range a {
		inA[id] = min(inA[id]+1, 2)
	}
	posB := make([]int32, ids)
	for j, id := range b {
		if id < ids && inA[id] == 1 {
			if posB[id] == 0 {
				posB[id] = int32(j) + 1
			} else {
				posB[id] = -1
			}
		}
	}
	pairs := make([]anchor, 0, len(a))
	for i, id := range a {
		if inA[id] == 1 && posB[id] > 0 {
			pairs = append(pairs, anchor{i, int(posB[id]) - 1})
		}
	}
	// tails[k] is the index in pairs of the smallest j ending an increasing run of length k+1.
	tails := make([]int, 0, len(pairs))
	prev := make([]int, len(pairs))
	for p, pr := range pairs {
		// In an edited file nearly every pair extends the longest run so far: try that first.
		k := len(tails)
		if k > 0 && pairs[tails[k-1]].j >= pr.j {
			k = sort.Search(len(tails), func(k int) bool { return pairs[tails[k]].j >= pr.j })
		}
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
