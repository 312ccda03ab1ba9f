package workspace

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"

	"gantry/internal/ignore"
)

// MaxEntries caps one listing so a huge generated folder cannot freeze the file tree.
const MaxEntries = 2000

// Entry is one file or folder in the file tree.
type Entry struct {
	Name  string `json:"name"`
	Path  string `json:"path"` // slash path relative to the root ("src/main.go")
	IsDir bool   `json:"isDir"`
	Size  int64  `json:"size"` // bytes, files only
	Link  bool   `json:"link"` // a symlink (listed, never followed out of the root)
}

// Listing is the visible content of one folder.
type Listing struct {
	Entries   []Entry `json:"entries"`
	Truncated int     `json:"truncated"` // entries left out past the cap
}

// ListDir lists one directory of the workspace for the lazily loaded file tree:
// directories first, then files, each group sorted case-insensitively in natural order;
// ignored paths (per m) and .git are left out; rel "" is the root; rel outside the root is an error.
func ListDir(m *ignore.Matcher, rel string) (Listing, error) {
	root := m.Root()
	if rel != "" && !filepath.IsLocal(filepath.FromSlash(rel)) {
		return Listing{}, newError(ErrOutsideRoot, nil, `"%s" is outside the project folder "%s".`, rel, root)
	}
	rel = path.Clean("/" + rel)[1:] // "." and "" become "", so entry paths never start with "./"
	dir := filepath.Join(root, filepath.FromSlash(rel))

	// Resolve links before reading so a link inside the workspace cannot lead the tree out of it.
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return Listing{}, fsError(root, err)
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return Listing{}, fsError(dir, err)
	}
	if !within(realRoot, realDir) {
		return Listing{}, newError(ErrOutsideRoot, nil,
			`"%s" leads outside the project folder "%s", so Gantry does not open it.`, rel, root)
	}
	fi, err := os.Stat(realDir)
	if err != nil {
		return Listing{}, fsError(dir, err)
	}
	if !fi.IsDir() {
		return Listing{}, newError(ErrNotDir, nil, `"%s" is a file, not a folder.`, dir)
	}
	dirEntries, err := os.ReadDir(realDir)
	if err != nil {
		return Listing{}, fsError(dir, err)
	}

	entries := make([]Entry, 0, len(dirEntries)) // never nil: the tree expects a JSON array
	for _, de := range dirEntries {
		e := describe(realRoot, realDir, rel, de)
		if !m.Ignored(e.Path, e.IsDir) {
			entries = append(entries, e)
		}
	}
	slices.SortFunc(entries, func(a, b Entry) int {
		if a.IsDir != b.IsDir {
			if a.IsDir {
				return -1
			}
			return 1
		}
		return compareNames(a.Name, b.Name)
	})

	var l Listing
	if extra := len(entries) - MaxEntries; extra > 0 {
		l.Truncated = extra
		entries = entries[:MaxEntries]
	}
	l.Entries = entries
	return l, nil
}

// describe builds the entry for de, found in realDir (the resolved form of rel). A symlink is
// looked through only when its target stays inside the workspace; otherwise it is shown as a
// plain link and never followed. An entry that vanishes before it is examined is shown
// without a size rather than failing the whole listing.
func describe(realRoot, realDir, rel string, de fs.DirEntry) Entry {
	e := Entry{Name: de.Name(), Path: path.Join(rel, de.Name())}
	switch {
	case de.IsDir():
		e.IsDir = true
	case de.Type()&fs.ModeSymlink != 0:
		e.Link = true
		target, err := filepath.EvalSymlinks(filepath.Join(realDir, de.Name()))
		if err != nil || !within(realRoot, target) {
			break
		}
		if fi, err := os.Stat(target); err == nil {
			e.IsDir = fi.IsDir()
			if !e.IsDir {
				e.Size = fi.Size()
			}
		}
	default:
		if fi, err := de.Info(); err == nil {
			e.Size = fi.Size()
		}
	}
	return e
}

// within reports whether p is root or lies below it; both must be resolved paths.
func within(root, p string) bool {
	r, err := filepath.Rel(root, p)
	return err == nil && filepath.IsLocal(r)
}
