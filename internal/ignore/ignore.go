// Package ignore decides which workspace paths git would ignore, so that the file tree and
// search hide exactly what the user's own git hides.
package ignore

import (
	"path/filepath"
	"strings"
	"sync"
)

// Matcher answers "is this path ignored?" for one workspace root, following git's rules.
// It reads each directory's .gitignore on first need and keeps what it learned for its
// lifetime, so create a new Matcher to pick up edited ignore files. It is safe for
// concurrent use.
type Matcher struct {
	root    string
	exclude func() []rule

	mu   sync.Mutex
	dirs map[string]*dir
}

// dir is what the Matcher knows about one directory, worked out once.
type dir struct {
	once    sync.Once
	parent  *dir
	ignored bool   // the directory itself, or one above it, is excluded
	rules   []rule // its own .gitignore; never read for an ignored directory, as in git
}

// New returns a Matcher for the workspace at root. Nothing is read until the first question.
func New(root string) *Matcher {
	root = filepath.Clean(root)
	return &Matcher{
		root: root,
		exclude: sync.OnceValue(func() []rule {
			return readRules(filepath.Join(root, ".git", "info", "exclude"), "")
		}),
		dirs: map[string]*dir{},
	}
}

// Root returns the workspace folder the Matcher answers for.
func (m *Matcher) Root() string { return m.root }

// Ignored reports whether rel (slash-separated, relative to root, no leading "./") is ignored.
// isDir tells whether rel is a directory (dir-only patterns like "build/" need it).
// Anything inside an ignored directory is ignored, whatever later patterns say, because git
// never looks inside such a directory.
func (m *Matcher) Ignored(rel string, isDir bool) bool {
	if rel == "" {
		return false
	}
	if hasGitDir(rel) {
		return true
	}
	if isDir {
		return m.dir(rel).ignored
	}
	parent := m.dir(parentOf(rel))
	return parent.ignored || m.decide(parent, rel, false)
}

// dir returns the directory's cached state, working it out (and its ancestors') on first use.
func (m *Matcher) dir(rel string) *dir {
	m.mu.Lock()
	d, ok := m.dirs[rel]
	if !ok {
		d = &dir{}
		m.dirs[rel] = d
	}
	m.mu.Unlock()

	d.once.Do(func() {
		if rel != "" {
			d.parent = m.dir(parentOf(rel))
			d.ignored = d.parent.ignored || m.decide(d.parent, rel, true)
			if d.ignored {
				return
			}
		}
		d.rules = readGitignore(m.root, rel)
	})
	return d
}

// decide applies git's precedence to rel, whose parent directory is parent: the nearest
// .gitignore speaks first, within a file the last matching line wins, and info/exclude
// only counts when no .gitignore matched.
func (m *Matcher) decide(parent *dir, rel string, isDir bool) bool {
	for d := parent; d != nil; d = d.parent {
		if r := lastMatch(d.rules, rel, isDir); r != nil {
			return !r.negate
		}
	}
	if r := lastMatch(m.exclude(), rel, isDir); r != nil {
		return !r.negate
	}
	return false
}

func parentOf(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return ""
}

// hasGitDir reports whether any component of rel is ".git": repository internals are never
// workspace content, even if a pattern tries to re-include them.
func hasGitDir(rel string) bool {
	for part := range strings.SplitSeq(rel, "/") {
		if part == ".git" {
			return true
		}
	}
	return false
}
