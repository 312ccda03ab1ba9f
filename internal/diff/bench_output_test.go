package diff

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"gantry/internal/diff/internal/benchtext"
)

// The inputs of `make bench` give the same diff byte for byte as the engine gave before it was
// made faster: the 20k-line file with its 200 edits in full, and the 100k-line shuffle (5 MB of
// output) by its sha256, both read from the generator diffbench uses.
func TestBenchInputsKeepTheirOutput(t *testing.T) {
	t.Parallel()
	r := benchtext.New()
	old, edited := benchtext.Pair(r, 20_000, 200)
	golden(t, "20k-lines-200-edits", Unified("f", old, edited, DefaultContext))

	big := benchtext.SourceLike(r, 100_000)
	lines := strings.SplitAfter(big, "\n")
	r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	shuffled := Unified("f", big, strings.Join(lines, ""), DefaultContext)
	s := Compute(big, strings.Join(lines, ""))
	golden(t, "100k-lines-shuffled", fmt.Sprintf("sha256 %x\n+%d -%d\n", sha256.Sum256([]byte(shuffled)), s.Added, s.Removed))
}

// BenchmarkUnified20kLines200Edits is diffbench's main row, for profiling with go test
// -cpuprofile; make bench times it as a process would see it.
func BenchmarkUnified20kLines200Edits(b *testing.B) {
	old, edited := benchtext.Pair(benchtext.New(), 20_000, 200)
	b.ReportAllocs()
	for b.Loop() {
		Unified("f", old, edited, DefaultContext)
	}
}
