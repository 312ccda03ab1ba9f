// Package workspace opens a project folder chosen or dropped by the user and lists its
// contents for the file tree.
package workspace

import (
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Info describes a folder that is fit to open as a workspace.
type Info struct {
	Path string `json:"path"` // absolute, cleaned, symlinks NOT resolved (show the user what they chose)
	Name string `json:"name"` // base name of Path
}

// Inspect validates a folder the user wants to open.
func Inspect(path string) (Info, error) {
	return inspect(path, "Open")
}

// FromDrop picks the folder out of what was dropped on the window (paths as the OS gave them).
func FromDrop(paths []string) (Info, error) {
	var items []string
	for _, p := range paths {
		if strings.TrimSpace(p) != "" {
			items = append(items, p)
		}
	}
	switch len(items) {
	case 0:
		return Info{}, newError(ErrNothingDropped, nil, "Nothing usable was dropped. Drop a single project folder.")
	case 1:
		return inspect(items[0], "Drop")
	default:
		return Info{}, newError(ErrSeveralDropped, nil, "You dropped %d items. Drop a single project folder.", len(items))
	}
}

// inspect validates raw; verb ("Open", "Drop") makes the advice fit how the user gave it.
func inspect(raw, verb string) (Info, error) {
	p, err := absPath(raw)
	if err != nil {
		return Info{}, err
	}
	fi, err := os.Stat(p)
	if err != nil {
		return Info{}, fsError(p, err)
	}
	if !fi.IsDir() {
		return Info{}, newError(ErrNotDir, nil, `"%s" is a file, not a folder. %s the project folder that contains it ("%s").`,
			p, verb, filepath.Dir(p))
	}
	if err := checkNotTooBroad(p, fi); err != nil {
		return Info{}, err
	}
	if err := checkReadable(p); err != nil {
		return Info{}, err
	}
	return Info{Path: p, Name: filepath.Base(p)}, nil
}

// absPath turns what was typed, picked or dropped into an absolute, cleaned path: it trims
// stray whitespace, accepts file:// URIs (which file managers put on the clipboard and in
// drops) and expands a leading "~", which shells do but the OS does not.
func absPath(raw string) (string, error) {
	p := strings.TrimSpace(raw)
	if u, err := url.Parse(p); err == nil && u.Scheme == "file" {
		// Some file managers name the local host in the URI; only the path matters.
		p = u.Path
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	if p == "" {
		return "", newError(ErrNotFound, nil, "No folder was given. Choose a project folder.")
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fsError(p, err)
	}
	return abs, nil
}

// checkNotTooBroad refuses the top of the file system and the home folder: an agent working
// there would see, and could change, everything the user owns. Comparing files rather than
// strings also catches symlinks to them.
func checkNotTooBroad(p string, fi os.FileInfo) error {
	top := filepath.VolumeName(p) + string(filepath.Separator)
	if same(fi, top) {
		return newError(ErrTooBroad, nil,
			`"%s" is the top of the file system, which is too broad to be a project. Choose a project folder inside it.`, p)
	}
	if home, err := os.UserHomeDir(); err == nil && same(fi, home) {
		return newError(ErrTooBroad, nil,
			`"%s" is your home folder, which is too broad to be a project. Choose a project folder inside it.`, p)
	}
	return nil
}

func same(fi os.FileInfo, other string) bool {
	oi, err := os.Stat(other)
	return err == nil && os.SameFile(fi, oi)
}

// checkReadable catches a folder that can be seen but not listed, which would otherwise
// open as an empty, puzzling workspace.
func checkReadable(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return fsError(p, err)
	}
	defer f.Close()
	if _, err := f.Readdirnames(1); err != nil && err != io.EOF {
		return fsError(p, err)
	}
	return nil
}
