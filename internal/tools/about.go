package tools

import (
	"fmt"
	"path"
	"strings"
	"unicode/utf8"
)

// About is what a person and the agent need to present a tool, beside its description for the
// model: everything the UI, the prompt and the run's progress groups say about it comes from
// here, so nothing outside this package names a built-in tool. Every field has a default
// (AboutOf), so a tool registered at run time (an MCP server's) needs none of it.
type About struct {
	// Label and Summary are its row in Settings → Tools: a few words, and one line for a person
	// (the model's description is written for the model).
	Label   string
	Summary string
	// Category is the progress group its calls join ("Reading files"); by kind when unset.
	Category Category
	// Core tools are still described when the window is small (agent/budget.go): enough to find,
	// read, change and check code.
	Core bool
	// Optional tools are offered only when the window has room to describe every tool
	// (agent/budget.go): they help a model plan and delegate, and a small window needs its
	// tokens for the tools that do the work.
	Optional bool
	// Example is a call's arguments, shown in the text path's call format (the first tool that
	// has one is the example).
	Example map[string]any
	// Hint is advice for the system prompt's CODE NAVIGATION STRATEGY section, one line per
	// point, when the tool is offered.
	Hint string
	// Practice is advice for the system prompt's LARGER TASKS section (how to keep a task list,
	// when to delegate), when the tool is offered.
	Practice string
	// View says how one call shows; nil is DefaultView.
	View func(args map[string]any) CallView
}

// CallView is how one call shows to a person.
type CallView struct {
	Running string // its line in the progress group while it runs: "Reading main.go"
	Done    string // the line once it succeeded: "Read main.go"
	Spinner string // while the model is still writing the call: "Reading main.go…"
	Path    string // the file it names, as the model wrote it; "" when none
	Command string // the shell command it runs, shown as a terminal block; "" when none
	// Server is the MCP server the tool comes from, which the row names; "" for Gantry's own.
	Server string
}

// Described is a tool that says how it is presented; Define's tools are.
type Described interface {
	About() About
}

// AboutOf is t's About with every unset field given its default.
func AboutOf(t Tool) About {
	var a About
	if d, ok := t.(Described); ok {
		a = d.About()
	}
	if a.Label == "" {
		a.Label = humanName(t.Name())
	}
	if a.Summary == "" {
		a.Summary = FirstSentence(t.Description())
	}
	if a.Category.Title == nil {
		a.Category = CategoryOf(t.Kind())
	}
	if a.View == nil {
		name := t.Name()
		a.View = func(args map[string]any) CallView { return DefaultView(name, args) }
	}
	return a
}

// ViewOf is how a call of t with args shows, Spinner and Done filled in from Running when the
// tool left them out.
func ViewOf(t Tool, args map[string]any) CallView {
	v := AboutOf(t).View(args)
	if v.Running == "" {
		v.Running = DefaultView(t.Name(), args).Running
	}
	if v.Done == "" {
		v.Done = PastTense(v.Running)
	}
	if v.Spinner == "" {
		v.Spinner = v.Running + "…"
	}
	if v.Path == "" {
		v.Path = PathArg(args)
	}
	return v
}

// DefaultView shows a call by its tool's name and the file it names, if any.
func DefaultView(name string, args map[string]any) CallView {
	v := CallView{Running: "Using " + humanName(name), Path: PathArg(args)}
	if v.Path != "" {
		v.Running += " on " + v.Path
	}
	v.Done = PastTense(v.Running)
	v.Spinner = "Working…"
	return v
}

// humanName turns a tool name into words: "get_weather" is "get weather".
func humanName(name string) string {
	return strings.TrimSpace(strings.NewReplacer("_", " ", "-", " ").Replace(name))
}

// pastTenses are the running verbs a finished line turns into, so a row with a tick does not read
// as if it were still going ("Reading a.go" → "Read a.go").
var pastTenses = map[string]string{
	"Reading": "Read", "Editing": "Edited", "Writing": "Wrote", "Running": "Ran", "Searching": "Searched",
	"Listing": "Listed", "Finding": "Found", "Checking": "Checked", "Undoing": "Undid", "Using": "Used",
	"Analyzing": "Analyzed", "Inspecting": "Inspected", "Calling": "Called", "Working": "Worked",
}

// PastTense turns a running line's first word into its past tense, when it knows the verb.
func PastTense(line string) string {
	verb, rest, _ := strings.Cut(line, " ")
	if past, ok := pastTenses[verb]; ok {
		return strings.TrimSpace(past + " " + rest)
	}
	return line
}

// pathKeys are where models put a file's path; argument aliasing accepts the same spellings.
var pathKeys = []string{"path", "file", "filePath", "file_path", "filepath", "filename", "fileName"}

// PathArg is the file a call's arguments name, as the model wrote it; "" when they name none.
func PathArg(args map[string]any) string {
	for _, k := range pathKeys {
		if p, ok := args[k].(string); ok && strings.TrimSpace(p) != "" {
			return strings.ReplaceAll(strings.TrimSpace(p), `\`, "/")
		}
	}
	return ""
}

// fileLabel is a file's name for a spinner ("main.go"), or "file" when the call names none yet.
func fileLabel(p string) string {
	if p == "" {
		return "file"
	}
	return path.Base(p)
}

// StringArg is a string argument cut to n runes on one line, for a call's line.
func StringArg(args map[string]any, key string, n int) string {
	s, _ := args[key].(string)
	return Clip(s, n)
}

// Clip puts s on one line and cuts it to n runes with an ellipsis.
func Clip(s string, n int) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\n", " "))
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// Category is a kind of work a progress group is named after: a batch whose calls all share one
// takes its title; a mixed batch is "Working on N steps".
type Category struct {
	ID string
	// Title names a batch of calls of this category, running and done, from the files they name
	// (as the model wrote them; "" for a call that names none).
	Title func(calls int, files []string) (running, done string)
}

var (
	CategoryRead      = fixedCategory("read", "Reading files", "Read files")
	CategorySearch    = fixedCategory("search", "Searching codebase", "Searched codebase")
	CategoryAnalyze   = fixedCategory("analyze", "Analyzing code", "Analyzed code")
	CategoryStructure = fixedCategory("structure", "Inspecting file structure", "Inspected file structure")
	CategoryEdit      = Category{ID: "edit", Title: editTitle}
	CategoryExecute   = Category{ID: "execute", Title: executeTitle}
	CategoryTasks     = fixedCategory("tasks", "Updating the task list", "Updated the task list")
	CategoryDelegate  = fixedCategory("delegate", "Delegating", "Delegated")
	CategoryOther     = Category{ID: "other", Title: StepsTitle}
)

func fixedCategory(id, running, done string) Category {
	return Category{ID: id, Title: func(int, []string) (string, string) { return running, done }}
}

func editTitle(_ int, files []string) (string, string) {
	distinct := map[string]bool{}
	for _, f := range files {
		distinct[f] = true
	}
	if len(distinct) == 1 && files[0] != "" {
		name := path.Base(files[0])
		return "Editing " + name, "Edited " + name
	}
	return fmt.Sprintf("Editing %d files", len(distinct)), fmt.Sprintf("Edited %d files", len(distinct))
}

func executeTitle(calls int, _ []string) (string, string) {
	if calls == 1 {
		return "Running command", "Ran command"
	}
	return fmt.Sprintf("Running %d commands", calls), fmt.Sprintf("Ran %d commands", calls)
}

// StepsTitle names a batch by its size: "Working on 3 steps", "Completed 3 steps".
func StepsTitle(calls int, _ []string) (string, string) {
	steps := fmt.Sprintf("%d steps", calls)
	if calls == 1 {
		steps = "1 step"
	}
	return "Working on " + steps, "Completed " + steps
}

// CategoryOf is the category a tool of kind joins when it names none.
func CategoryOf(k Kind) Category {
	switch k {
	case KindRead:
		return CategoryRead
	case KindSearch:
		return CategorySearch
	case KindEdit, KindDelete, KindMove:
		return CategoryEdit
	case KindExecute:
		return CategoryExecute
	}
	return CategoryOther
}

// Offerer is a tool that is offered only when it can work (the code intelligence tools, when a
// language server exists for the workspace's languages; the task list, in a session that keeps
// one): small prompts stay small.
type Offerer interface {
	Offered() bool
}

// Access is what a run's mode lets its tools do.
type Access struct {
	// Write: change files and run any command (agent mode). Without it only tools whose kind
	// leaves the workspace as it was are offered.
	Write bool
	// ReadOnlyGit: run read-only git commands (review mode).
	ReadOnlyGit bool
}

// Narrower is a tool that a mode without write access may still use in a narrower form
// (run_terminal_command runs read-only git in review mode).
type Narrower interface {
	Narrow(a Access) (Tool, bool)
}

// ForAccess is t as a run with access a may use it, or false when it may not (or when it is not
// offered at all, see Offerer).
func ForAccess(t Tool, a Access) (Tool, bool) {
	if o, ok := t.(Offerer); ok && !o.Offered() {
		return nil, false
	}
	if a.Write {
		return t, true
	}
	if n, ok := t.(Narrower); ok {
		return n.Narrow(a)
	}
	return t, t.Kind().ReadOnly()
}
