// Package benchtext makes the texts `make bench` diffs, so that diffbench and the tests that pin
// its output read the very same ones.
package benchtext

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// New returns the generator diffbench uses: its first Pair is the 20k-line file and its edit.
func New() *rand.Rand { return rand.New(rand.NewPCG(20_000, 200)) }

// Pair returns a file of n lines and a copy with edits changes scattered through it.
func Pair(r *rand.Rand, n, edits int) (old, edited string) {
	old = SourceLike(r, n)
	return old, ScatterEdits(r, old, edits)
}

// SourceLike returns n lines that look like code: most differ, some (blank lines, braces)
// recur, as in a real file.
func SourceLike(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		switch r.IntN(10) {
		case 0:
			b.WriteString("\n")
		case 1:
			b.WriteString("}\n")
		case 2:
			b.WriteString("\treturn nil\n")
		default:
			fmt.Fprintf(&b, "\tv%d := compute(%d, %q)\n", i, r.IntN(1000), "arg")
		}
	}
	return b.String()
}

// ScatterEdits changes, inserts before, or deletes edits lines at distinct random places.
func ScatterEdits(r *rand.Rand, text string, edits int) string {
	lines := strings.SplitAfter(text, "\n")
	at := r.Perm(len(lines))[:edits]
	slices.Sort(at)
	var b strings.Builder
	next := 0
	for i, l := range lines {
		if next == len(at) || at[next] != i {
			b.WriteString(l)
			continue
		}
		next++
		switch r.IntN(3) {
		case 0:
			fmt.Fprintf(&b, "\tedited%d := changed(%d)\n", i, r.IntN(1000))
		case 1:
			fmt.Fprintf(&b, "\tinserted%d()\n", i)
			b.WriteString(l)
		case 2: // deleted
		}
	}
	return b.String()
}
