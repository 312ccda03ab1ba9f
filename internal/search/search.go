// Package search finds text in the workspace for the search_workspace tool: a parallel,
// .gitignore-aware grep whose output the model reads.
package search

import (
	"context"
	"path/filepath"
	"runtime"
	"sync"

	"gantry/internal/ignore"
)

// DefaultMaxResults is the match limit when Options.MaxResults is not set: enough to see a
// pattern's spread, few enough to keep the model's context for the work itself.
const DefaultMaxResults = 200

// MaxContextLines caps Options.ContextLines.
const MaxContextLines = 10

type Options struct {
	Pattern         string
	IsRegex         bool // RE2 syntax; otherwise the pattern is literal text
	CaseInsensitive bool
	ContextLines    int // lines before and after each match, 0 to MaxContextLines
	// MaxResults is how many matches are kept (0 means DefaultMaxResults). The search stops
	// once it is known to be exceeded.
	MaxResults int
	// Include and Exclude are doublestar globs on slash paths relative to the root, such as
	// "src/**" or "**/*_test.go". A glob without a slash is matched against the file name,
	// so "*.go" means every Go file. An empty Include means every file; an excluded folder is
	// not entered.
	Include []string
	Exclude []string
	// Path limits the search to one folder or file (slash path relative to the root, or an
	// absolute path inside it). Naming an ignored folder searches it anyway.
	Path string
}

type Line struct {
	Number int // 1-based
	Text   string
}

// Match is a matching line with its context. Context is never repeated: when matches are
// close, the lines between them belong to the earlier match's After.
type Match struct {
	Line
	Before, After []Line
}

type File struct {
	Path    string // slash path relative to the root
	Matches []Match
}

type Result struct {
	// Files holds the files with matches in walk order: lexical, directory by directory. It
	// is the same on every run even though files are searched in parallel.
	Files []File
	// Matches counts matching lines; a line with several matches counts once.
	Matches int
	// Truncated means more than MaxResults lines match; the first MaxResults in walk order
	// are kept.
	Truncated     bool
	FilesSearched int
	SkippedBinary int
	SkippedLarge  int // files over 50 MB, not read
}

// Search looks for opts.Pattern in the files under m's root that git does not ignore. An
// invalid pattern or Path gives an error worded for the model.
func Search(ctx context.Context, m *ignore.Matcher, opts Options) (Result, error) {
	opts = withDefaults(opts)
	mt, err := compile(opts)
	if err != nil {
		return Result{}, err
	}
	w, err := newWalker(m, opts)
	if err != nil {
		return Result{}, err
	}

	// Walking, searching and collecting overlap: the walker feeds a pool of workers as it
	// goes, and the collector cancels both once the limit is known to be exceeded.
	run, stop := context.WithCancel(ctx)
	defer stop()
	jobs := make(chan job, 256)
	results := make(chan fileResult, 256)
	go func() {
		defer close(jobs)
		seq := 0
		w.walk(run, func(rel string) bool {
			select {
			case jobs <- job{seq: seq, rel: rel}:
				seq++
				return true
			case <-run.Done():
				return false
			}
		})
	}()
	var workers sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		workers.Go(func() {
			s := newScanner(mt, opts)
			for j := range jobs {
				if run.Err() == nil {
					results <- s.searchFile(run, filepath.Join(m.Root(), filepath.FromSlash(j.rel)), j)
				}
			}
		})
	}
	go func() {
		workers.Wait()
		close(results)
	}()

	c := collector{limit: opts.MaxResults}
	for r := range results {
		if c.add(r) {
			stop()
		}
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	return c.result(), nil
}

func withDefaults(opts Options) Options {
	if opts.MaxResults <= 0 {
		opts.MaxResults = DefaultMaxResults
	}
	opts.ContextLines = min(max(opts.ContextLines, 0), MaxContextLines)
	return opts
}

// collector puts results back in walk order. Only the run of files from the first one on
// that have all finished counts, so the outcome does not depend on which worker was faster.
type collector struct {
	limit int
	files []*fileResult // by seq, nil until that file is done
	done  int           // files[:done] have all finished
	total int           // matches in files[:done]
	full  bool          // files[:done] have more than limit matches: later files cannot show
}

// add records r and reports whether the search can stop.
func (c *collector) add(r fileResult) bool {
	for len(c.files) <= r.seq {
		c.files = append(c.files, nil)
	}
	c.files[r.seq] = &r
	for !c.full && c.done < len(c.files) && c.files[c.done] != nil {
		f := c.files[c.done]
		c.done++
		c.total += len(f.file.Matches)
		c.full = c.total > c.limit || f.more
	}
	return c.full
}

func (c *collector) result() Result {
	res := Result{Truncated: c.full}
	budget := c.limit
	for _, f := range c.files[:c.done] {
		switch f.outcome {
		case searched:
			res.FilesSearched++
		case skippedBinary:
			res.SkippedBinary++
		case skippedLarge:
			res.SkippedLarge++
		}
		matches := f.file.Matches[:min(len(f.file.Matches), budget)]
		if len(matches) == 0 {
			continue
		}
		budget -= len(matches)
		res.Matches += len(matches)
		res.Files = append(res.Files, File{Path: f.file.Path, Matches: matches})
	}
	return res
}
