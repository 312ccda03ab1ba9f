// Command toolbench measures the read-side tools on inputs too large for unit tests, for
// `make bench`:
//
//   - read_file on a 1 GB text file: wall time, and peak memory (VmHWM) before and after, which
//     shows whether the file was streamed or loaded whole;
//   - a batch of 20 read_file calls on different files of a 10,000-file tree: median wall time of
//     5 runs through Registry.RunBatch, the path a model's answer takes.
//
// Each result is printed as one line "name<TAB>value<TAB>unit" so a script can tabulate it.
// Files are created under -dir (the system temp folder by default) and removed afterwards.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gantry/internal/ignore"
	"gantry/internal/tools"
)

func main() {
	dir := flag.String("dir", "", "folder for the temporary files (default: the system temp folder)")
	flag.Parse()
	if err := benchHugeFile(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "toolbench:", err)
		os.Exit(1)
	}
	if err := benchBatch(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "toolbench:", err)
		os.Exit(1)
	}
}

func report(name string, value float64, unit string) {
	fmt.Printf("%s\t%.2f\t%s\n", name, value, unit)
}

// newRegistry is what the agent would use for a workspace at root, with only read_file in it.
func newRegistry(root string) (*tools.Registry, error) {
	env := &tools.Env{Root: root, Ignore: ignore.New(root), Approver: tools.PolicyApprover{}, Checkpoints: tools.NoCheckpoints{}}
	reg := tools.NewRegistry()
	return reg, reg.Register(tools.ReadFile(env))
}

func benchHugeFile(parent string) error {
	root, err := os.MkdirTemp(parent, "toolbench-huge-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	if err := writeTextFile(filepath.Join(root, "huge.log"), 1<<30); err != nil {
		return fmt.Errorf("writing the 1 GB file: %w", err)
	}
	reg, err := newRegistry(root)
	if err != nil {
		return err
	}

	before, err := peakRSS()
	if err != nil {
		return err
	}
	start := time.Now()
	res, err := reg.Execute(context.Background(), "read_file", map[string]any{"path": "huge.log"}, tools.Discard)
	elapsed := time.Since(start)
	if err != nil {
		return err
	}
	if res.Failed() {
		return fmt.Errorf("read_file failed: %s", res.Content)
	}
	after, err := peakRSS()
	if err != nil {
		return err
	}
	report("read_file_1gb_wall", ms(elapsed), "ms")
	report("read_file_1gb_peak_rss_before", mb(before), "MB")
	report("read_file_1gb_peak_rss_after", mb(after), "MB")
	report("read_file_1gb_peak_rss_growth", mb(after-before), "MB")
	return nil
}

// writeTextFile writes size bytes of numbered log lines by repeating one 64 KB block, which is
// fast and still gives read_file ordinary short lines to split.
func writeTextFile(path string, size int64) error {
	var block []byte
	for i := 1; len(block) < 64<<10; i++ {
		block = fmt.Appendf(block, "%08d benchmark line: the quick brown fox jumps over the lazy dog\n", i)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	for written := int64(0); written < size; written += int64(len(block)) {
		if _, err := f.Write(block); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// peakRSS is the process's peak resident memory so far, in bytes (VmHWM in /proc/self/status).
func peakRSS() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/self/status")
}

func benchBatch(parent string) error {
	root, err := os.MkdirTemp(parent, "toolbench-tree-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	if err := writeTree(root, 100, 100); err != nil {
		return fmt.Errorf("writing the tree: %w", err)
	}
	reg, err := newRegistry(root)
	if err != nil {
		return err
	}
	// 20 files in 20 different folders, as a model reading around a project would pick them.
	var calls []tools.Call
	for i := range 20 {
		path := fmt.Sprintf("dir%03d/file%03d.go", i*5, i*3)
		calls = append(calls, tools.Call{ID: strconv.Itoa(i), Name: "read_file", Args: map[string]any{"path": path}})
	}

	var times []time.Duration
	for range 5 {
		start := time.Now()
		results := reg.RunBatch(context.Background(), root, calls, nil)
		times = append(times, time.Since(start))
		for _, r := range results {
			if r.Err != nil || r.Result.Failed() {
				return fmt.Errorf("read_file %v failed: %v %s", r.Call.Args["path"], r.Err, r.Result.Content)
			}
		}
	}
	slices.Sort(times)
	report("read_file_batch20_wall_median", ms(times[len(times)/2]), "ms")
	return nil
}

// writeTree creates dirs folders, each holding files small Go files.
func writeTree(root string, dirs, files int) error {
	var content strings.Builder
	content.WriteString("package bench\n\n")
	for i := range 60 {
		fmt.Fprintf(&content, "// line %d of a small source file, long enough to be realistic.\n", i)
	}
	for d := range dirs {
		dir := filepath.Join(root, fmt.Sprintf("dir%03d", d))
		if err := os.Mkdir(dir, 0o755); err != nil {
			return err
		}
		for f := range files {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%03d.go", f)), []byte(content.String()), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
func mb(b int64) float64         { return float64(b) / (1 << 20) }
