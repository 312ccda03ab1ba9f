// Command diffbench measures internal/diff for `make bench`, against git on the same files:
//
//   - a 20,000-line source-like file and a copy with 200 edits scattered through it (lines
//     changed, inserted and deleted): the median of 5 runs of diff.Unified, and the median of 5
//     runs of `git diff --no-index --no-color -U3` on the same two files. git's time is wall time
//     of the whole process, start-up included, so it is also given for `git --version` alone.
//     Both must find the same lines added and removed, or the command fails;
//   - the worst case for the search, the same file at 100,000 lines shuffled, once each, with how
//     many lines each tool shows as changed (no shortest script is sought there, so they differ);
//   - a 60,000-line file with its halves swapped, the case the segment cap is for, once.
//
// Each result is printed as one line "name<TAB>value<TAB>unit" so a script can tabulate it. The
// two files are written under -dir (the system temp folder by default) and removed afterwards.
package main

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gantry/internal/diff"
)

const runs = 5

func main() {
	dir := flag.String("dir", "", "folder for the temporary files (default: the system temp folder)")
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "diffbench:", err)
		os.Exit(1)
	}
}

func report(name string, value float64, unit string) {
	fmt.Printf("%s\t%.2f\t%s\n", name, value, unit)
}

func run(parent string) error {
	dir, err := os.MkdirTemp(parent, "diffbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	r := rand.New(rand.NewPCG(20_000, 200))

	old := sourceLike(r, 20_000)
	edited := scatterEdits(r, old, 200)
	ours, oursTime := timeOurs(old, edited)
	git, gitTime, err := timeGit(dir, old, edited)
	if err != nil {
		return err
	}
	gitStart, err := median(func() (time.Duration, error) { return timeCommand("git", "--version") })
	if err != nil {
		return err
	}
	oursAdded, oursRemoved := countChanges(ours)
	gitAdded, gitRemoved := countChanges(git)
	if oursAdded != gitAdded || oursRemoved != gitRemoved {
		return fmt.Errorf("diff.Unified shows +%d −%d, git +%d −%d", oursAdded, oursRemoved, gitAdded, gitRemoved)
	}
	report("diff_20k_lines_200_edits_unified", ms(oursTime), "ms")
	report("diff_20k_lines_200_edits_git_diff_process", ms(gitTime), "ms")
	report("git_version_process", ms(gitStart), "ms")
	report("diff_20k_lines_200_edits_added", float64(oursAdded), "lines")
	report("diff_20k_lines_200_edits_removed", float64(oursRemoved), "lines")

	big := sourceLike(r, 100_000)
	lines := strings.SplitAfter(big, "\n")
	r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	shuffled := strings.Join(lines, "")
	start := time.Now()
	ours = diff.Unified("f", big, shuffled, diff.DefaultContext)
	oursTime = time.Since(start)
	git, gitTime, err = gitDiff(dir, big, shuffled)
	if err != nil {
		return err
	}
	oursAdded, oursRemoved = countChanges(ours)
	gitAdded, gitRemoved = countChanges(git)
	report("diff_100k_lines_shuffled_unified", ms(oursTime), "ms")
	report("diff_100k_lines_shuffled_git_diff_process", ms(gitTime), "ms")
	report("diff_100k_lines_shuffled_unified_changed", float64(oursAdded+oursRemoved), "lines")
	report("diff_100k_lines_shuffled_git_changed", float64(gitAdded+gitRemoved), "lines")

	half := strings.SplitAfter(sourceLike(r, 60_000), "\n")
	first, second := strings.Join(half[:30_000], ""), strings.Join(half[30_000:], "")
	start = time.Now()
	diff.Unified("f", first+second, second+first, diff.DefaultContext)
	report("diff_60k_lines_halves_swapped_unified", ms(time.Since(start)), "ms")
	return nil
}

// sourceLike returns n lines that look like code: most differ, some (blank lines, braces)
// recur, as in a real file.
func sourceLike(r *rand.Rand, n int) string {
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

// scatterEdits changes, inserts before, or deletes edits lines at distinct random places.
func scatterEdits(r *rand.Rand, text string, edits int) string {
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

func timeOurs(old, new string) (string, time.Duration) {
	var out string
	took, _ := median(func() (time.Duration, error) {
		start := time.Now()
		out = diff.Unified("f", old, new, diff.DefaultContext)
		return time.Since(start), nil
	})
	return out, took
}

func timeGit(dir, old, new string) (string, time.Duration, error) {
	var out string
	took, err := median(func() (time.Duration, error) {
		var took time.Duration
		var err error
		out, took, err = gitDiff(dir, old, new)
		return took, err
	})
	return out, took, err
}

// gitDiff writes the two texts to files and diffs them with git, timing the process.
func gitDiff(dir, old, new string) (string, time.Duration, error) {
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(a, []byte(old), 0o644); err != nil {
		return "", 0, err
	}
	if err := os.WriteFile(b, []byte(new), 0o644); err != nil {
		return "", 0, err
	}
	cmd := exec.Command("git", "diff", "--no-index", "--no-color", "-U3", a, b)
	start := time.Now()
	out, err := cmd.Output()
	took := time.Since(start)
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		err = nil // 1 means "differ"
	}
	if err != nil {
		return "", 0, fmt.Errorf("git diff: %w", err)
	}
	return string(out), took, nil
}

func timeCommand(name string, args ...string) (time.Duration, error) {
	start := time.Now()
	if err := exec.Command(name, args...).Run(); err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	return time.Since(start), nil
}

func median(measure func() (time.Duration, error)) (time.Duration, error) {
	times := make([]time.Duration, runs)
	for i := range times {
		took, err := measure()
		if err != nil {
			return 0, err
		}
		times[i] = took
	}
	slices.Sort(times)
	return times[runs/2], nil
}

// countChanges counts the added and removed lines of a one-file unified diff. The file headers
// come before the first hunk, so a removed line that starts with "--" is not taken for one.
func countChanges(unified string) (added, removed int) {
	inHunks := false
	for _, l := range strings.Split(unified, "\n") {
		switch {
		case strings.HasPrefix(l, "@@ "):
			inHunks = true
		case !inHunks:
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
