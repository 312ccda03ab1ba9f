package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"gantry/internal/tools"
)

// maxDescription bounds a tool's description as the model reads it: it is the server's text,
// and a server must not be able to fill a small model's window with it.
const maxDescription = 1200

// tool is one server tool as a run offers it: named mcp__<server>__<tool>, described by its
// summary and an open parameter object until its first call loads the real parameters
// (tools.LazyTool), asking the person before it runs unless the rules say otherwise.
type tool struct {
	srv      *server
	remote   *sdk.Tool
	name     string
	approver tools.Approver
}

var _ tools.LazyTool = (*tool)(nil)

func (t *tool) Name() string { return t.name }

func (t *tool) Description() string {
	d := strings.TrimSpace(t.remote.Description)
	if d == "" {
		d = fmt.Sprintf("%s, a tool of the MCP server %s.", t.title(), t.srv.cfg.Name)
	}
	return tools.Clip(d, maxDescription)
}

// readOnly reports whether the server says the tool changes nothing. The hint is the server's
// word; it only decides that a person trusted the server with need not be asked in the default
// mode, and that read-only modes may offer it.
func (t *tool) readOnly() bool {
	return t.remote.Annotations != nil && t.remote.Annotations.ReadOnlyHint
}

// Kind: a read-only tool reads like a fetch (batched with other reads); any other may change
// anything, so it runs alone, in order, like a command.
func (t *tool) Kind() tools.Kind {
	if t.readOnly() {
		return tools.KindFetch
	}
	return tools.KindExecute
}

func (t *tool) Params() *tools.Schema {
	if s, ok := t.loaded(); ok {
		return s
	}
	return tools.OpenParams()
}

func (t *tool) ParamsLoaded() bool {
	_, ok := t.loaded()
	return ok
}

func (t *tool) loaded() (*tools.Schema, bool) {
	t.srv.mu.Lock()
	defer t.srv.mu.Unlock()
	l, ok := t.srv.loaded[t.remote.Name]
	return l.params, ok
}

// LoadParams registers the tool's real parameters: from the server's listing, which the run's
// start read, so a server that went down meanwhile does not stop the model from learning them.
func (t *tool) LoadParams(context.Context) (*tools.Schema, error) {
	from := schemaText(t.remote.InputSchema)
	params := schemaOf(t.remote.InputSchema)
	t.srv.mu.Lock()
	t.srv.loaded[t.remote.Name] = loadedSchema{params: params, from: from}
	t.srv.mu.Unlock()
	t.srv.m.changed(Event{Server: t.srv.cfg.Name, Registered: t.remote.Name})
	return params, nil
}

// offered reports whether the person left the tool on.
func (t *tool) offered() bool { return t.srv.cfg.ToolEnabled(t.remote.Name) }

func (t *tool) title() string {
	switch {
	case t.remote.Title != "":
		return t.remote.Title
	case t.remote.Annotations != nil && t.remote.Annotations.Title != "":
		return t.remote.Annotations.Title
	}
	return t.remote.Name
}

func (t *tool) About() tools.About {
	server, name := t.srv.cfg.Name, t.remote.Name
	return tools.About{
		Label:   t.title(),
		Summary: tools.FirstSentence(t.Description()),
		Category: tools.Category{ID: "mcp:" + server, Title: func(int, []string) (string, string) {
			return "Using MCP server " + server, "Used MCP server " + server
		}},
		View: func(map[string]any) tools.CallView {
			return tools.CallView{Running: "Calling " + name, Spinner: "Calling " + name + " on " + server + "…", Server: server}
		},
	}
}

func (t *tool) status() ToolStatus {
	return ToolStatus{
		Name: t.remote.Name, ModelName: t.name, Title: t.title(), Summary: tools.FirstSentence(t.Description()),
		ReadOnly: t.readOnly(), Enabled: t.offered(), Loaded: t.ParamsLoaded(),
	}
}

// Execute asks for approval, then calls the tool: the server is started again if it stopped,
// a call that failed for a reason that may pass is tried again with backoff when the tool says
// that repeating it is harmless, a call without an answer or progress for the server's timeout
// is cancelled, and Stop cancels it at once. A call that failed for good is logged.
func (t *tool) Execute(ctx context.Context, args map[string]any, out tools.Output) (tools.Result, error) {
	d, err := t.approver.ApproveMCP(ctx, tools.MCPApproval{
		Server: t.srv.cfg.Name, Source: string(t.srv.cfg.Source), Tool: t.remote.Name, Title: t.title(),
		Summary: tools.FirstSentence(t.Description()), Arguments: args, ReadOnly: t.readOnly(),
	})
	if err != nil {
		if ctx.Err() != nil {
			return tools.Fail(tools.ErrCancelled, "%s was not run: the run was stopped.", t.name), nil
		}
		return tools.Result{}, fmt.Errorf("approving %s: %w", t.name, err)
	}
	if !d.Allowed {
		msg := "The user denied using " + t.name + "."
		switch {
		case d.NotAsked:
			msg = d.Message
		case d.Message != "":
			msg += " " + d.Message
		}
		return tools.Fail(tools.ErrDenied, "%s", msg), nil
	}

	res, attempts, err := t.call(ctx, args, out)
	if err != nil {
		return t.failed(ctx, args, attempts, err), nil
	}
	text, body, isError := resultText(t.name, t.srv.cfg.Name, res)
	out.Stream([]byte(displayText(body)))
	if isError {
		t.log(args, attempts, FailureTool, firstLineOf(body))
		return tools.Result{Content: text, ErrorKind: tools.ErrFailed}, nil
	}
	return tools.Result{Content: text}, nil
}

// call runs the tool on the server, starting it when needed, with the retries and the timeout.
func (t *tool) call(ctx context.Context, args map[string]any, out tools.Output) (*sdk.CallToolResult, int, error) {
	harmless := t.readOnly() || t.remote.Annotations != nil && t.remote.Annotations.IdempotentHint
	for attempt := 1; ; attempt++ {
		res, err := t.callOnce(ctx, args, out)
		if err == nil || !transient(err) || !harmless || attempt == retryAttempts || !sleep(ctx, backoff(attempt)) {
			return res, attempt, err
		}
	}
}

// errTimedOut is a call that went longer than the server's timeout without an answer or news.
var errTimedOut = errors.New("timed out")

func (t *tool) callOnce(ctx context.Context, args map[string]any, out tools.Output) (*sdk.CallToolResult, error) {
	c, err := t.srv.session(ctx)
	if err != nil {
		return nil, err
	}
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// The timeout counts from the last sign of life: progress resets it, as the MCP spec allows.
	timeout := t.srv.cfg.CallTimeout()
	timer := time.AfterFunc(timeout, func() { cancel(errTimedOut) })
	defer timer.Stop()
	token, done := t.srv.watchProgress(func(progress, total float64, message string) {
		timer.Reset(timeout)
		out.Stream([]byte(progressLine(progress, total, message)))
	})
	defer done()
	params := &sdk.CallToolParams{Name: t.remote.Name, Arguments: args}
	params.SetProgressToken(token)
	res, err := c.session.CallTool(callCtx, params)
	if err != nil && errors.Is(context.Cause(callCtx), errTimedOut) && ctx.Err() == nil {
		return nil, fmt.Errorf("%w: no answer within %s", errTimedOut, timeout)
	}
	if err != nil && transient(err) && c.cmd != nil {
		// The pipe broke: the process is on its way out; let it finish, to say why.
		select {
		case <-c.exited:
		case <-time.After(stopWait):
		}
	}
	if err != nil && !c.alive() {
		t.srv.lost(c)
		return nil, fmt.Errorf("the server stopped during the call: %w", err)
	}
	return res, err
}

// failed is the result of a call that could not be made or did not come back.
func (t *tool) failed(ctx context.Context, args map[string]any, attempts int, err error) tools.Result {
	server := t.srv.cfg.Name
	switch {
	case ctx.Err() != nil:
		return tools.Fail(tools.ErrCancelled, "%s was stopped before it finished: the run was stopped.", t.name)
	case errors.Is(err, errTimedOut):
		t.log(args, attempts, FailureTimeout, err.Error())
		return tools.Fail(tools.ErrTimeout, "%s did not answer in time (%v) and was cancelled. Try again with a smaller request, or do without it.", t.name, err)
	}
	state, detail, _, _ := t.srv.snapshot()
	kind, msg := FailureServer, downMessage(server, state, detail)
	if state == StateReady {
		kind, msg = FailureProtocol, fmt.Sprintf("The MCP server %s could not run %s: %v.", server, t.remote.Name, err)
	} else if !strings.Contains(msg, firstLineOf(sentence(err))) {
		msg = downMessage(server, StateFailed, sentence(err))
	}
	if attempts > 1 {
		msg += fmt.Sprintf(" (Tried %d times.)", attempts)
	}
	t.log(args, attempts, kind, err.Error())
	return tools.Fail(tools.ErrFailed, "%s", msg)
}

func (t *tool) log(args map[string]any, attempts int, kind FailureKind, why string) {
	if t.srv.m.opts.Failures == nil {
		return
	}
	raw, _ := json.Marshal(args)
	_ = t.srv.m.opts.Failures.Add(Failure{
		Time: time.Now().UTC(), Workspace: t.srv.m.opts.Root, Server: t.srv.cfg.Name, Tool: t.remote.Name,
		Arguments: tools.Clip(string(raw), maxLoggedArgs), Error: why, Kind: kind, Attempts: attempts,
	})
}

func progressLine(progress, total float64, message string) string {
	var b strings.Builder
	if total > 0 {
		fmt.Fprintf(&b, "… %d%%", int(100*progress/total))
	} else {
		fmt.Fprintf(&b, "… %g", progress)
	}
	if message != "" {
		b.WriteString(" " + message)
	}
	return b.String() + "\n"
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// schemaText is a server's schema as JSON, to notice that it changed.
func schemaText(s any) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// schemaOf turns a server's input schema into a tool's parameters. Properties keep the order
// the model should read them in as best the listing allows (the SDK hands the schema over as
// a map): the required ones in the order "required" names them, then the rest by name. A
// schema Gantry cannot check against is taken as an open object: the server checks it.
func schemaOf(input any) *tools.Schema {
	var s tools.Schema
	if err := json.Unmarshal([]byte(schemaText(input)), &s); err != nil || (s.Type != "" && s.Type != "object") {
		return tools.OpenParams()
	}
	s.Type = "object"
	order(&s)
	if _, err := s.Resolve(nil); err != nil {
		return tools.OpenParams()
	}
	return &s
}

// order gives s and the objects inside it a property order.
func order(s *tools.Schema) {
	if s == nil {
		return
	}
	s.PropertyOrder = nil
	for _, name := range s.Required {
		if _, ok := s.Properties[name]; ok && !slices.Contains(s.PropertyOrder, name) {
			s.PropertyOrder = append(s.PropertyOrder, name)
		}
	}
	var rest []string
	for name := range s.Properties {
		if !slices.Contains(s.PropertyOrder, name) {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	s.PropertyOrder = append(s.PropertyOrder, rest...)
	for _, p := range s.Properties {
		order(p)
	}
	order(s.Items)
}
