package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"
)

// maxPathBytes is Linux's PATH_MAX: no real path is longer, and refusing early keeps a garbage
// argument from costing thousands of file system calls.
const maxPathBytes = 4096

// maxLinkHops is Linux's limit on links followed while resolving one path (MAXSYMLINKS), so
// nothing the OS could open is refused, and a crafted chain of links cannot make a single call
// expensive.
const maxLinkHops = 40

const pathSep = string(filepath.Separator)

var errLinkLoop = errors.New("symbolic link loop")

// ResolveWorkspacePath returns p as an absolute, cleaned path inside root, or an error saying what
// was refused and why (worded for the model, which reads it as a tool error and may retry).
//
// p is relative to root, or absolute inside root (either as given or with its links resolved).
// "." is root itself; "" is an error, since an empty argument is more likely a mistake than a
// request for the root.
//
// Models often start paths with the workspace folder's name ("myproj/src/a.go" while root is
// …/myproj). That prefix is dropped when root has no entry of that name and either the path
// without it exists, or neither form exists but the first name after the prefix does ("src", so a
// new file lands in the existing folder). A real "myproj" folder inside root always wins, and a
// prefix followed by only new names is kept, because it may be a folder the model means to create
// (a Python package named like its project).
//
// A backslash is read as a separator unless the path exists as written: on Linux it is a legal
// file name character, but in a model's output it is almost always a Windows separator, and
// taking it literally would create files named "src\a.go". A converted path is confined like
// any other, so "..\x" is refused rather than becoming a file name.
//
// The path is refused when any prefix of it leads outside root: ".." that climbs out, absolute
// paths elsewhere, and symbolic links at any depth, including links that dangle (judged by where
// they would lead). Every prefix matters, not only the whole path, because tools write through
// the parent directory (temp file + rename), so "out/back" with "out" leading outside is refused
// even if "back" leads in again. Links that stay inside root are fine; the result is the path as
// given under root, not the link's target. Home ("~"), Windows drive and UNC forms are refused
// by name, since the model should hear why rather than get a surprising file inside root.
//
// The check is made against the file system at call time; a concurrent process that swaps a
// directory for a link between the check and the use is not covered.
func ResolveWorkspacePath(root, p string) (string, error) {
	if err := checkPathForm(p); err != nil {
		return "", err
	}
	return NewWorkspaceRoot(root).resolve(p)
}

// WorkspaceRoot resolves many paths in one root, as ResolveWorkspacePath does each, with the
// root's own links followed once, when it is made, rather than for every path: a root n folders
// deep costs n+1 file system calls, often more than the path itself. Make one per batch of
// paths (the stale-file check of every file the model saw), not for the life of the workspace,
// since the root's links are judged as they were when it was made.
type WorkspaceRoot struct {
	root, real string
	err        error
}

// NewWorkspaceRoot resolves root; an error is returned by every Resolve.
func NewWorkspaceRoot(root string) WorkspaceRoot {
	clean, real, err := resolveRoot(root)
	return WorkspaceRoot{root: clean, real: real, err: err}
}

// Resolve is ResolveWorkspacePath(root, p).
func (w WorkspaceRoot) Resolve(p string) (string, error) {
	if err := checkPathForm(p); err != nil {
		return "", err
	}
	return w.resolve(p)
}

func (w WorkspaceRoot) resolve(p string) (string, error) {
	abs, _, err := w.resolveInfo(p)
	return abs, err
}

// Stat is Resolve(p) and os.Stat of the path it returns. The resolution has looked at the last
// name already (os.Lstat), so a file that is not a link costs no call of its own: checking the
// times of every file the model saw before each model call is one call per file. An error of
// the resolution comes with abs ""; an error of the stat (the file is gone) with abs.
func (w WorkspaceRoot) Stat(p string) (abs string, fi fs.FileInfo, err error) {
	if err := checkPathForm(p); err != nil {
		return "", nil, err
	}
	abs, fi, err = w.resolveInfo(p)
	switch {
	case err != nil:
		return "", nil, err
	case fi == nil:
		fi, err = os.Stat(abs)
	}
	return abs, fi, err
}

// resolveInfo resolves p, with what the last look at the file found when it was not a link
// (nil otherwise).
func (w WorkspaceRoot) resolveInfo(p string) (string, fs.FileInfo, error) {
	if w.err != nil {
		return "", nil, w.err
	}
	rel, err := relativeToRoot(w.root, w.real, p)
	if err != nil {
		return "", nil, err
	}
	fi, err := checkLinks(w.real, p, rel)
	if err != nil {
		return "", nil, err
	}
	return filepath.Join(w.root, rel), fi, nil
}

// checkPathForm refuses what can be judged from the text alone, before touching the disk.
func checkPathForm(p string) error {
	switch {
	case p == "":
		return errors.New(`path is empty: give a path relative to the workspace root ("." for the root itself)`)
	case len(p) > maxPathBytes:
		cut := 64
		for !utf8.RuneStart(p[cut]) {
			cut--
		}
		return fmt.Errorf("path %s… is too long (%d bytes; the limit is %d)", quotePath(p[:cut]), len(p), maxPathBytes)
	case strings.IndexByte(p, 0) >= 0:
		return fmt.Errorf("%s contains a NUL byte, which no file name can contain", quotePath(p))
	case p[0] == '~':
		msg := fmt.Sprintf("%s is a home-directory path, which is outside the workspace; give a path relative to the workspace root", quotePath(p))
		if first, _, _ := strings.Cut(strings.ReplaceAll(p, `\`, "/"), "/"); first != "~" {
			msg += fmt.Sprintf(" (for a file named %s inside the workspace, write %s)", quotePath(first), quotePath("./"+p))
		}
		return errors.New(msg)
	}
	if filepath.Separator != '/' {
		return nil // on Windows, drive and UNC paths are ordinary absolute paths
	}
	if strings.HasPrefix(p, `\\`) {
		return fmt.Errorf("%s is a Windows network (UNC) path, which is outside the workspace; give a path relative to the workspace root", quotePath(p))
	}
	if len(p) >= 3 && isASCIILetter(p[0]) && p[1] == ':' && (p[2] == '\\' || p[2] == '/') {
		return fmt.Errorf("%s is a Windows drive path, which is outside the workspace; give a path relative to the workspace root, such as \"src/main.go\"", quotePath(p))
	}
	return nil
}

func isASCIILetter(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// resolveRoot cleans root and resolves its own links, so a root reached through a link (/tmp on
// macOS) still contains the paths under it.
func resolveRoot(root string) (clean, real string, err error) {
	if !filepath.IsAbs(root) {
		return "", "", fmt.Errorf("workspace root %s is not an absolute path", quotePath(root))
	}
	clean = filepath.Clean(root)
	vol := filepath.VolumeName(clean)
	w := linkWalk{cur: vol + pathSep}
	if err := w.follow(strings.Split(clean[len(vol):], pathSep)); err != nil {
		return "", "", fmt.Errorf("workspace root %s cannot be resolved: %w", quotePath(clean), err)
	}
	fi, err := os.Stat(w.cur)
	if err != nil {
		return "", "", fmt.Errorf("workspace root %s cannot be used: %w", quotePath(clean), err)
	}
	if !fi.IsDir() {
		return "", "", fmt.Errorf("workspace root %s is not a directory", quotePath(clean))
	}
	return clean, w.cur, nil
}

// relativeToRoot turns p into a clean path relative to root that does not climb out of it with
// "..", choosing between the readings of p described on ResolveWorkspacePath.
func relativeToRoot(root, realRoot, p string) (string, error) {
	path := p
	if filepath.Separator == '/' && strings.Contains(p, `\`) && !pathExists(joinUnder(root, p)) {
		path = strings.ReplaceAll(p, `\`, "/")
	}
	if filepath.IsAbs(path) {
		abs := filepath.Clean(path)
		if rel, ok := withinDir(root, abs); ok {
			return rel, nil
		}
		// A path under the resolved root is the same place; tools and shells print either form.
		if rel, ok := withinDir(realRoot, abs); ok {
			return rel, nil
		}
		return "", fmt.Errorf(`%s is outside the workspace, whose root is %s; give a path relative to the root, such as "src/main.go"`, quotePath(p), root)
	}
	rel := filepath.Clean(path)
	if rel == ".." || strings.HasPrefix(rel, ".."+pathSep) {
		return "", fmt.Errorf("%s is outside the workspace (it resolves to %s)", quotePath(p), filepath.Join(root, rel))
	}
	return stripFolderPrefix(root, realRoot, rel), nil
}

func joinUnder(root, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, p)
}

func pathExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// stripFolderPrefix drops a leading workspace-folder name from rel when that is what the model
// meant; the rule and its reasons are on ResolveWorkspacePath.
func stripFolderPrefix(root, realRoot, rel string) string {
	first, rest, _ := strings.Cut(rel, pathSep)
	if first != filepath.Base(root) && first != filepath.Base(realRoot) {
		return rel
	}
	if pathExists(filepath.Join(root, rel)) {
		return rel
	}
	if rest == "" {
		return "."
	}
	if pathExists(filepath.Join(root, rest)) {
		return rest
	}
	next, _, _ := strings.Cut(rest, pathSep)
	if !pathExists(filepath.Join(root, first)) && pathExists(filepath.Join(root, next)) {
		return rest
	}
	return rel
}

// checkLinks resolves rel one name at a time from the real root and refuses it as soon as a
// prefix leads outside, naming the link responsible. It returns what os.Stat would say of the
// resolved file when the walk's last look was at it (nil when it is missing or unknown).
func checkLinks(realRoot, p, rel string) (fs.FileInfo, error) {
	if rel == "." {
		return nil, nil
	}
	names := strings.Split(rel, pathSep)
	w := linkWalk{cur: realRoot}
	for i, name := range names {
		err := w.follow([]string{name})
		switch {
		case errors.Is(err, errLinkLoop):
			return nil, fmt.Errorf("%s cannot be used: %s is a symbolic link that loops (or chains through more than %d links)",
				quotePath(p), quotePath(filepath.Join(names[:i+1]...)), maxLinkHops)
		case err != nil:
			return nil, fmt.Errorf("%s cannot be checked: %s", quotePath(p), describeFSError(err))
		}
		// Only a link can take a plain name out of an inside directory, so the culprit is one.
		if _, ok := withinDir(realRoot, w.cur); !ok {
			return nil, fmt.Errorf("%s is outside the workspace: %s is a symbolic link to %s",
				quotePath(p), quotePath(filepath.Join(names[:i+1]...)), w.cur)
		}
	}
	return w.info, nil
}

// linkWalk resolves names the way the kernel would, except that a missing name is kept as
// written instead of failing, so a file about to be created, or a dangling link, is judged by
// where it would be.
type linkWalk struct {
	cur     string      // absolute, with no links left in it
	missing bool        // cur does not exist, so neither can anything below it
	hops    int         // links followed so far for this path
	info    fs.FileInfo // os.Lstat of cur, when the last step looked at it and it is no link
}

func (w *linkWalk) follow(names []string) error {
	pending := names
	for len(pending) > 0 {
		name := pending[0]
		pending = pending[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			w.cur = filepath.Dir(w.cur) // cur has no links left, so its lexical parent is its real one
			w.missing = false           // the parent of a missing path may well exist
			w.info = nil
			continue
		}
		next := filepath.Join(w.cur, name)
		w.info = nil
		if w.missing {
			w.cur = next
			continue
		}
		fi, err := os.Lstat(next)
		switch {
		case err == nil && fi.Mode()&fs.ModeSymlink != 0:
			w.hops++
			if w.hops > maxLinkHops {
				return errLinkLoop
			}
			target, err := os.Readlink(next)
			if err != nil {
				return err
			}
			if filepath.IsAbs(target) {
				vol := filepath.VolumeName(target)
				w.cur = vol + pathSep
				target = target[len(vol):]
			}
			pending = append(strings.Split(target, pathSep), pending...)
		case err == nil:
			w.cur, w.info = next, fi
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.ENAMETOOLONG):
			w.cur = next
			w.missing = true
		default:
			// Permission denied and the like: what lies below cannot be seen, so it cannot be
			// vouched for.
			return err
		}
	}
	return nil
}

// withinDir reports whether path is dir or below it, and path relative to dir if so.
func withinDir(dir, path string) (string, bool) {
	if path == dir {
		return ".", true
	}
	prefix := dir
	if !strings.HasSuffix(prefix, pathSep) {
		prefix += pathSep
	}
	if rest, ok := strings.CutPrefix(path, prefix); ok {
		return rest, true
	}
	return "", false
}

// describeFSError keeps the reason and drops Go's "lstat /full/path:" wrapping, which the model
// does not need.
func describeFSError(err error) string {
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return fmt.Sprintf("%s: %v", quotePath(pathErr.Path), pathErr.Err)
	}
	return err.Error()
}

// quotePath puts p in double quotes for a message, escaping only when p holds something a reader
// could not see or that would end the quotes early.
func quotePath(p string) string {
	if utf8.ValidString(p) && !strings.ContainsFunc(p, func(r rune) bool { return r == '"' || !unicode.IsPrint(r) }) {
		return `"` + p + `"`
	}
	return strconv.Quote(p)
}
