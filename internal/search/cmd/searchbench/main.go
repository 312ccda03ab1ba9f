// Command searchbench times search.Search on a tree for scripts/bench-search.sh: it runs one
// pattern several times and prints the median wall time in ms and the match count.
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"time"

	"gantry/internal/ignore"
	"gantry/internal/search"
)

func main() {
	root := flag.String("root", ".", "tree to search")
	runs := flag.Int("runs", 5, "timed runs; the median is reported")
	regex := flag.Bool("regex", false, "the pattern is a regex")
	fold := flag.Bool("i", false, "case-insensitive")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: searchbench [-root DIR] [-runs N] [-regex] [-i] PATTERN")
		os.Exit(2)
	}
	opts := search.Options{
		Pattern:         flag.Arg(0),
		IsRegex:         *regex,
		CaseInsensitive: *fold,
		MaxResults:      math.MaxInt32, // count everything, as rg -c does
	}
	var times []float64
	var res search.Result
	for range *runs {
		start := time.Now()
		r, err := search.Search(context.Background(), ignore.New(*root), opts)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		times = append(times, float64(time.Since(start).Microseconds())/1000)
		res = r
	}
	slices.Sort(times)
	fmt.Printf("%.1f %d\n", times[len(times)/2], res.Matches)
}
