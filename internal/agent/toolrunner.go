package agent

import (
	"context"
	"fmt"
	"strings"
	"sync"

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
}

// batchOrigin is how a batch's calls reached the run: read from the text (in which forms), and
// rescued from a native-path answer.
type batchOrigin struct {
	Dialects []string
	Rescued  bool
}

func (tr *toolRunner) run(ctx context.Context, iteration int, calls []tools.Call, origin batchOrigin) batchOutcome {
	groupID := fmt.Sprintf("g%d", iteration)
	running, done := tr.groupTitle(calls)
	tr.emit.state(ctx, events.ProgressGroupStarted, ProgressGroupPayload{
		GroupID: groupID, Iteration: iteration, Title: running, Dialects: origin.Dialects, Rescued: origin.Rescued,
	})
	obs := &batchEvents{ctx: ctx, emit: tr.emit, groupID: groupID, calls: calls, view: tr.view}
	results := tr.registry.RunBatch(ctx, tr.root, calls, obs)
	tr.emit.state(ctx, events.ProgressGroupFinished, ProgressGroupPayload{
		GroupID: groupID, Iteration: iteration, Title: done,
	})

	out := batchOutcome{feedback: make([]toolFeedback, len(results))}
	for i, res := range results {
		out.feedback[i] = toolFeedback{tool: res.Call.Name, content: res.Result.Content, meta: res.Result.Meta, at: res.Finished}
	}
	return out
}

// view is how a call shows; a call to a tool the run does not have shows by its name.
func (tr *toolRunner) view(c tools.Call) tools.CallView {
	if t, ok := tr.registry.Get(c.Name); ok {
		return tools.ViewOf(t, c.Args)
	}
	return tools.DefaultView(c.Name, c.Args)
}

// groupTitle names a batch, running and done, by the category its calls share ("Reading
// files", "Editing 3 files"), and a mixed batch by its size.
func (tr *toolRunner) groupTitle(calls []tools.Call) (running, done string) {
	var category tools.Category
	files := make([]string, len(calls))
	for i, c := range calls {
		cat := tools.CategoryOther
		if t, ok := tr.registry.Get(c.Name); ok {
			cat = tools.AboutOf(t).Category
		}
		if i > 0 && cat.ID != category.ID {
			return tools.StepsTitle(len(calls), nil)
		}
		category, files[i] = cat, tools.PathArg(c.Args)
	}
	return category.Title(len(calls), files)
}

// batchEvents turns a batch's progress into toolAction events. RunBatch calls it from several
// goroutines; each call's events come from its own goroutine, in order.
type batchEvents struct {
	ctx     context.Context
	emit    *runEmitter
	groupID string
	calls   []tools.Call
	view    func(tools.Call) tools.CallView
}

func (b *batchEvents) actionID(i int) string { return fmt.Sprintf("%s.%d", b.groupID, i) }

func (b *batchEvents) Started(i int, c tools.Call) {
	v := b.view(c)
	b.emit.state(b.ctx, events.ToolAction, ToolActionPayload{
		GroupID: b.groupID, ActionID: b.actionID(i), Tool: c.Name, Status: ActionRunning,
		Title: v.Running, Path: v.Path, Command: v.Command, Server: v.Server,
	})
}

func (b *batchEvents) Output(i int) tools.Output {
	return &actionOutput{batch: b, callID: b.actionID(i), tool: b.calls[i].Name}
}

func (b *batchEvents) Finished(i int, r tools.CallResult) {
	v := b.view(r.Call)
	p := ToolActionPayload{
		GroupID: b.groupID, ActionID: b.actionID(i), Tool: r.Call.Name, Status: ActionSuccess,
		Title: v.Done, Path: v.Path, Command: v.Command, Server: v.Server,
		DurationMs: r.Finished.Sub(r.Started).Milliseconds(),
	}
	// The row says what the result's meta says: the file and lines it read or changed, the
	// command's exit code.
	m := r.Result.Meta
	if len(m.Read) == 1 {
		p.Path, p.StartLine, p.EndLine = m.Read[0].Path, m.Read[0].From, m.Read[0].To
	}
	if len(m.Changed) == 1 {
		c := m.Changed[0]
		p.Path, p.Added, p.Removed, p.StartLine, p.EndLine = c.Path, c.Added, c.Removed, c.FirstLine, c.LastLine
		p.Detail = fmt.Sprintf("+%d −%d", c.Added, c.Removed)
	}
	if m.Command != nil {
		p.Detail = fmt.Sprintf("exit %d", m.Command.ExitCode)
	}
	if d, ok := r.Result.Display.(tools.CommandDisplay); ok {
		p.Sandboxed = d.Sandboxed
	}
	p.Places, p.Problems = m.Places, m.Problems
	if r.Result.Failed() {
		p.Status, p.ErrorKind = ActionError, string(r.Result.ErrorKind)
		p.Title = v.Running
		p.Detail = tools.Clip(firstLine(r.Result.Content), 200)
	}
	b.emit.state(b.ctx, events.ToolAction, p)
	if m.Tasks != nil {
		b.emit.state(b.ctx, events.TaskList, TaskListPayload{Tasks: m.Tasks})
	}
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
