// Package watch tells Gantry when files in the open workspace change on disk, whoever changed
// them: the file tree, the review panel and Undo's conflict check all need to know. It watches
// every folder the user could see (not .git, not ignored ones, not dependency or build output),
// and coalesces bursts of events into one Change.
package watch

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"gantry/internal/ignore"
)

// DefaultDebounce is how long the watcher waits for quiet before reporting a burst.
const DefaultDebounce = 150 * time.Millisecond

// maxDelayFactor bounds how long a never-ending burst (a build writing for minutes) can hold a
// Change back: at most this many debounce periods.
const maxDelayFactor = 8

// unwatched names folders whose contents are dependencies, caches or build output: watching them
// costs thousands of inotify watches and floods events nobody reads, whether or not the project
// ignores them. The folder itself still shows up (and is reported) in its parent.
var unwatched = map[string]bool{
	"node_modules": true, "__pycache__": true, ".venv": true, ".tox": true,
	".mypy_cache": true, ".pytest_cache": true, ".gradle": true, ".next": true, ".nuxt": true,
	".svelte-kit": true, ".cache": true, "dist": true, "build": true, "target": true,
}

// Options tune a Watcher.
type Options struct {
	Debounce time.Duration // quiet time before a Change is reported; DefaultDebounce when zero
	OnChange func(Change)  // called from the watcher's goroutine, never after Close returns
}

// Change is one coalesced burst of changes. Paths are workspace-relative, slash-separated,
// deduplicated and sorted; "" in Dirs is the workspace root.
type Change struct {
	Paths    []string // files and folders created, written, removed or renamed
	Dirs     []string // folders whose listing changed (an entry came or went)
	Overflow bool     // events were lost: reload everything
	Limited  bool     // not every folder is watched (see Note)
	Note     string   // why, for the user; set with Limited
}

// Status says how much of the workspace is watched.
type Status struct {
	Watched int    // folders with a watch
	Total   int    // folders that should have one
	Limited bool   // the system's watch limit stopped the watcher from adding more
	Note    string // a sentence for the user when Limited
}

// Watcher watches one workspace until Close.
type Watcher struct {
	root     string
	matcher  *ignore.Matcher
	debounce time.Duration
	onChange func(Change)
	fsw      *fsnotify.Watcher
	add      func(abs string) error // fsw.Add; replaced in tests to simulate the watch limit

	mu      sync.Mutex
	dirs    map[string]bool // every visible folder seen, true when it has a watch
	watched int
	limited bool

	pending pending // touched only by the loop goroutine (and New before it starts)

	quit      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// pending collects the current burst.
type pending struct {
	paths    map[string]bool
	dirs     map[string]bool
	overflow bool
}

func (p *pending) empty() bool { return len(p.paths) == 0 && len(p.dirs) == 0 && !p.overflow }

// New starts watching root: every folder not ignored by m gets a watch now, folders created later
// get one as they appear. Running out of inotify watches is not an error (see Status).
func New(root string, m *ignore.Matcher, opts Options) (*Watcher, error) {
	return newWatcher(root, m, opts, nil)
}

// newWatcher is New with a seam around adding a watch, so tests can hit the system limit.
func newWatcher(root string, m *ignore.Matcher, opts Options, wrapAdd func(func(string) error) func(string) error) (*Watcher, error) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("starting the file watcher: %w", err)
	}
	w := &Watcher{
		root:     filepath.Clean(root),
		matcher:  m,
		debounce: opts.Debounce,
		onChange: opts.OnChange,
		fsw:      fsw,
		add:      fsw.Add,
		dirs:     map[string]bool{},
		quit:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	if w.debounce <= 0 {
		w.debounce = DefaultDebounce
	}
	if wrapAdd != nil {
		w.add = wrapAdd(w.add)
	}
	w.resetPending()
	if err := w.scan("", false); err != nil {
		fsw.Close()
		return nil, err
	}
	go w.loop()
	return w, nil
}

// Status reports how many folders are watched and whether the system limit was reached.
func (w *Watcher) Status() Status {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.statusLocked()
}

func (w *Watcher) statusLocked() Status {
	s := Status{Watched: w.watched, Total: len(w.dirs), Limited: w.limited}
	if s.Limited {
		s.Note = fmt.Sprintf("Watching %s of %s folders: the system's inotify limit is reached; "+
			"the file tree may miss changes in the rest. Raise fs.inotify.max_user_watches to watch everything.",
			thousands(s.Watched), thousands(s.Total))
	}
	return s
}

// Close stops the watcher. It may be called more than once; OnChange is never called after it
// returns (so OnChange must not call Close itself).
func (w *Watcher) Close() error {
	w.closeOnce.Do(func() {
		close(w.quit)
		w.closeErr = w.fsw.Close()
		<-w.done
	})
	return w.closeErr
}

func (w *Watcher) loop() {
	defer close(w.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var burstStart time.Time
	arm := func() {
		if w.pending.empty() {
			return
		}
		now := time.Now()
		if burstStart.IsZero() {
			burstStart = now
		}
		wait := min(w.debounce, burstStart.Add(maxDelayFactor*w.debounce).Sub(now))
		timer.Reset(max(wait, 0))
	}
	for {
		select {
		case <-w.quit:
			timer.Stop()
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			w.handle(ev)
			arm()
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.pending.overflow = true
				// Folders created during the lost events have no watch yet.
				if err := w.scan("", false); err != nil {
					slog.Warn("rescanning the workspace after a watch overflow", "err", err)
				}
				arm()
			} else {
				slog.Warn("file watcher", "err", err)
			}
		case <-timer.C:
			burstStart = time.Time{}
			w.flush()
		}
	}
}

// handle records one fsnotify event in the current burst.
func (w *Watcher) handle(ev fsnotify.Event) {
	if ev.Op == fsnotify.Chmod {
		return // permissions and timestamps change neither listings nor content
	}
	rel, ok := w.rel(ev.Name)
	if !ok {
		return
	}
	if rel == "" { // the root itself went away or moved: everything is stale
		w.pending.overflow = true
		return
	}
	gone := ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)
	isDir, known := w.isDir(rel, ev.Name, gone)
	if w.ignored(rel, isDir, known) {
		return
	}
	w.pending.paths[rel] = true
	if ev.Has(fsnotify.Create) || gone {
		w.pending.dirs[parentOf(rel)] = true
	}
	if gone && isDir {
		w.forget(rel)
	}
	if ev.Has(fsnotify.Create) && isDir && !unwatched[path.Base(rel)] {
		// Whatever was created inside before its watch existed (mkdir -p, a moved-in folder)
		// produced no events: find it now.
		if err := w.scan(rel, true); err != nil {
			slog.Warn("watching a new folder", "path", rel, "err", err)
		}
	}
}

// isDir tells whether rel is a folder: from the disk while it exists, from the watch list once
// it is gone. known is false when a gone path was never watched, so nobody can tell.
func (w *Watcher) isDir(rel, abs string, gone bool) (isDir, known bool) {
	if gone {
		w.mu.Lock()
		defer w.mu.Unlock()
		_, seen := w.dirs[rel]
		return seen, seen
	}
	fi, err := os.Lstat(abs)
	if err != nil {
		return false, false
	}
	return fi.IsDir(), true
}

// ignored applies the ignore rules; for a path of unknown kind it is ignored if ignored either
// way, since ignored folders are the common case (a removed build folder matching "build/").
func (w *Watcher) ignored(rel string, isDir, known bool) bool {
	if !known {
		return w.matcher.Ignored(rel, false) || w.matcher.Ignored(rel, true)
	}
	return w.matcher.Ignored(rel, isDir)
}

// forget drops the watches of a removed or renamed folder and everything below it: after a
// rename fsnotify would keep reporting the subfolders under their old names.
func (w *Watcher) forget(rel string) {
	w.mu.Lock()
	var gone []string
	for d, watched := range w.dirs {
		if d == rel || strings.HasPrefix(d, rel+"/") {
			if watched {
				gone = append(gone, d)
				w.watched--
			}
			delete(w.dirs, d)
		}
	}
	w.mu.Unlock()
	for _, d := range gone {
		_ = w.fsw.Remove(w.abs(d)) // a deleted folder's watch is already gone
	}
}

// scan adds watches below rel (rel included) for every visible folder that has none. With
// report, everything found goes into the current burst: it was created unseen.
func (w *Watcher) scan(rel string, report bool) error {
	start := w.abs(rel)
	return filepath.WalkDir(start, func(abs string, d fs.DirEntry, err error) error {
		r, ok := w.rel(abs)
		if !ok {
			return nil
		}
		if err != nil {
			if abs == start && rel == "" {
				return fmt.Errorf("watching %s: %w", w.root, err)
			}
			return nil // vanished or unreadable meanwhile: nothing to watch there
		}
		if r != "" && w.matcher.Ignored(r, d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if report && r != rel {
			w.pending.paths[r] = true
			w.pending.dirs[parentOf(r)] = true
		}
		if !d.IsDir() {
			return nil
		}
		if r != "" && unwatched[d.Name()] {
			return filepath.SkipDir
		}
		// The watch goes on before WalkDir reads the folder, so nothing created in between is lost.
		return w.watchDir(r, abs)
	})
}

func (w *Watcher) watchDir(rel, abs string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, seen := w.dirs[rel]; seen {
		return nil
	}
	if w.limited {
		w.dirs[rel] = false
		return nil
	}
	if err := w.add(abs); err != nil {
		if errors.Is(err, syscall.ENOSPC) {
			w.limited = true
			w.dirs[rel] = false
			slog.Warn("inotify watch limit reached", "watched", w.watched)
			return nil
		}
		if rel == "" {
			return fmt.Errorf("watching %s: %w", w.root, err)
		}
		return nil // removed or unreadable meanwhile
	}
	w.dirs[rel] = true
	w.watched++
	return nil
}

// flush reports the burst and starts a new one.
func (w *Watcher) flush() {
	if w.pending.empty() {
		return
	}
	c := Change{Paths: sortedKeys(w.pending.paths), Dirs: sortedKeys(w.pending.dirs), Overflow: w.pending.overflow}
	st := w.Status()
	c.Limited, c.Note = st.Limited, st.Note
	w.resetPending()
	if w.onChange == nil {
		return
	}
	select {
	case <-w.quit:
	default:
		w.onChange(c)
	}
}

func (w *Watcher) resetPending() {
	w.pending = pending{paths: map[string]bool{}, dirs: map[string]bool{}}
}

func (w *Watcher) rel(abs string) (string, bool) {
	r, err := filepath.Rel(w.root, abs)
	if err != nil || !filepath.IsLocal(r) && r != "." {
		return "", false
	}
	if r == "." {
		return "", true
	}
	return filepath.ToSlash(r), true
}

func (w *Watcher) abs(rel string) string {
	return filepath.Join(w.root, filepath.FromSlash(rel))
}

func parentOf(rel string) string {
	if d := path.Dir(rel); d != "." {
		return d
	}
	return ""
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// thousands writes n with comma separators, as the note reads ("12,000").
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
