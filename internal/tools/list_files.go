package tools

import (
	"context"
	_ "embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

//go:embed list_files.md
var listFilesDescription string

// listMaxEntries caps what list_files and glob show the model; the rest is only counted.
const listMaxEntries = 500

// A walk stops after this many entries or this long, so a huge tree cannot hold a call; what it
// did not reach is reported as "at least N more". The time limit is for slow disks; it only
// applies past listWalkExactEntries, so ordinary trees are listed whole however busy the machine.
const (
	listWalkEntries      = 100_000
	listWalkTime         = 2 * time.Second
	listWalkExactEntries = 10_000
)

type listFilesParams struct {
	Path      string `json:"path,omitempty" jsonschema:"folder to list, relative to the workspace root; omit for the root"`
	Recursive bool   `json:"recursive,omitempty" jsonschema:"true to list subfolders' contents too"`
	Pattern   string `json:"pattern,omitempty" jsonschema:"only entries matching this glob, e.g. *.go or src/**/*_test.go"`
}

// FileListDisplay is what list_files and glob show in the UI.
type FileListDisplay struct {
	Kind    string          `json:"kind"` // "files"
	Base    string          `json:"base"` // workspace-relative slash folder, "" for the root
	Entries []FileListEntry `json:"entries"`
	More    int             `json:"more"` // entries found but not listed
	// MoreAtLeast says the walk stopped early on a huge tree, so More is a lower bound.
	MoreAtLeast bool `json:"moreAtLeast,omitempty"`
}

// FileListEntry is one listed file or folder.
type FileListEntry struct {
	Path  string `json:"path"` // workspace-relative slash path
	IsDir bool   `json:"isDir"`
	Link  string `json:"link,omitempty"` // for a symbolic link: "inside", "outside" or "broken"
}

// ListFiles lists a folder, optionally recursively and filtered by a glob.
//
// Entries are shown as workspace-relative paths even when a subfolder is listed, so the model can
// pass them straight to read_file instead of joining them to the base (which small models get
// wrong). A recursive listing is walked breadth first, so when it is cut off at the cap the model
// still sees the top levels whole; it is then printed in tree order (a folder, then its contents,
// subfolders before files).
var listFilesAbout = About{
	Label: "List folders", Summary: "List the files and folders of a folder.", Core: true,
	Hint: "Unknown layout: list_files.",
	View: func(args map[string]any) CallView {
		p := PathArg(args)
		if p == "" {
			p = "."
		}
		return CallView{Running: "Listing " + p}
	},
}

func ListFiles(env *Env) Tool {
	return Define("list_files", KindRead, listFilesDescription, listFilesAbout, func(ctx context.Context, p listFilesParams, _ Output) (Result, error) {
		pattern := normalizeGlob(env, p.Pattern)
		// A pattern naming folders ("src/**/*.go") cannot match anything without going into them.
		recursive := p.Recursive || strings.Contains(pattern, "/")
		w, failed, err := walkListing(ctx, env, p.Path, pattern, recursive)
		if failed != nil {
			return *failed, nil
		}
		if err != nil {
			return Result{}, err
		}
		where := w.label()
		if recursive {
			where += " and its subfolders"
		}
		if len(w.found) == 0 {
			switch {
			case pattern != "" && !recursive:
				return Fail(ErrFailed, "Nothing in %s matches %q. Only %s itself was searched; set recursive to true to search its subfolders too.", where, pattern, w.label()), nil
			case pattern != "":
				return Fail(ErrFailed, "Nothing in %s matches %q.%s", where, pattern, w.hiddenNote()), nil
			}
			return Result{Content: fmt.Sprintf("%s is empty.%s", w.label(), w.hiddenNote()), Display: w.display()}, nil
		}
		header := "Contents of " + where
		if pattern != "" {
			header = fmt.Sprintf("Entries in %s matching %q", where, pattern)
		}
		return Result{Content: w.forModel(header), Display: w.display()}, nil
	})
}

// normalizeGlob reads a pattern the way a model tends to mean it: "./src" and "/src" as
// workspace-relative, an absolute path inside the workspace as relative, and a trailing "/" as
// everything in that folder.
func normalizeGlob(env *Env, pattern string) string {
	p := filepath.ToSlash(strings.TrimSpace(pattern))
	if root := filepath.ToSlash(filepath.Clean(env.Root)) + "/"; strings.HasPrefix(p, root) {
		p = strings.TrimPrefix(p, root)
	}
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	p = strings.TrimLeft(p, "/")
	if strings.HasSuffix(p, "/") {
		p += "**/*" // not "**", which would match the folder itself too
	}
	return p
}

// treeWalk finds the entries of one list_files or glob call.
type treeWalk struct {
	ctx       context.Context
	env       *Env
	root      string // clean workspace root
	base      string // workspace-relative slash folder, "" for the root
	recursive bool
	pattern   string // "" for everything
	useIgnore bool
	found     []FileListEntry // the first listMaxEntries matches, breadth first
	more      int             // matches beyond those
	hidden    int             // entries left out by .gitignore
	partial   bool            // the walk stopped at its budget
}

// walkListing resolves the folder, checks the pattern and walks. A mistake the model can fix
// comes back as a failed result.
func walkListing(ctx context.Context, env *Env, folder, pattern string, recursive bool) (*treeWalk, *Result, error) {
	if folder == "" {
		folder = "."
	}
	fail := func(kind ErrorKind, format string, args ...any) (*treeWalk, *Result, error) {
		res := Fail(kind, format, args...)
		return nil, &res, nil
	}
	abs, base, failed := resolveForReading(env, folder)
	if failed != nil {
		return nil, failed, nil
	}
	if base == ".git" || strings.HasPrefix(base, ".git/") {
		return fail(ErrInvalidArguments, "%s is inside git's own .git folder, which is not workspace content and is not listed.", quotePath(base))
	}
	fi, err := os.Stat(abs)
	if err != nil {
		res, err := missingOrUnreadable(env, base, "folder", err)
		return nil, &res, err
	}
	if !fi.IsDir() {
		return fail(ErrInvalidArguments, "%s is a file, not a folder. Use read_file to read it.", quotePath(base))
	}
	if pattern != "" && !doublestar.ValidatePattern(pattern) {
		return fail(ErrInvalidArguments, "pattern %q is not a valid glob: check its brackets and braces.", pattern)
	}
	w := &treeWalk{
		ctx: ctx, env: env, root: filepath.Clean(env.Root), base: base, recursive: recursive, pattern: pattern,
		// Asking for an ignored folder by name means wanting to see it; only .git stays hidden.
		useIgnore: env.Ignore != nil && (base == "" || !env.Ignore.Ignored(base, true)),
	}
	if err := w.run(); err != nil {
		if ctx.Err() != nil {
			return fail(ErrCancelled, "Listing %s was stopped.", w.label())
		}
		if os.IsPermission(err) {
			return fail(ErrFailed, "%s cannot be listed: permission denied.", quotePath(base))
		}
		return nil, nil, fmt.Errorf("listing %s: %w", base, err)
	}
	return w, nil, nil
}

func (w *treeWalk) run() error {
	deadline := time.Now().Add(listWalkTime)
	visited := 0
	queue := []string{w.base}
	for len(queue) > 0 {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		dir := queue[0]
		queue = queue[1:]
		entries, err := os.ReadDir(filepath.Join(w.root, filepath.FromSlash(dir)))
		if err != nil {
			if dir == w.base {
				return err
			}
			continue // an unreadable subfolder is left out rather than failing the whole listing
		}
		for _, e := range entries {
			if visited++; visited > listWalkEntries || visited > listWalkExactEntries && visited%256 == 0 && time.Now().After(deadline) {
				w.partial = true
				return nil
			}
			// A .git file (worktrees, submodules) is as much git's business as the folder.
			if e.Name() == ".git" {
				continue
			}
			entry := FileListEntry{Path: path.Join(dir, e.Name()), IsDir: e.IsDir()}
			if e.Type()&fs.ModeSymlink != 0 {
				entry.IsDir, entry.Link = w.classifyLink(entry.Path)
			}
			// git treats a link as a file, whatever it points to.
			if w.useIgnore && w.env.Ignore.Ignored(entry.Path, entry.IsDir && entry.Link == "") {
				w.hidden++
				continue
			}
			if w.matches(entry.Path) {
				if len(w.found) < listMaxEntries {
					w.found = append(w.found, entry)
				} else {
					w.more++
				}
			}
			// Links are never followed, so a walk cannot loop or list a folder twice.
			if w.recursive && entry.IsDir && entry.Link == "" {
				queue = append(queue, entry.Path)
			}
		}
	}
	return nil
}

// classifyLink says where a symbolic link leads: a link that stays inside the workspace is listed
// as what it points to; one that leads out is named as such, since every tool refuses it.
func (w *treeWalk) classifyLink(rel string) (isDir bool, link string) {
	abs := filepath.Join(w.root, filepath.FromSlash(rel))
	fi, err := os.Stat(abs)
	if err != nil {
		return false, "broken"
	}
	if _, err := ResolveWorkspacePath(w.root, rel); err != nil {
		return false, "outside"
	}
	return fi.IsDir(), "inside"
}

// matches reports whether rel passes the pattern. A pattern without "/" is matched against names
// at any depth ("*.go" finds every Go file); one with "/" against the path relative to the listed
// folder or, since models mix the two, relative to the workspace root.
func (w *treeWalk) matches(rel string) bool {
	switch {
	case w.pattern == "":
		return true
	case !strings.Contains(w.pattern, "/"):
		return doublestar.MatchUnvalidated(w.pattern, path.Base(rel))
	case w.base != "" && doublestar.MatchUnvalidated(w.pattern, strings.TrimPrefix(rel, w.base+"/")):
		return true
	}
	return doublestar.MatchUnvalidated(w.pattern, rel)
}

// label names the listed folder for the model.
func (w *treeWalk) label() string {
	if w.base == "" {
		return "the workspace root"
	}
	return w.base + "/"
}

func (w *treeWalk) hiddenNote() string {
	if w.hidden == 0 {
		return ""
	}
	if w.hidden == 1 {
		return " (1 entry is hidden by .gitignore.)"
	}
	return fmt.Sprintf(" (%d entries are hidden by .gitignore.)", w.hidden)
}

func (w *treeWalk) sorted() []FileListEntry {
	sort.Slice(w.found, func(i, j int) bool { return treeLess(w.found[i], w.found[j]) })
	return w.found
}

// treeLess orders paths as a tree: a folder right before its contents, and within a folder,
// subfolders first, then files, each by name.
func treeLess(a, b FileListEntry) bool {
	pa, pb := strings.Split(a.Path, "/"), strings.Split(b.Path, "/")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		if pa[i] == pb[i] {
			continue
		}
		dirA, dirB := i < len(pa)-1 || a.IsDir, i < len(pb)-1 || b.IsDir
		if dirA != dirB {
			return dirA
		}
		if la, lb := strings.ToLower(pa[i]), strings.ToLower(pb[i]); la != lb {
			return la < lb
		}
		return pa[i] < pb[i]
	}
	return len(pa) < len(pb)
}

// forModel prints the header, one path a line (folders end in "/"), and what was left out.
func (w *treeWalk) forModel(header string) string {
	var b strings.Builder
	count := len(w.found) + w.more
	noun := "entries"
	if count == 1 {
		noun = "entry"
	}
	switch {
	case w.partial:
		fmt.Fprintf(&b, "%s (at least %d %s; %d shown):\n", header, count, noun, len(w.found))
	case w.more > 0:
		fmt.Fprintf(&b, "%s (%d %s; %d shown):\n", header, count, noun, len(w.found))
	default:
		fmt.Fprintf(&b, "%s (%d %s):\n", header, count, noun)
	}
	for _, e := range w.sorted() {
		b.WriteString(e.Path)
		if e.IsDir {
			b.WriteByte('/')
		}
		switch e.Link {
		case "inside":
			b.WriteString(" (symlink)")
		case "outside":
			b.WriteString(" (symlink to outside the workspace; cannot be read)")
		case "broken":
			b.WriteString(" (broken symlink)")
		}
		b.WriteByte('\n')
	}
	switch {
	case w.partial:
		fmt.Fprintf(&b, "[%d more not shown, and the walk stopped early on this large tree, so there may be others. Use a narrower path or a pattern.]\n", w.more)
	case w.more > 0:
		fmt.Fprintf(&b, "[%d more not shown. Use a narrower path or a pattern to see them.]\n", w.more)
	}
	return b.String()
}

func (w *treeWalk) display() FileListDisplay {
	entries := w.sorted()
	if entries == nil {
		entries = []FileListEntry{}
	}
	return FileListDisplay{Kind: "files", Base: w.base, Entries: entries, More: w.more, MoreAtLeast: w.partial}
}
