package search

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"gantry/internal/ignore"
)

// job is a file to search; seq is its place in walk order, which decides what is kept when
// the match limit cuts the search short.
type job struct {
	seq int
	rel string
}

// walker lists the files to search, in lexical order directory by directory. Symlinks are
// never followed, so the walk cannot leave the workspace or loop.
type walker struct {
	ign       *ignore.Matcher
	startAbs  string
	startRel  string
	useIgnore bool
	include   []string
	exclude   []string
}

func newWalker(m *ignore.Matcher, opts Options) (*walker, error) {
	w := &walker{ign: m, useIgnore: true}
	var err error
	if w.include, err = globs("include", opts.Include); err != nil {
		return nil, err
	}
	if w.exclude, err = globs("exclude", opts.Exclude); err != nil {
		return nil, err
	}
	if w.startRel, err = resolvePath(m.Root(), opts.Path); err != nil {
		return nil, err
	}
	w.startAbs = filepath.Join(m.Root(), filepath.FromSlash(w.startRel))
	fi, err := os.Stat(w.startAbs)
	if err != nil {
		return nil, fmt.Errorf("workspace folder: %w", err)
	}
	// Asking for an ignored folder by name means wanting it searched, so below it only .git
	// is left out.
	if w.startRel != "" && m.Ignored(w.startRel, fi.IsDir()) {
		w.useIgnore = false
	}
	return w, nil
}

// globs validates patterns and reads them the way a model tends to mean them: a leading "./"
// or "/" as the workspace root, a trailing "/" as everything in that folder.
func globs(kind string, patterns []string) ([]string, error) {
	out := make([]string, 0, len(patterns))
	for _, p := range patterns {
		p = strings.TrimLeft(strings.TrimPrefix(filepath.ToSlash(p), "./"), "/")
		if p == "" {
			continue
		}
		if strings.HasSuffix(p, "/") {
			p += "**"
		}
		if !doublestar.ValidatePattern(p) {
			return nil, fmt.Errorf("invalid %s glob %q: check its brackets and braces", kind, p)
		}
		out = append(out, p)
	}
	return out, nil
}

// resolvePath turns the Path option into a clean slash path relative to root. It may name
// a directory or a single file, relatively or absolutely, but must resolve, symlinks
// included, to somewhere inside root.
func resolvePath(root, p string) (string, error) {
	if p == "" {
		return "", nil
	}
	rel := p
	if filepath.IsAbs(p) {
		r, err := filepath.Rel(root, p)
		if err != nil {
			return "", fmt.Errorf("path %q is outside the workspace", p)
		}
		rel = r
	}
	rel = path.Clean(filepath.ToSlash(rel))
	if rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
		return "", fmt.Errorf("path %q is outside the workspace", p)
	}
	if rel == "." {
		return "", nil
	}
	if inGit(rel) {
		return "", errInGit(p)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("workspace folder: %w", err)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return "", fmt.Errorf("path %q does not exist in the workspace", p)
	}
	inside, err := filepath.Rel(realRoot, real)
	if err != nil || inside == ".." || strings.HasPrefix(inside, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("path %q leads outside the workspace through a symlink", p)
	}
	if inside == "." {
		return "", nil
	}
	if rel = filepath.ToSlash(inside); inGit(rel) {
		return "", errInGit(p)
	}
	return rel, nil
}

func inGit(rel string) bool {
	return slices.Contains(strings.Split(rel, "/"), ".git")
}

func errInGit(p string) error {
	return fmt.Errorf("path %q is inside .git, which is never searched", p)
}

// walk calls emit with each file to search until emit returns false or ctx is done.
func (w *walker) walk(ctx context.Context, emit func(rel string) bool) {
	_ = filepath.WalkDir(w.startAbs, func(p string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return filepath.SkipAll
		}
		if err != nil {
			// An unreadable folder or a file deleted mid-walk: search everything else.
			return nil
		}
		rel := w.rel(p)
		if d.IsDir() {
			if rel != w.startRel && w.skipped(rel, d, true) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || w.skipped(rel, d, false) || !w.included(rel) {
			return nil
		}
		if !emit(rel) {
			return filepath.SkipAll
		}
		return nil
	})
}

func (w *walker) rel(p string) string {
	suffix := filepath.ToSlash(p[len(w.startAbs):])
	if w.startRel == "" {
		return strings.TrimPrefix(suffix, "/")
	}
	return w.startRel + suffix
}

func (w *walker) skipped(rel string, d fs.DirEntry, isDir bool) bool {
	if d.Name() == ".git" {
		return true
	}
	if w.useIgnore && w.ign.Ignored(rel, isDir) {
		return true
	}
	return matchAny(w.exclude, rel)
}

func (w *walker) included(rel string) bool {
	return len(w.include) == 0 || matchAny(w.include, rel)
}

// matchAny reports whether rel matches one of the globs. A glob without a slash is matched
// against the file name alone, as in .gitignore, so "*.go" means Go files at any depth.
func matchAny(globs []string, rel string) bool {
	base := rel[strings.LastIndexByte(rel, '/')+1:]
	for _, g := range globs {
		name := rel
		if !strings.Contains(g, "/") {
			name = base
		}
		if doublestar.MatchUnvalidated(g, name) {
			return true
		}
	}
	return false
}
