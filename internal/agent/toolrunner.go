package agent

import (
	"context"
	"fmt"
	"path"
	"strings"
	"sync"
	"unicode/utf8"

	"gantry/internal/events"
	"gantry/internal/tools"
)

// toolRunner runs one answer's calls as a progress group and turns their results into what the
// model reads next.
type toolRunner struct {
	registry *tools.Registry // only the tools the run's mode may use
	root     string
	emit     *runEmitter
}

// batchOutcome is what a batch came to.
type batchOutcome struct {
	feedback []toolFeedback
	wrote    bool // some call changed a file
}

// editRetryReminder follows a failed edit: small models retry from their stale copy of the
// file, and the same mismatch follows.
const editRetryReminder = "\n\nRe-read the file with read_file before editing it again: the text you replace must match the file exactly."

func (tr *toolRunner) run(ctx context.Context, iteration int, calls []tools.Call) batchOutcome {
	groupID := fmt.Sprintf("g%d", iteration)
	tr.emit.state(ctx, events.ProgressGroupStarted, ProgressGroupPayload{
		GroupID: groupID, Iteration: iteration, Title: tr.groupTitle(calls),
	})
	obs := &batchEvents{ctx: ctx, emit: tr.emit, groupID: groupID, calls: calls}
	results := tr.registry.RunBatch(ctx, tr.root, calls, obs)
	tr.emit.state(ctx, events.ProgressGroupFinished, ProgressGroupPayload{
		GroupID: groupID, Iteration: iteration, Title: groupDoneTitle(tr.groupTitle(calls)),
	})

	out := batchOutcome{feedback: make([]toolFeedback, len(results))}
	for i, res := range results {
		kind := tr.kind(res.Call.Name)
		content := res.Result.Content
		switch {
		case !res.Result.Failed() && (kind == tools.KindEdit || kind == tools.KindDelete || kind == tools.KindMove):
			out.wrote = true
		case kind == tools.KindEdit && res.Result.ErrorKind == tools.ErrFailed:
			content += editRetryReminder
		}
		out.feedback[i] = toolFeedback{tool: res.Call.Name, content: content, at: res.Finished}
	}
	return out
}

func (tr *toolRunner) kind(name string) tools.Kind {
	if t, ok := tr.registry.Get(name); ok {
		return t.Kind()
	}
	return ""
}

// groupTitle names a batch by what its calls do ("Reading files", "Editing 3 files"), and a
// mixed batch by its size.
func (tr *toolRunner) groupTitle(calls []tools.Call) string {
	kinds := map[tools.Kind]bool{}
	files := map[string]bool{}
	for _, c := range calls {
		k := tr.kind(c.Name)
		if k == tools.KindDelete || k == tools.KindMove {
			k = tools.KindEdit
		}
		kinds[k] = true
		files[callPath(c.Args)] = true
	}
	if len(kinds) != 1 {
		return fmt.Sprintf("Working on %d steps", len(calls))
	}
	switch {
	case kinds[tools.KindRead]:
		return "Reading files"
	case kinds[tools.KindSearch]:
		return "Searching codebase"
	case kinds[tools.KindEdit] && len(files) == 1:
		return "Editing " + path.Base(callPath(calls[0].Args))
	case kinds[tools.KindEdit]:
		return fmt.Sprintf("Editing %d files", len(files))
	case kinds[tools.KindExecute] && len(calls) == 1:
		return "Running command"
	case kinds[tools.KindExecute]:
		return fmt.Sprintf("Running %d commands", len(calls))
	}
	return fmt.Sprintf("Working on %d steps", len(calls))
}

// callPath is the file a call names, as the model wrote it; "" when it names none.
func callPath(args map[string]any) string {
	for _, k := range streamPathKeys {
		if p, ok := args[k].(string); ok && strings.TrimSpace(p) != "" {
			return strings.ReplaceAll(strings.TrimSpace(p), `\`, "/")
		}
	}
	return ""
}

// callTitle is a call's line in its progress group while it runs.
func callTitle(c tools.Call) string {
	p := callPath(c.Args)
	arg := func(key string) string { s, _ := c.Args[key].(string); return clip(s, 80) }
	switch c.Name {
	case "read_file":
		return "Reading " + p
	case "edit_file":
		return "Editing " + p
	case "write_file":
		return "Writing " + p
	case "run_terminal_command":
		return "Running " + arg("command")
	case "search_workspace":
		return "Searching for " + arg("query")
	case "list_files":
		if p == "" {
			p = "."
		}
		return "Listing " + p
	case "glob":
		return "Finding files"
	case "get_diagnostics":
		return "Checking " + p
	}
	return c.Name
}

// pastTense is what a finished call's line says instead of its running verb, so a row with a
// tick does not read as if it were still going ("Reading a.go" → "Read a.go").
var pastTense = map[string]string{
	"Reading": "Read", "Editing": "Edited", "Writing": "Wrote", "Running": "Ran",
	"Searching": "Searched", "Listing": "Listed", "Finding": "Found", "Checking": "Checked",
}

// groupDoneTitle is a finished batch's title: "Read files", "Edited 3 files", "Completed 4 steps".
func groupDoneTitle(title string) string {
	if rest, ok := strings.CutPrefix(title, "Working on "); ok {
		return "Completed " + rest
	}
	return doneTitle(title)
}

func doneTitle(title string) string {
	verb, rest, _ := strings.Cut(title, " ")
	if past, ok := pastTense[verb]; ok {
		return strings.TrimSpace(past + " " + rest)
	}
	return title
}

func clip(s string, n int) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\n", " "))
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// batchEvents turns a batch's progress into toolAction events. RunBatch calls it from several
// goroutines; each call's events come from its own goroutine, in order.
type batchEvents struct {
	ctx     context.Context
	emit    *runEmitter
	groupID string
	calls   []tools.Call
}

func (b *batchEvents) actionID(i int) string { return fmt.Sprintf("%s.%d", b.groupID, i) }

func (b *batchEvents) Started(i int, c tools.Call) {
	b.emit.state(b.ctx, events.ToolAction, ToolActionPayload{
		GroupID: b.groupID, ActionID: b.actionID(i), Tool: c.Name, Status: ActionRunning,
		Title: callTitle(c), Path: callPath(c.Args), Command: commandArg(c),
	})
}

func (b *batchEvents) Output(i int) tools.Output {
	return &actionOutput{batch: b, callID: b.actionID(i), tool: b.calls[i].Name}
}

func (b *batchEvents) Finished(i int, r tools.CallResult) {
	p := ToolActionPayload{
		GroupID: b.groupID, ActionID: b.actionID(i), Tool: r.Call.Name, Status: ActionSuccess,
		Title: doneTitle(callTitle(r.Call)), Path: callPath(r.Call.Args), Command: commandArg(r.Call),
		DurationMs: r.Finished.Sub(r.Started).Milliseconds(),
	}
	switch d := r.Result.Display.(type) {
	case tools.DiffDisplay:
		p.Path, p.Added, p.Removed = d.Path, d.Added, d.Removed
		p.StartLine, p.EndLine = d.FirstLine, d.LastLine
		p.Detail = fmt.Sprintf("+%d −%d", d.Added, d.Removed)
	case tools.CommandDisplay:
		p.Detail = fmt.Sprintf("exit %d", d.ExitCode)
		p.Sandboxed = d.Sandboxed
	case tools.ReadFileDisplay:
		p.Path, p.EndLine = d.Path, d.Lines
		if d.Lines > 0 {
			p.StartLine = 1
		}
	}
	if r.Result.Failed() {
		p.Status, p.ErrorKind = ActionError, string(r.Result.ErrorKind)
		p.Title = callTitle(r.Call)
		p.Detail = clip(firstLine(r.Result.Content), 200)
	}
	b.emit.state(b.ctx, events.ToolAction, p)
}

func commandArg(c tools.Call) string {
	if c.Name != "run_terminal_command" {
		return ""
	}
	s, _ := c.Args["command"].(string)
	return s
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// actionOutput shows a running call's own steps and its command output.
type actionOutput struct {
	batch  *batchEvents
	callID string
	tool   string

	mu    sync.Mutex
	steps int
	open  string // the step shown as running, which the next Done action finishes
}

func (o *actionOutput) Action(a tools.Action) {
	o.mu.Lock()
	id := o.open
	if !a.Done || id == "" {
		o.steps++
		id = fmt.Sprintf("%s.%d", o.callID, o.steps)
	}
	o.open = id
	if a.Done {
		o.open = ""
	}
	o.mu.Unlock()
	status := ActionRunning
	if a.Done {
		status = ActionSuccess
	}
	o.batch.emit.state(o.batch.ctx, events.ToolAction, ToolActionPayload{
		GroupID: o.batch.groupID, ActionID: id, Tool: o.tool, Status: status,
		Title: a.Title, Path: a.Path, StartLine: a.StartLine, EndLine: a.EndLine,
	})
}

func (o *actionOutput) Stream(chunk []byte) {
	o.batch.emit.delta(o.batch.ctx, events.CommandOutput, CommandOutputPayload{ActionID: o.callID, Chunk: string(chunk)})
}
