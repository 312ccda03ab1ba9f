// Command checkpointbench measures checkpoints on a run that changes a whole project, for
// `make bench`: 1,000 text files totalling 50 MB are snapshotted (Begin + SnapshotBeforeEdit),
// rewritten with RecordResult, listed for review and undone all at once, with the time of each
// step and how much the database grew; then a second checkpoint of the same, unchanged files
// shows what deduplication saves.
//
// Each result is printed as one line "name<TAB>value<TAB>unit" so a script can tabulate it.
// Files are created under -dir (the system temp folder by default) and removed afterwards.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	_ "modernc.org/sqlite" // to read the database's size as another connection sees it

	"gantry/internal/checkpoint"
	"gantry/internal/cputime"
	"gantry/internal/fsutil"
	"gantry/internal/store"
)

func main() {
	dir := flag.String("dir", "", "folder for the temporary files (default: the system temp folder)")
	files := flag.Int("files", 1000, "number of files")
	total := flag.Int("mb", 50, "total size of the files in MB")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "checkpointbench:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(*dir, *files, *total<<20); err != nil {
		fmt.Fprintln(os.Stderr, "checkpointbench:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func report(name string, value float64, unit string) {
	fmt.Printf("%s\t%.2f\t%s\n", name, value, unit)
}

func run(parent string, files, total int) error {
	tmp, err := os.MkdirTemp(parent, "checkpointbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ws, dataDir := filepath.Join(tmp, "workspace"), filepath.Join(tmp, "data")
	paths, err := writeProject(ws, files, total/files)
	if err != nil {
		return fmt.Errorf("writing the project: %w", err)
	}
	ctx := context.Background()
	db, err := store.Open(ctx, dataDir)
	if err != nil {
		return err
	}
	defer db.Close()
	session, err := db.CreateSession(ctx, store.Session{WorkspacePath: ws, Mode: "agent"})
	if err != nil {
		return err
	}
	m := checkpoint.New(db, session.ID)
	size := func() int64 {
		n, err := dbSize(db.Path())
		if err != nil {
			fmt.Fprintln(os.Stderr, "checkpointbench: reading the database size:", err)
			os.Exit(1)
		}
		return n
	}
	report("project_files", float64(files), "files")
	report("project_size", float64(total)/(1<<20), "MB")

	sizeBefore := size()
	step := startStep()
	c, err := snapshotAll(ctx, m, "run-1", paths)
	if err != nil {
		return err
	}
	snapshotTook := step.report("snapshot_all")
	report("db_growth_snapshot", mb(size()-sizeBefore), "MB")

	step = startStep()
	for i, p := range paths {
		// As the edit tools write: a new file renamed over the old (fsutil.WriteFile).
		if err := fsutil.WriteFile(p, rewrite(i, total/files)); err != nil {
			return err
		}
		if err := c.RecordResult(ctx, p); err != nil {
			return err
		}
	}
	step.report("write_and_record_all")

	step = startStep()
	changes, err := c.Files(ctx)
	if err != nil {
		return err
	}
	step.report("files_review_list")
	if len(changes) != files {
		return fmt.Errorf("the review lists %d files, want %d", len(changes), files)
	}

	step = startStep()
	results, err := c.UndoAll(ctx)
	if err != nil {
		return err
	}
	undoTook := step.report("undo_all")
	// The goal of issue 18 is for the two together.
	report("snapshot_plus_undo_all_wall", ms(snapshotTook+undoTook), "ms")
	for _, r := range results {
		if r.Outcome != checkpoint.Restored {
			return fmt.Errorf("%s: %s", r.Path, r.Outcome)
		}
	}
	report("db_growth_first_checkpoint", mb(size()-sizeBefore), "MB")

	sizeBefore = size()
	step = startStep()
	if _, err := snapshotAll(ctx, m, "run-2", paths); err != nil {
		return err
	}
	step.report("snapshot_all_again")
	report("db_growth_identical_checkpoint", float64(size()-sizeBefore)/(1<<10), "KB")
	return nil
}

func snapshotAll(ctx context.Context, m *checkpoint.Manager, runID string, paths []string) (*checkpoint.Checkpoint, error) {
	c, err := m.Begin(ctx, runID)
	if err != nil {
		return nil, err
	}
	for _, p := range paths {
		if err := c.SnapshotBeforeEdit(ctx, p); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// writeProject writes files of about size bytes each, in folders of 50, as source text: lines of
// words from a small vocabulary, which compresses about as well as code does.
func writeProject(root string, files, size int) ([]string, error) {
	var paths []string
	for i := range files {
		p := filepath.Join(root, fmt.Sprintf("pkg%02d", i/50), fmt.Sprintf("file%04d.go", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, sourceText(uint64(i), size), 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

var words = strings.Fields(`func return if else for range err nil ctx string int error type struct
	interface map slice append len make go defer select case switch default package import var const
	true false byte rune uint64 context fmt Errorf Println path filepath os ReadFile WriteFile`)

func sourceText(seed uint64, size int) []byte {
	r := rand.New(rand.NewPCG(seed, 42))
	var b strings.Builder
	b.Grow(size + 100)
	for b.Len() < size {
		b.WriteString(strings.Repeat("\t", r.IntN(4)))
		for n := 3 + r.IntN(8); n > 0; n-- {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		b.WriteString(fmt.Sprintf("// %d\n", r.IntN(100000)))
	}
	return []byte(b.String()[:size])
}

// rewrite is the agent's version of file i: different text of the same size.
func rewrite(i, size int) []byte { return sourceText(uint64(i)+1<<32, size) }

// dbSize is the database's size as a reader sees it, write-ahead log included.
func dbSize(path string) (int64, error) {
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		return 0, err
	}
	defer raw.Close()
	var pages, pageSize int64
	if err := raw.QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
		return 0, err
	}
	if err := raw.QueryRow("PRAGMA page_size").Scan(&pageSize); err != nil {
		return 0, err
	}
	return pages * pageSize, nil
}

// step times one step of the run: wall time, and the CPU time the process spent in it, which
// other work on a shared machine disturbs less (and which leaves out waiting for the disk).
type step struct {
	start time.Time
	cpu   time.Duration
}

func startStep() step { return step{start: time.Now(), cpu: cputime.Used()} }

// report prints NAME_wall and NAME_cpu and returns the wall time.
func (s step) report(name string) time.Duration {
	wall := time.Since(s.start)
	report(name+"_wall", ms(wall), "ms")
	if cpu := cputime.Used(); cpu > 0 {
		report(name+"_cpu", ms(cpu-s.cpu), "ms")
	}
	return wall
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
func mb(b int64) float64         { return float64(b) / (1 << 20) }
