package tools

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"gantry/internal/lsp"
)

//go:embed get_diagnostics.md
var getDiagnosticsDescription string

const (
	diagnosticsTimeout = 30 * time.Second
	// maxDiagnostics is how many problems one answer lists; the first ones matter most, since
	// later ones are often consequences.
	maxDiagnostics = 100
	// checkerOutputBytes bounds what is kept of a checker's output, which is parsed, not shown.
	checkerOutputBytes = 1 << 20
	// maxJSONBytes bounds the JSON files parsed in memory.
	maxJSONBytes = 50 << 20
)

type getDiagnosticsParams struct {
	Path string `json:"path" jsonschema:"The file to check, relative to the workspace root"`
}

// Diagnostic is one problem a checker found in the file.
type Diagnostic struct {
	Line     int    `json:"line"`     // 0 when the checker gives none
	Col      int    `json:"col"`      // 0 when the checker gives none
	Severity string `json:"severity"` // "error" or "warning"
	Message  string `json:"message"`
}

// DiagnosticsDisplay is what the UI shows for a check.
type DiagnosticsDisplay struct {
	Kind    string       `json:"kind"` // "diagnostics"
	Path    string       `json:"path"`
	Checker string       `json:"checker"` // empty when no checker could run
	Items   []Diagnostic `json:"items"`
}

var getDiagnosticsAbout = About{
	Label: "Check files", Summary: "Check a file for errors with its language's checker (gofmt, tsc, …).",
	Hint: "Errors in a file: get_diagnostics (check each file you edit).",
	View: func(args map[string]any) CallView { return CallView{Running: "Checking " + PathArg(args)} },
}

// GetDiagnostics checks one file with the language's own tools, when they are installed.
func GetDiagnostics(env *Env) Tool {
	return Define("get_diagnostics", KindRead, getDiagnosticsDescription, getDiagnosticsAbout,
		func(ctx context.Context, p getDiagnosticsParams, _ Output) (Result, error) {
			if p.Path == "" {
				return Fail(ErrInvalidArguments, "path is empty: give the file to check."), nil
			}
			abs, err := ResolveWorkspacePath(env.Root, p.Path)
			if err != nil {
				return Fail(ErrOutsideWorkspace, "%v.", err), nil
			}
			fi, err := os.Stat(abs)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				return Fail(ErrNotFound, "%s does not exist.", quotePath(p.Path)), nil
			case err != nil:
				return Fail(ErrFailed, "%s cannot be read: %s.", quotePath(p.Path), describeFSError(err)), nil
			case fi.IsDir():
				return Fail(ErrInvalidArguments, "%s is a folder; get_diagnostics checks one file at a time.", quotePath(p.Path)), nil
			}
			rel := slashRelToRoot(env.Root, abs)

			if report, ok := serverDiagnostics(ctx, env, abs); ok {
				return Result{Content: report.text(rel), Display: report.display(rel)}, nil
			}
			if ctx.Err() != nil {
				return Fail(ErrCancelled, "The check was stopped."), nil
			}
			checkCtx, cancel := context.WithTimeout(ctx, diagnosticsTimeout)
			defer cancel()
			c := checker{root: env.Root, approver: env.Approver}
			report, err := c.checkFile(checkCtx, abs, fi.Size())
			var stopped checkerStopped
			switch {
			case ctx.Err() != nil:
				return Fail(ErrCancelled, "The check was stopped."), nil
			case errors.As(err, &stopped):
				return Fail(ErrTimeout, "%s did not finish within %s and was stopped. Try again, or run it with run_terminal_command and a longer timeout.", stopped.checker, diagnosticsTimeout), nil
			case err != nil:
				return Result{}, err
			}
			return Result{Content: report.text(rel), Display: report.display(rel)}, nil
		})
}

// serverDiagnostics asks the file's language server, when there is one that answers in time;
// errors and warnings only (the rest is advice).
func serverDiagnostics(ctx context.Context, env *Env, abs string) (checkReport, bool) {
	if env.Code == nil {
		return checkReport{}, false
	}
	client, err := env.Code.Client(ctx, abs, env.caller())
	if err != nil {
		return checkReport{}, false
	}
	problems, ok, err := client.Problems(ctx, abs, lsp.IndexWait)
	if err != nil || !ok {
		return checkReport{}, false
	}
	r := checkReport{checkers: []string{client.Name()}}
	for _, p := range problems {
		if p.Severity != "error" && p.Severity != "warning" {
			continue
		}
		r.items = append(r.items, Diagnostic{Line: p.Start.Line, Col: p.Start.Char, Severity: p.Severity, Message: p.Message})
	}
	return r, true
}

// checkReport is what the checkers found for one file.
type checkReport struct {
	checkers []string // the checkers that ran; none means the file could not be checked
	items    []Diagnostic
	notes    []string // what else the model should know
}

func noChecker(file, why string) checkReport {
	kind := "files like " + filepath.Base(file)
	if ext := filepath.Ext(file); ext != "" {
		kind = ext + " files"
	}
	note := fmt.Sprintf("No checker for %s is available here.", kind)
	if why != "" {
		note = fmt.Sprintf("No checker for %s is available here: %s.", kind, why)
	}
	return checkReport{notes: []string{note}}
}

// addRun records what one checker process said: the problems in the file, a note on those in
// other files, or, when it failed without a word that could be parsed, its output.
func (r *checkReport) addRun(checker string, items []Diagnostic, others []string, exitCode int, out string) {
	if exitCode != 0 && len(items) == 0 && len(others) == 0 {
		out = strings.TrimSpace(out)
		if out == "" {
			out = fmt.Sprintf("(exit code %d, no output)", exitCode)
		}
		r.notes = append(r.notes, fmt.Sprintf("%s could not check the file:\n%s", checker, firstLines(out, 10)))
		return
	}
	r.checkers = append(r.checkers, checker)
	r.items = append(r.items, items...)
	if len(others) > 0 {
		note := fmt.Sprintf("%s also reported %s in other files:", checker, plural(len(others), "problem"))
		for _, o := range others[:min(len(others), 5)] {
			note += "\n  " + o
		}
		r.notes = append(r.notes, note)
	}
}

func (r checkReport) text(rel string) string {
	var b strings.Builder
	by := strings.Join(r.checkers, " and ")
	switch {
	case len(r.checkers) == 0:
	case len(r.items) == 0:
		fmt.Fprintf(&b, "No problems found by %s.\n", by)
	default:
		fmt.Fprintf(&b, "%s found %s in %s:\n", by, plural(len(r.items), "problem"), rel)
		for _, d := range r.items[:min(len(r.items), maxDiagnostics)] {
			pos := rel
			if d.Line > 0 {
				pos += ":" + strconv.Itoa(d.Line)
				if d.Col > 0 {
					pos += ":" + strconv.Itoa(d.Col)
				}
			}
			fmt.Fprintf(&b, "%s %s %s\n", pos, d.Severity, d.Message)
		}
		if len(r.items) > maxDiagnostics {
			fmt.Fprintf(&b, "[%d more not shown; fix these first]\n", len(r.items)-maxDiagnostics)
		}
	}
	for _, n := range r.notes {
		b.WriteString(n + "\n")
	}
	return b.String()
}

func (r checkReport) display(rel string) DiagnosticsDisplay {
	items := r.items[:min(len(r.items), maxDiagnostics)]
	if items == nil {
		items = []Diagnostic{}
	}
	return DiagnosticsDisplay{Kind: "diagnostics", Path: rel, Checker: strings.Join(r.checkers, " and "), Items: items}
}

// checker runs the checkers for files of one workspace. Checkers that only parse the file
// (gofmt, node --check, Python's compiler, the JSON parser) run anywhere; those that build the
// project with its own settings or are the project's own program (go vet, the project's tsc)
// run only when the folder is trusted or the person allows them (SPEC §8, workspace trust).
type checker struct {
	root     string
	approver Approver
}

func (c checker) checkFile(ctx context.Context, file string, size int64) (checkReport, error) {
	switch strings.ToLower(filepath.Ext(file)) {
	case ".go":
		return c.checkGo(ctx, file)
	case ".ts", ".tsx", ".mts", ".cts":
		return c.checkTypeScript(ctx, file)
	case ".js", ".mjs", ".cjs":
		return c.checkJavaScript(ctx, file)
	case ".py":
		return c.checkPython(ctx, file)
	case ".json", ".jsonc":
		if size > maxJSONBytes {
			return noChecker(file, "the file is over 50 MB"), nil
		}
		return checkJSON(file)
	}
	return noChecker(file, ""), nil
}

// colonLine is the file:line:col: message form of gofmt and go vet; go vet marks type-check
// errors with "vet: ".
var colonLine = regexp.MustCompile(`^(vet: )?(.+?):(\d+)(?::(\d+))?: (.+)$`)

// mayRun asks whether a checker that runs the folder's code may run, and says why not.
func (c checker) mayRun(ctx context.Context, command, cwd, why string) (bool, string, error) {
	d, err := c.approver.ApproveFolderCode(ctx, FolderCodeApproval{Command: command, Cwd: cwd, Why: why})
	if err != nil {
		return false, "", err
	}
	if d.Allowed {
		return true, "", nil
	}
	msg := "the folder is not trusted and the user did not allow it"
	if d.Message != "" {
		msg = strings.TrimSuffix(d.Message, ".")
	}
	return false, msg, nil
}

// lookTool finds a checker on PATH, passing over folders inside the workspace (a PATH entry
// the folder's own tooling put there): a checker that is the folder's program is asked for
// apart, never picked up by name.
func (c checker) lookTool(name string) (string, error) {
	root := c.root
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if !filepath.IsAbs(dir) {
			continue // "" and "." are the current folder, which exec.LookPath refuses too
		}
		p := filepath.Join(dir, name)
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		if _, inside := withinDir(root, real); inside {
			continue
		}
		if fi, err := os.Stat(real); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is not installed", name)
}

func (c checker) checkGo(ctx context.Context, file string) (checkReport, error) {
	root := c.root
	gofmt, err := c.lookTool("gofmt")
	if err != nil {
		return noChecker(file, "gofmt is not installed"), nil
	}
	dir := filepath.Dir(file)
	var r checkReport
	// Without -e, gofmt leaves out the errors that follow from the first on the same line.
	out, code, err := runChecker(ctx, dir, nil, gofmt, "-l", file)
	if err != nil {
		return r, err
	}
	items, _ := parseColonLines(out, root, dir, file, "error")
	r.addRun("gofmt", items, nil, code, out)
	if len(r.items) > 0 {
		return r, nil // go vet would only repeat the syntax errors
	}
	if findUp(root, dir, "go.mod") == "" {
		r.notes = append(r.notes, "go vet was not run: there is no go.mod above this file in the workspace.")
		return r, nil
	}
	goBin, err := c.lookTool("go")
	if err != nil {
		r.notes = append(r.notes, "go vet was not run: go is not installed.")
		return r, nil
	}
	// go vet builds the package the way the folder's go.mod and cgo directives say, which runs
	// the C compiler and pkg-config on the folder's terms.
	ok, why, err := c.mayRun(ctx, "go vet .", dir, "builds this package with the folder's own build settings (go.mod, cgo directives)")
	if err != nil {
		return r, err
	}
	if !ok {
		r.notes = append(r.notes, "go vet was not run: "+why+". Only gofmt's syntax check ran.")
		return r, nil
	}
	// A check must not download toolchains or modules behind the person's back.
	out, code, err = runChecker(ctx, dir, []string{"GOTOOLCHAIN=local", "GOPROXY=off"}, goBin, "vet", ".")
	if err != nil {
		return r, err
	}
	items, others := parseColonLines(out, root, dir, file, "warning")
	r.addRun("go vet", items, others, code, out)
	return r, nil
}

// parseColonLines returns the problems reported for file, and the lines about other files with
// their paths made relative to root.
func parseColonLines(out, root, dir, file, severity string) (items []Diagnostic, others []string) {
	for _, line := range strings.Split(out, "\n") {
		m := colonLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if reported := reportedPath(dir, m[2]); reported != file {
			others = append(others, slashRelToRoot(root, reported)+strings.TrimPrefix(line, m[1]+m[2]))
			continue
		}
		d := Diagnostic{Line: atoi(m[3]), Col: atoi(m[4]), Severity: severity, Message: m[5]}
		if m[1] != "" {
			d.Severity = "error"
		}
		items = append(items, d)
	}
	return items, others
}

// reportedPath is the absolute form of a path a checker running in dir printed.
func reportedPath(dir, reported string) string {
	if !filepath.IsAbs(reported) {
		reported = filepath.Join(dir, reported)
	}
	return filepath.Clean(reported)
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "\n")
}

// findUp returns the closest folder from dir up to root that holds name, or "".
func findUp(root, dir, name string) string {
	root = filepath.Clean(root)
	for {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if _, inside := withinDir(root, parent); !inside || parent == dir {
			return ""
		}
		dir = parent
	}
}

var (
	tscLine    = regexp.MustCompile(`^(.+?)\((\d+),(\d+)\): (error|warning) (TS\d+: .*)$`)
	tscGeneral = regexp.MustCompile(`^(error|warning) TS\d+: `)
)

func (c checker) checkTypeScript(ctx context.Context, file string) (checkReport, error) {
	root := c.root
	project := findUp(root, filepath.Dir(file), "tsconfig.json")
	if project == "" {
		return noChecker(file, "TypeScript is checked with tsc, and there is no tsconfig.json above this file"), nil
	}
	tsc, label, note, err := c.typeScriptCompiler(ctx, project)
	if err != nil || tsc == "" {
		return noChecker(file, note), err
	}
	out, code, err := runChecker(ctx, project, []string{"NO_COLOR=1"}, tsc, "--noEmit", "--pretty", "false", "-p", ".")
	if err != nil {
		return checkReport{}, err
	}
	var items []Diagnostic
	var others []string
	mine := false // whether continuation lines belong to an item of this file
	for _, line := range strings.Split(out, "\n") {
		if m := tscLine.FindStringSubmatch(line); m != nil {
			reported := reportedPath(project, m[1])
			mine = reported == file
			if mine {
				items = append(items, Diagnostic{Line: atoi(m[2]), Col: atoi(m[3]), Severity: m[4], Message: m[5]})
			} else {
				others = append(others, slashRelToRoot(root, reported)+strings.TrimPrefix(line, m[1]))
			}
			continue
		}
		if tscGeneral.MatchString(line) {
			mine = false
			others = append(others, line)
			continue
		}
		// tsc indents the explanation of a problem on the lines after it.
		if text := strings.TrimSpace(line); text != "" && mine && strings.HasPrefix(line, " ") {
			last := &items[len(items)-1]
			last.Message += " " + text
		}
	}
	var r checkReport
	r.addRun(label, items, others, code, out)
	if note != "" {
		r.notes = append(r.notes, note)
	}
	return r, nil
}

// typeScriptCompiler picks the tsc to check a project with: the project's own (the version it
// is written for) when the folder is trusted or the person allows it, else one that does not
// come from the folder. tsc reads tsconfig.json and type declarations but runs none of the
// project's code and loads no plugins, so a tsc from elsewhere is safe on any folder. note
// says what the model should know about the choice; no tsc means note says why.
func (c checker) typeScriptCompiler(ctx context.Context, project string) (tsc, label, note string, err error) {
	tscRel := filepath.Join("node_modules", ".bin", "tsc")
	if installed := findUp(c.root, project, tscRel); installed != "" {
		own := filepath.Join(installed, tscRel)
		shown := filepath.ToSlash(filepath.Join(slashRelToRoot(project, installed), tscRel))
		// Run directly: what npx would pick, without npx's start-up cost or any chance of it
		// fetching a package.
		ok, why, err := c.mayRun(ctx, shown+" --noEmit --pretty false -p .", project,
			"runs the project's own TypeScript compiler ("+filepath.ToSlash(tscRel)+"), which comes with this folder")
		if err != nil {
			return "", "", "", err
		}
		if ok {
			return own, "tsc", "", nil
		}
		if other, err := c.lookTool("tsc"); err == nil {
			return other, "tsc", fmt.Sprintf("The project's own tsc was not run (%s); the TypeScript compiler at %s checked it instead, and its version may differ from the project's.", why, other), nil
		}
		return "", "", "the project's own tsc was not run (" + why + ") and no other TypeScript compiler is installed", nil
	}
	if other, err := c.lookTool("tsc"); err == nil {
		return other, "tsc", fmt.Sprintf("TypeScript is not installed in this project (node_modules/.bin/tsc is missing); the compiler at %s checked it.", other), nil
	}
	return "", "", "TypeScript is not installed in this project (node_modules/.bin/tsc is missing) nor anywhere else", nil
}

var (
	nodeLocation = regexp.MustCompile(`^(.+):(\d+)$`)
	nodeError    = regexp.MustCompile(`^[A-Z][A-Za-z]*Error: .+$`)
)

func (c checker) checkJavaScript(ctx context.Context, file string) (checkReport, error) {
	node, err := c.lookTool("node")
	if err != nil {
		return noChecker(file, "node is not installed"), nil
	}
	// node --check only parses. It runs outside the folder so that a version manager's shim
	// (nvm, volta) is not steered by the folder's files.
	out, code, err := runChecker(ctx, neutralDir, nil, node, "--check", file)
	if err != nil {
		return checkReport{}, err
	}
	var r checkReport
	var items []Diagnostic
	if code != 0 {
		if d, ok := parseNodeError(out, file); ok {
			items = append(items, d)
			if strings.HasPrefix(d.Message, "SyntaxError: Unexpected token '<'") {
				r.notes = append(r.notes, "node does not understand JSX; if this file uses JSX, this error is not a real problem.")
			}
		}
	}
	r.addRun("node --check", items, nil, code, out)
	return r, nil
}

// parseNodeError reads node's report of a syntax error: the file:line, the source line, a
// caret under the column, a blank line, then the error.
func parseNodeError(out, file string) (Diagnostic, bool) {
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		real = file
	}
	d := Diagnostic{Severity: "error"}
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		if m := nodeLocation.FindStringSubmatch(line); m != nil && (m[1] == file || m[1] == real) && d.Line == 0 {
			d.Line = atoi(m[2])
			if i+2 < len(lines) && strings.HasPrefix(strings.TrimLeft(lines[i+2], " \t"), "^") {
				caret := lines[i+2]
				d.Col = utf8.RuneCountInString(caret[:strings.IndexByte(caret, '^')]) + 1
			}
		}
		if d.Message == "" && nodeError.MatchString(line) {
			d.Message = line
		}
	}
	return d, d.Line > 0 && d.Message != ""
}

// pythonCheck compiles the file without running it or writing a .pyc into the project (which
// py_compile would), and prints one tab-separated line per problem. Python runs isolated (-I:
// no current folder on the import path, no PYTHON* variables, no user site) and outside the
// folder, so neither a module of the folder's nor a pyenv .python-version of its steers it.
const pythonCheck = `
import sys, warnings
path = sys.argv[1]
def report(severity, line, col, text):
    print(severity, line or 0, col or 0, " ".join(str(text).split()), sep="\t")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        with open(path, "rb") as f:
            compile(f.read(), path, "exec", dont_inherit=True)
    except SyntaxError as e:
        report("error", e.lineno, e.offset, type(e).__name__ + ": " + str(e.msg))
    except ValueError as e:
        report("error", 1, 0, "ValueError: " + str(e))
for w in caught:
    report("warning", w.lineno, 0, w.category.__name__ + ": " + str(w.message))
`

func (c checker) checkPython(ctx context.Context, file string) (checkReport, error) {
	python, err := c.lookTool("python3")
	if err != nil {
		return noChecker(file, "python3 is not installed"), nil
	}
	out, code, err := runChecker(ctx, neutralDir, nil, python, "-I", "-X", "utf8", "-c", pythonCheck, file)
	if err != nil {
		return checkReport{}, err
	}
	var items []Diagnostic
	for _, line := range strings.Split(out, "\n") {
		f := strings.SplitN(line, "\t", 4)
		if len(f) == 4 && (f[0] == "error" || f[0] == "warning") {
			items = append(items, Diagnostic{Line: atoi(f[1]), Col: atoi(f[2]), Severity: f[0], Message: f[3]})
		}
	}
	var r checkReport
	r.addRun("the Python compiler", items, nil, code, out)
	return r, nil
}

func checkJSON(file string) (checkReport, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return checkReport{}, fmt.Errorf("reading %s: %w", file, err)
	}
	r := checkReport{checkers: []string{"the JSON parser"}}
	if allowsComments(file) {
		data = blankComments(data)
		r.checkers = []string{"the JSON parser (comments and trailing commas allowed)"}
	}
	var v any
	var syntaxErr *json.SyntaxError
	if err := json.Unmarshal(data, &v); errors.As(err, &syntaxErr) {
		line, col := position(data, int(syntaxErr.Offset)-1)
		r.items = []Diagnostic{{Line: line, Col: col, Severity: "error", Message: syntaxErr.Error()}}
	}
	return r, nil
}

// allowsComments reports whether tools read file as JSON with comments (JSONC), where a
// comment or a trailing comma is no error.
func allowsComments(file string) bool {
	base := strings.ToLower(filepath.Base(file))
	return filepath.Ext(base) == ".jsonc" ||
		strings.HasPrefix(base, "tsconfig") || strings.HasPrefix(base, "jsconfig") ||
		base == "devcontainer.json" || base == ".devcontainer.json" ||
		filepath.Base(filepath.Dir(file)) == ".vscode"
}

// blankComments turns comments and trailing commas into spaces, keeping every other byte
// where it was, so positions still point into the file as written.
func blankComments(data []byte) []byte {
	out := bytes.Clone(data)
	for i := 0; i < len(out); i++ {
		switch {
		case out[i] == '"':
			i = stringEnd(out, i)
		case bytes.HasPrefix(out[i:], []byte("//")):
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case bytes.HasPrefix(out[i:], []byte("/*")):
			end := len(out)
			if j := bytes.Index(out[i+2:], []byte("*/")); j >= 0 {
				end = i + 2 + j + 2
			}
			for ; i < end; i++ {
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
			i--
		}
	}
	// Only with the comments gone can a comma be seen to end its list.
	for i := 0; i < len(out); i++ {
		switch out[i] {
		case '"':
			i = stringEnd(out, i)
		case ',':
			rest := bytes.TrimLeft(out[i+1:], " \t\r\n")
			if len(rest) > 0 && (rest[0] == '}' || rest[0] == ']') {
				out[i] = ' '
			}
		}
	}
	return out
}

// stringEnd returns the index of the quote that closes the JSON string opening at i.
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(b)
}

// position turns a byte offset into a 1-based line and character column.
func position(data []byte, offset int) (line, col int) {
	offset = min(max(offset, 0), len(data))
	start := bytes.LastIndexByte(data[:offset], '\n') + 1
	return bytes.Count(data[:offset], []byte("\n")) + 1, utf8.RuneCount(data[start:offset]) + 1
}

// neutralDir is where checkers that need no folder of their own run: not the workspace, and
// not a folder other users can write (a /tmp/.python-version would steer a pyenv shim).
const neutralDir = "/"

// runChecker runs a checker in dir and returns its combined output and exit code. When ctx
// ends, the checker is killed with everything it started.
func runChecker(ctx context.Context, dir string, env []string, name string, args ...string) (string, int, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out := &cappedBuffer{limit: checkerOutputBytes}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// A grandchild that keeps the output pipe open must not hold the call past the kill.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return "", 0, checkerStopped{checker: filepath.Base(name), err: ctx.Err()}
	case errors.As(err, &exit):
		return out.String(), exit.ExitCode(), nil
	case err != nil:
		return "", 0, fmt.Errorf("running %s: %w", filepath.Base(name), err)
	}
	return out.String(), 0, nil
}

// checkerStopped is a checker killed because ctx ended.
type checkerStopped struct {
	checker string
	err     error
}

func (e checkerStopped) Error() string { return e.checker + " was stopped: " + e.err.Error() }
func (e checkerStopped) Unwrap() error { return e.err }

// cappedBuffer keeps the first limit bytes written to it and drops the rest.
type cappedBuffer struct {
	bytes.Buffer
	limit int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
