package diff

import (
	"hash/maphash"
	"strings"
)

// script is how lineDiff lines two texts up: their lines, and the lines of the diff in order.
type script struct {
	a, b  []string
	lines []line
}

// line is one line of the diff with its 1-based numbers before and after; on the side a line
// is not on, the number is that of the next line there. Its text is in script.a or script.b
// (see text), so that a long diff is one block without pointers for the garbage collector to
// scan, a quarter of the size it was with the text and kind in it.
type line struct {
	oldNo, newNo int32
	kind         lineKind
}

// lineKind is LineKind in a byte.
type lineKind uint8

const (
	kindContext lineKind = iota
	kindDelete
	kindAdd
)

var lineKinds = [...]LineKind{kindContext: LineContext, kindDelete: LineDelete, kindAdd: LineAdd}

// text is the line with its line ending, if it has one.
func (s *script) text(l line) string {
	if l.kind == kindAdd {
		return s.b[l.newNo-1]
	}
	return s.a[l.oldNo-1]
}

// lineDiff lines old and new up, each line either in both, only in old, or only in new. Lines
// are compared as bytes, so text in any encoding, or none, comes through unchanged.
func lineDiff(old, new string) script {
	a, b := splitLines(old), splitLines(new)
	prefix := 0
	for prefix < len(a) && prefix < len(b) && a[prefix] == b[prefix] {
		prefix++
	}
	suffix := 0
	for suffix < len(a)-prefix && suffix < len(b)-prefix && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	delA, insB := make([]bool, len(a)), make([]bool, len(b))
	changedLines(a[prefix:len(a)-suffix], b[prefix:len(b)-suffix], delA[prefix:], insB[prefix:])
	shiftRuns(a, delA, insB)
	shiftRuns(b, insB, delA)

	out := make([]line, 0, len(a)+len(b)-prefix-suffix)
	// Between two kept lines, the removed lines come before the added ones, as in diff -u.
	var i, j int32
	for int(i) < len(a) || int(j) < len(b) {
		switch {
		case int(i) < len(a) && delA[i]:
			out = append(out, line{oldNo: i + 1, newNo: j + 1, kind: kindDelete})
			i++
		case int(j) < len(b) && insB[j]:
			out = append(out, line{oldNo: i + 1, newNo: j + 1, kind: kindAdd})
			j++
		default:
			out = append(out, line{oldNo: i + 1, newNo: j + 1, kind: kindContext})
			i, j = i+1, j+1
		}
	}
	return script{a: a, b: b, lines: out}
}

// changedLines marks in delA the lines of a not kept in b, and in insB the lines of b not in a.
func changedLines(a, b []string, delA, insB []bool) {
	ids := newInterner(len(a) + len(b))
	number := func(lines []string) []int32 {
		out := make([]int32, len(lines))
		for i, t := range lines {
			out[i] = ids.id(t)
		}
		return out
	}
	idsA := number(a)
	inA := int32(len(ids.lines)) // ids below this are of lines found in a
	idsB := number(b)
	inB := make([]bool, inA)
	for _, id := range idsB {
		if id < inA {
			inB[id] = true
		}
	}
	// A line found on one side only is changed whatever else happens, so the search runs on the
	// others alone: a rewritten file then costs almost nothing, whatever its size.
	keptA, posA := keep(idsA, func(id int32) bool { return inB[id] }, delA)
	keptB, posB := keep(idsB, func(id int32) bool { return id < inA }, insB)
	dA, iB := editScript(keptA, keptB)
	for i, del := range dA {
		delA[posA[i]] = del
	}
	for j, ins := range iB {
		insB[posB[j]] = ins
	}
}

// interner numbers lines from 0 in the order it first sees them, the same line the same number.
// It is a hash table of its own rather than a map[string]int32: one hash and, at most two thirds
// full, one or two probes per line, where a map lookup followed by an insert hashed every new
// line twice. This was nearly half of a diff's time.
type interner struct {
	seed  maphash.Seed
	slots []slot   // open addressing, linear probing; the length is a power of two
	lines []string // by id
}

// slot holds a line's id plus one (0: empty) and the low half of its hash, which rules out most
// other lines without reading their text.
type slot struct {
	hash uint32
	id   int32
}

// newInterner makes room for n lines at most.
func newInterner(n int) *interner {
	size := 1
	for size < n+n/2+1 {
		size <<= 1
	}
	return &interner{seed: maphash.MakeSeed(), slots: make([]slot, size), lines: make([]string, 0, n)}
}

// id returns line's number, giving it the next one if it is new.
func (in *interner) id(line string) int32 {
	h := maphash.String(in.seed, line)
	mask := uint64(len(in.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &in.slots[i]
		if s.id == 0 {
			*s = slot{hash: uint32(h), id: int32(len(in.lines)) + 1}
			in.lines = append(in.lines, line)
			return s.id - 1
		}
		if s.hash == uint32(h) && in.lines[s.id-1] == line {
			return s.id - 1
		}
	}
}

// keep returns the ids that pass, with their positions in ids, and marks the others in dropped.
func keep(ids []int32, pass func(int32) bool, dropped []bool) (kept []int32, pos []int) {
	kept, pos = make([]int32, 0, len(ids)), make([]int, 0, len(ids))
	for i, id := range ids {
		if pass(id) {
			kept = append(kept, id)
			pos = append(pos, i)
		} else {
			dropped[i] = true
		}
	}
	return kept, pos
}

// shiftRuns moves each run of changed lines of one text up or down where that keeps the
// texts the same: with "b" changed in "a b b c", either "b" may be the changed one. The run
// goes where it lines up with a change in the other text, so that a replacement reads as one
// block; failing that, as far down as it can go, so that a new function shows as its own
// lines rather than as the tail of the one before plus the head of the new one. That is where
// diff -u and git put it. A run that slides into another joins it.
func shiftRuns(lines []string, changed, otherChanged []bool) {
	// keptOther[r] is the position of the other text's r-th kept line (0-based). A boundary in
	// this text with r kept lines before it faces the other text's change, if any, that ends
	// right before that line.
	keptOther := make([]int, 0, len(otherChanged)+1)
	for j, c := range otherChanged {
		if !c {
			keptOther = append(keptOther, j)
		}
	}
	keptOther = append(keptOther, len(otherChanged))
	facesChange := func(kept int) bool {
		j := keptOther[kept]
		return j > 0 && otherChanged[j-1]
	}
	up := func(start, end int) (int, int) {
		changed[start-1], changed[end-1] = true, false
		start, end = start-1, end-1
		for start > 0 && changed[start-1] {
			start--
		}
		return start, end
	}

	kept := 0 // unchanged lines before start
	for start := 0; start < len(lines); {
		if !changed[start] {
			start++
			kept++
			continue
		}
		end := start
		for end < len(lines) && changed[end] {
			end++
		}
		lineUp := -1
		for length := -1; length != end-start; {
			length = end - start
			for start > 0 && lines[start-1] == lines[end-1] {
				start, end = up(start, end)
				kept--
			}
			lineUp = -1
			if facesChange(kept) {
				lineUp = end
			}
			for end < len(lines) && lines[start] == lines[end] {
				changed[start], changed[end] = false, true
				start, end = start+1, end+1
				kept++
				for end < len(lines) && changed[end] {
					end++
				}
				if facesChange(kept) {
					lineUp = end
				}
			}
		}
		for lineUp >= 0 && end > lineUp {
			start, end = up(start, end)
			kept--
		}
		start = end
	}
}

// splitLines cuts s after each "\n"; only the last line may lack one. strings.SplitAfter does
// the same through a general substring search per line, 5% more of a diff's instructions.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := make([]string, 0, strings.Count(s, "\n")+1)
	for s != "" {
		end := strings.IndexByte(s, '\n') + 1
		if end == 0 {
			end = len(s)
		}
		lines = append(lines, s[:end])
		s = s[end:]
	}
	return lines
}
