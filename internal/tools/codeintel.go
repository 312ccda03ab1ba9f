package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gantry/internal/lsp"
)

// CodeIntel is the workspace's language servers (*lsp.Manager): the code intelligence tools ask
// them, get_diagnostics asks them first, and edits are checked by them (SPEC §6).
type CodeIntel interface {
	Client(ctx context.Context, file string, caller lsp.Caller) (*lsp.Client, error)
	ClientFor(ctx context.Context, id string, caller lsp.Caller) (*lsp.Client, error)
	// Available are the workspace's languages that have a server (Spec IDs).
	Available() []string
}

// Place is a location a result names: the UI lists them, and a click opens the file there.
type Place struct {
	Path string `json:"path"` // workspace-relative slash path
	Line int    `json:"line"`
	Text string `json:"text,omitempty"` // the line, trimmed, for the list
}

// Problem is an error a language server reported, for the action row.
type Problem struct {
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// codeParams are how a call names a place in a file (reference 001's position resolution).
type codeParams struct {
	Path       string `json:"path" jsonschema:"The file, relative to the workspace root"`
	SymbolName string `json:"symbolName,omitempty" jsonschema:"The name of the function, type or variable (e.g. \"handleRequest\" or \"Server.Start\"); found in the file, nearest to line when given"`
	Line       int    `json:"line,omitempty" jsonschema:"1-based line number; with character, the exact place"`
	Character  int    `json:"character,omitempty" jsonschema:"1-based character in the line"`
}

func (p codeParams) where() lsp.Where {
	return lsp.Where{Symbol: p.SymbolName, Line: p.Line, Char: p.Character}
}

// codeCall is a code intelligence call under way: its server, its file, what it said on the way.
type codeCall struct {
	env    *Env
	client *lsp.Client
	abs    string
	rel    string
	text   string
	notes  []string
}

// caller is how the tools ask for a server: trusted or not, and asking the person before a
// server that runs the project's code starts in an untrusted folder.
func (env *Env) caller() lsp.Caller {
	return lsp.Caller{
		Trusted: env.Approver.FolderTrusted(),
		Approve: func(ctx context.Context, command, why string) (bool, string, error) {
			d, err := env.Approver.ApproveFolderCode(ctx, FolderCodeApproval{Command: command, Cwd: env.Root, Why: why})
			return d.Allowed, d.Message, err
		},
	}
}

// openCode resolves path and gets its language server, ready to answer, or the result that
// says why not (worded for the model to act on).
func openCode(ctx context.Context, env *Env, path string) (*codeCall, *Result) {
	if strings.TrimSpace(path) == "" {
		res := Fail(ErrInvalidArguments, "path is empty: give the file, relative to the workspace root.")
		return nil, &res
	}
	abs, rel, failed := resolveForReading(env, path)
	if failed != nil {
		return nil, failed
	}
	fi, err := os.Stat(abs)
	switch {
	case err != nil:
		res := Fail(ErrNotFound, "%s does not exist.", quotePath(rel))
		return nil, &res
	case fi.IsDir():
		res := Fail(ErrInvalidArguments, "%s is a folder; give a file.", quotePath(rel))
		return nil, &res
	}
	if env.Code == nil {
		res := noServer(rel, nil)
		return nil, &res
	}
	client, err := env.Code.Client(ctx, abs, env.caller())
	if err != nil {
		res := codeFailure(ctx, rel, err)
		return nil, &res
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		res := Fail(ErrFailed, "%s cannot be read: %s.", quotePath(rel), describeFSError(err))
		return nil, &res
	}
	c := &codeCall{env: env, client: client, abs: abs, rel: rel, text: string(data)}
	still, err := client.WaitIndexed(ctx, lsp.IndexWait)
	if err != nil {
		res := codeFailure(ctx, rel, err)
		return nil, &res
	}
	if still != "" {
		c.notes = append(c.notes, fmt.Sprintf("(The language server is still busy: %s. The answer may be incomplete; ask again in a moment if something seems missing.)", still))
	}
	return c, nil
}

// openAt opens the call's file and finds where in it the call points (a symbol's name or a
// line and column).
func openAt(ctx context.Context, env *Env, p codeParams) (*codeCall, lsp.Pos, *Result) {
	c, failed := openCode(ctx, env, p.Path)
	if failed != nil {
		return nil, lsp.Pos{}, failed
	}
	pos, err := p.where().Resolve(c.text)
	if err != nil {
		res := Fail(ErrInvalidArguments, "In %s: %v.", c.rel, err)
		return nil, pos, &res
	}
	return c, pos, nil
}

// noServer is the answer when no server can answer for a file: what to install, and what to
// use meanwhile. It is not a failure the model must retry.
func noServer(rel string, ns *lsp.NoServer) Result {
	var b strings.Builder
	ext := filepath.Ext(rel)
	switch {
	case ns == nil || ns.Spec.ID == "":
		fmt.Fprintf(&b, "No language server for %s files", ext)
		if ns != nil {
			fmt.Fprintf(&b, ": %s", ns.Reason)
		}
		b.WriteString(".")
	default:
		fmt.Fprintf(&b, "No language server for %s files: %s.", ns.Spec.Label, strings.TrimSuffix(ns.Reason, "."))
		if ns.Spec.Install != "" {
			fmt.Fprintf(&b, " The user can install %s in Settings → Code intelligence (%s).", ns.Spec.Name, strings.ReplaceAll(ns.Spec.Install, lsp.ToolsPlaceholder+"/", ""))
		}
	}
	b.WriteString(" Use search_workspace and read_file instead.")
	return Result{Content: b.String(), ErrorKind: ErrNotFound}
}

// codeFailure words what went wrong asking a server.
func codeFailure(ctx context.Context, rel string, err error) Result {
	var ns *lsp.NoServer
	switch {
	case errors.As(err, &ns):
		return noServer(rel, ns)
	case ctx.Err() != nil:
		return Fail(ErrCancelled, "Stopped before the language server answered.")
	case errors.Is(err, lsp.ErrTimeout):
		return Fail(ErrTimeout, "%v. Try again, or use search_workspace.", err)
	case errors.Is(err, lsp.ErrStopped):
		return Fail(ErrFailed, "%v\nIt is started again on the next call.", err)
	}
	return Fail(ErrFailed, "The language server could not answer for %s: %v", rel, err)
}

// result finishes a call's answer with its notes.
func (c *codeCall) result(content string, places []Place) Result {
	if len(c.notes) > 0 {
		content = strings.TrimRight(content, "\n") + "\n" + strings.Join(c.notes, "\n")
	}
	return Result{Content: content, Meta: Meta{Places: capPlaces(places)}}
}

// maxPlaces bounds the places an action row lists.
const maxPlaces = 40

func capPlaces(p []Place) []Place {
	if len(p) > maxPlaces {
		return p[:maxPlaces]
	}
	return p
}

// rel is a server's absolute file as a workspace path, or as it is when outside the workspace
// (a standard library file).
func (c *codeCall) relPath(file string) string {
	if r, ok := withinDir(c.env.Root, file); ok {
		return filepath.ToSlash(r)
	}
	if real, err := filepath.EvalSymlinks(c.env.Root); err == nil {
		if r, ok := withinDir(real, file); ok {
			return filepath.ToSlash(r)
		}
	}
	return file
}

// fileLines reads files once per answer, for the lines around a location.
type fileLines map[string][]string

func (f fileLines) line(file string, n int) string {
	lines, ok := f[file]
	if !ok {
		data, err := os.ReadFile(file)
		if err == nil {
			lines = strings.Split(string(data), "\n")
		}
		f[file] = lines
	}
	if n < 1 || n > len(lines) {
		return ""
	}
	return strings.TrimRight(lines[n-1], "\r")
}

// withContext writes a location's file and line with context lines around it, the target line
// marked: reference 001's readContextAroundLocation.
func (c *codeCall) withContext(b *strings.Builder, fl fileLines, loc lsp.Location, around int) Place {
	rel := c.relPath(loc.File)
	fmt.Fprintf(b, "── %s:%d ──\n", rel, loc.Start.Line)
	for n := max(loc.Start.Line-around, 1); n <= loc.Start.Line+around; n++ {
		text := fl.line(loc.File, n)
		if text == "" && n > loc.Start.Line {
			break
		}
		mark := "  "
		if n == loc.Start.Line {
			mark = "→ "
		}
		fmt.Fprintf(b, "%s%d: %s\n", mark, n, text)
	}
	return Place{Path: rel, Line: loc.Start.Line, Text: strings.TrimSpace(fl.line(loc.File, loc.Start.Line))}
}

// grouped writes locations one line each, grouped by file in the order first seen, up to max;
// the rest are counted.
func (c *codeCall) grouped(b *strings.Builder, locs []lsp.Location, max int) []Place {
	fl := fileLines{}
	var order []string
	byFile := map[string][]lsp.Location{}
	for _, l := range locs {
		if _, ok := byFile[l.File]; !ok {
			order = append(order, l.File)
		}
		byFile[l.File] = append(byFile[l.File], l)
	}
	var places []Place
	shown := 0
	for _, file := range order {
		if shown >= max {
			break
		}
		rel := c.relPath(file)
		fmt.Fprintf(b, "── %s ──\n", rel)
		list := byFile[file]
		slices.SortFunc(list, func(a, b lsp.Location) int { return a.Start.Line - b.Start.Line })
		for _, l := range list {
			if shown >= max {
				break
			}
			text := strings.TrimSpace(fl.line(file, l.Start.Line))
			fmt.Fprintf(b, "→ %d: %s\n", l.Start.Line, Clip(text, 160))
			places = append(places, Place{Path: rel, Line: l.Start.Line, Text: Clip(text, 120)})
			shown++
		}
	}
	if left := len(locs) - shown; left > 0 {
		files := map[string]bool{}
		for _, l := range locs {
			files[l.File] = true
		}
		fmt.Fprintf(b, "(%d more not shown, %d shown; %d files in all.)\n", left, shown, len(files))
	}
	return places
}

// codeTool is a code intelligence tool: offered only when the workspace has a language server
// for one of its languages.
type codeTool struct {
	Tool
	env *Env
}

func (t codeTool) About() About  { return t.Tool.(Described).About() }
func (t codeTool) Offered() bool { return t.env.Code != nil && len(t.env.Code.Available()) > 0 }

// codeWait bounds a post-edit check: an edit does not wait long for a verdict.
const codeWait = 10 * time.Second
