package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"gantry/internal/project"

	"github.com/ollama/ollama/api"

	"gantry/internal/checkpoint"
	"gantry/internal/events"
	"gantry/internal/llm"
	"gantry/internal/tools"
)

// CheckpointStarter begins the checkpoint of a run (*checkpoint.Manager).
type CheckpointStarter interface {
	Begin(ctx context.Context, runID string) (*checkpoint.Checkpoint, error)
}

// Deps are what a Runner works with. One Runner serves one session: Tools is built over the
// session's tools.Env (whose Checkpoints should be the Checkpoints manager's Checkpointer) and
// its terminal session, which keeps the working directory between commands.
type Deps struct {
	LLM         ChatModel
	Events      EventSink
	Messages    MessageStore
	Tools       *tools.Registry
	Checkpoints CheckpointStarter // nil: changes are not checkpointed
	Now         func() time.Time  // nil: time.Now
	// Subagents are the session's subagents: the run hands their notices to the model and
	// lets its calls start more. nil in a subagent's own run.
	Subagents *Subagents
	// Throttle is the least time between two looks at a streaming answer (StreamOptions);
	// zero means 32 ms.
	Throttle time.Duration
	// Density is what the session's runs learnt of the models' tokenizers; nil learns nothing.
	Density *TokenDensity
	// Extra are the tools registered at run time (MCP servers'), asked for at each run's start;
	// status shows what it waits for. Nil: none.
	Extra func(ctx context.Context, status func(string)) tools.Extension
	// Queue lines up the model requests of every run sharing the Ollama server; nil sends each
	// at once.
	Queue *ModelQueue
}

// Runner runs the agent's loop (SPEC §3).
type Runner struct{ deps Deps }

// NewRunner returns a Runner over deps.
func NewRunner(deps Deps) *Runner {
	if deps.Now == nil {
		deps.Now = time.Now
	}
	return &Runner{deps: deps}
}

// RunRequest is one message of the person and how to answer it.
type RunRequest struct {
	SessionID   string
	RunID       string
	Workspace   string // absolute root; the Tools' Env.Root
	Mode        Mode
	Model       string
	Text        string
	Attachments []Attachment
	NumCtxCap   int // the context-length setting; 0 means llm.DefaultContextCap
	// MaxIterations bounds the model calls; 0 means 25 in agent mode and 10 in read-only ones.
	MaxIterations int
	// Plan is an approved plan (a plan-mode run's final message) for this run to carry out.
	Plan string
	// GitBranch moves the session onto its own git branch at its first run (the setting).
	GitBranch bool
	// Subagent is set for a subagent's run: its events go into the parent's log, linked to the
	// call that started it.
	Subagent *SubagentOf
	// ToolsAsText takes the text path although the model declares native tools: its tool
	// check found it writing its calls as text (llm.ToolCheck).
	ToolsAsText bool
}

// RunResult is how a run ended, as its runFinished event says.
type RunResult struct {
	Status       Status
	Message      string
	FilesChanged []checkpoint.FileChange
	// Truncated is a final answer Ollama cut (done_reason "length": num_predict or the context
	// window), so the person knows the answer did not end where the model meant it to.
	Truncated bool
	// ToolUses counts the calls the run made.
	ToolUses int
	// Dialects are the forms of the tool calls read from the model's text in this run (see
	// toolcall's Dialect constants), in order of first use.
	Dialects []string
	// RescuedCalls counts the calls of native-path answers that Ollama's parser missed in the
	// text and the run read from it.
	RescuedCalls int
}

// finishTimeout bounds the saves after the loop, which use a fresh context: a cancelled run
// must still record how it ended.
const finishTimeout = 5 * time.Second

// doomLoopRepeats is how many answers may make the same call before the run stops.
const doomLoopRepeats = 3

// Run answers one message. Ollama's failures, a stop and the step limit end the run with a
// status and a message (error nil); the error reports a failure of the machine (the database),
// after which the run also ended, as failed.
func (r *Runner) Run(ctx context.Context, req RunRequest) (RunResult, error) {
	scope := events.Scope{SessionID: req.SessionID, RunID: req.RunID}
	if req.Subagent != nil {
		scope.SessionID = req.Subagent.SessionID
	}
	a := &agentRun{deps: r.deps, shared: r.deps, req: req, calls: map[string]int{}, emit: &runEmitter{sink: r.deps.Events, scope: scope}}
	defer r.deps.Subagents.runEnded()
	out, err := a.start(ctx)
	if err == nil && out.Status == "" {
		out, err = a.loop(ctx)
	}
	return a.finish(ctx, out, err)
}

// agentRun is the state of one run.
type agentRun struct {
	deps Deps
	// shared are the Runner's deps as they came, before the run wrapped any for itself (the
	// model's prompt meter): what a subagent it starts works with.
	shared Deps
	req    RunRequest
	emit   *runEmitter

	path   ToolPath
	info   llm.ModelInfo
	system string
	tools  *toolRunner
	wire   api.Tools
	// wireJSON is wire encoded once for all the run's requests, and wireTokens its estimated
	// size, paid by every request.
	wireJSON   json.RawMessage
	wireTokens int
	hist       *history
	cp         *checkpoint.Checkpoint
	checked    bool           // write validation has spoken
	calls      map[string]int // answers that made each call, by tool and canonical arguments
	window     *contextWindow // session memory and compaction (compact.go)
	toolUses   int            // calls made, for RunResult

	// numCtx is the one num_ctx of the run's every request: another would make Ollama load
	// the model again.
	numCtx int
	// all are the session's tools and the run's extra ones (MCP servers'): a call to one of
	// them written in the text is a call.
	all *tools.Registry
	// prompt is the run's prompt input before PlanPrompt; modeTools the mode's tools, of which
	// the plan offers all or, in a small window, all but the optional ones. budget is the window
	// the prompt is planned for (smaller once Ollama cut a prompt), level the plan in use, and
	// loaded counts the lazily described tools whose parameters it shows.
	prompt    PromptInput
	modeTools *tools.Registry
	budget    int
	level     PromptPlan
	loaded    int
	// answers counts the model's answers so far; each answer's events carry its number.
	answers  int
	changed  map[string]bool // files the run changed and has not undone (write validation)
	dialects []string        // forms of the calls read from text, for RunResult
	rescued  int             // native-path calls read from text, for RunResult
}

// known reports whether name is one of the session's tools or the run's extra ones: a call to
// it written in the text is a call (and one the mode does not offer gets a clear refusal), any
// other is prose.
func (a *agentRun) known(name string) bool {
	if a.all != nil {
		return a.all.Knows(name)
	}
	return a.deps.Tools.Knows(name)
}

// noteDialects records how an answer's calls were written, for the run's end.
func (a *agentRun) noteDialects(t answerTurn) {
	for _, d := range t.dialects {
		if !slices.Contains(a.dialects, d) {
			a.dialects = append(a.dialects, d)
		}
	}
	if t.rescued {
		a.rescued += len(t.calls)
	}
}

// start looks the model up, saves the message and prepares the loop. A set Status ends the
// run before the loop.
func (a *agentRun) start(ctx context.Context) (RunResult, error) {
	info, modelErr := a.deps.LLM.Model(ctx, a.req.Model)
	if modelErr == nil {
		a.info, a.path = info, PathText
		if info.Capabilities.Tools && !a.req.ToolsAsText {
			a.path = PathNative
		}
	}
	notices := a.deps.Subagents.runStarted()
	a.emit.state(ctx, events.RunStarted, RunStartedPayload{
		Mode: a.req.Mode, Model: a.req.Model, Text: a.req.Text, ToolPath: a.path, GitBranch: a.sessionBranch(ctx),
		Attachments: a.req.Attachments, Plan: strings.TrimSpace(a.req.Plan) != "",
		Subagent: a.req.Subagent, Notices: notices,
	})

	content, err := UserMessage(a.req.Text, a.req.Attachments, a.req.Workspace)
	if err != nil {
		return RunResult{Status: StatusFailed, Message: err.Error()}, nil
	}
	content = withPlan(a.req.Plan, content)
	if a.hist, err = loadHistory(ctx, a.deps.Messages, a.req.SessionID, a.req.RunID, a.deps.Now); err != nil {
		return RunResult{}, err
	}
	if err := a.addNotices(ctx, notices); err != nil {
		return RunResult{}, err
	}
	if strings.TrimSpace(content) != "" || len(notices) == 0 {
		if err := a.hist.add(ctx, api.Message{Role: "user", Content: content}); err != nil {
			return RunResult{}, err
		}
	}
	if modelErr != nil {
		return a.modelFailure(ctx, modelErr), nil
	}
	if !a.req.Mode.ReadOnly() && a.deps.Checkpoints != nil {
		if a.cp, err = a.deps.Checkpoints.Begin(ctx, a.req.RunID); err != nil {
			return RunResult{}, fmt.Errorf("starting the checkpoint: %w", err)
		}
	}

	all, err := a.withExtra(ctx)
	if err != nil {
		return RunResult{}, err
	}
	registry, err := ModeTools(a.req.Mode, all)
	if err != nil {
		return RunResult{}, err
	}
	a.modeTools = registry
	a.tools = &toolRunner{registry: registry, root: a.req.Workspace, emit: a.emit}
	a.prompt = PromptInput{
		Mode: a.req.Mode, Workspace: a.req.Workspace, WorkspaceName: filepath.Base(a.req.Workspace),
		NativeTools: a.path == PathNative, Project: project.Discover(a.req.Workspace),
		OS: runtime.GOOS, Date: a.deps.Now().Format("2006-01-02"), Subagent: a.req.Subagent != nil,
	}
	a.all = all
	a.numCtx = a.info.NumCtx(a.req.NumCtxCap)
	a.budget = int(float64(a.numCtx) / a.deps.Density.Of(a.req.Model))
	a.window = newContextWindow(a.prompt)
	a.plan()
	return RunResult{}, nil
}

// withExtra is the session's tools and those registered at run time (MCP servers'), which may
// have to start first: the spinner says so meanwhile.
func (a *agentRun) withExtra(ctx context.Context) (*tools.Registry, error) {
	if a.deps.Extra == nil {
		return a.deps.Tools, nil
	}
	ext := a.deps.Extra(ctx, func(label string) { a.emit.state(ctx, events.Spinner, SpinnerPayload{Label: label}) })
	if len(ext.Tools) == 0 && ext.Resolve == nil {
		return a.deps.Tools, nil
	}
	return a.deps.Tools.Extend(ext)
}

// plan renders the system prompt and tools for the budget, again whenever a lazily described
// tool loaded its parameters since: the model then sees them (the native path's tools[] gets
// the real schema, the text path's prompt the signature).
func (a *agentRun) plan() {
	loaded := loadedTools(a.modeTools)
	if a.level.Tools != nil && loaded == a.loaded {
		return
	}
	a.usePlan(PlanPrompt(a.prompt, a.modeTools, a.budget))
	a.loaded = loaded
}

// usePlan makes p the run's prompt level: its tools, tools[] and system prompt.
func (a *agentRun) usePlan(p PromptPlan) {
	a.level = p
	a.tools.registry = p.Tools
	a.wire, a.wireJSON, a.wireTokens = p.Wire, nil, 0
	if len(p.Wire) > 0 {
		a.wireJSON, _ = json.Marshal(p.Wire) // tools.OllamaTool's schemas always encode
		a.wireTokens = EstimateTokens(string(a.wireJSON))
	}
	a.system = p.System()
	a.window.prompt = p.Input
}

func (a *agentRun) maxIterations() int {
	switch {
	case a.req.MaxIterations > 0:
		return a.req.MaxIterations
	case a.req.Mode.ReadOnly():
		return 10
	}
	return 25
}

// loop asks the model, runs what it calls and feeds the results back until it is done.
func (a *agentRun) loop(ctx context.Context) (RunResult, error) {
	n := a.maxIterations()
	for it := 1; it <= n; it++ {
		ans, err := a.nextAnswer(ctx)
		var machine errMachine
		if errors.As(err, &machine) {
			return RunResult{}, machine.error
		}
		var cut errPromptCut
		if errors.As(err, &cut) {
			return RunResult{Status: StatusFailed, Message: cut.Error()}, nil
		}
		if err != nil {
			return a.answerFailure(ctx, ans, err)
		}
		turn := ans.turn(a.path, a.known)
		calls := turn.calls
		if err := a.hist.add(ctx, turn.message); err != nil {
			return RunResult{}, err
		}
		if len(calls) == 0 {
			if ans.Completed && a.needsWrite() {
				if err := a.hist.add(ctx, api.Message{Role: "user", Content: a.writeReminder()}); err != nil {
					return RunResult{}, err
				}
				continue
			}
			out, err := a.done(ctx, ans.Text)
			out.Truncated = ans.truncated && out.Status == StatusDone
			return out, err
		}

		a.noteDialects(turn)
		if repeated := a.repeatedCall(calls); repeated != "" {
			msg := fmt.Sprintf("Stopped: the model made the same call (%s) %d times without getting anywhere. Try rephrasing the task or a larger model.", repeated, doomLoopRepeats)
			msgs, metas := resultMessages(turn.message.ToolCalls, notRunFeedback(calls, "Not run: "+msg))
			for i, m := range msgs {
				if err := a.hist.addAt(ctx, m, time.Time{}, metas[i]); err != nil {
					return RunResult{}, err
				}
			}
			return RunResult{Status: StatusFailed, Message: msg}, nil
		}
		a.toolUses += len(calls)
		batch := a.tools.run(withParent(ctx, a), a.answers, calls, batchOrigin{Dialects: turn.dialects, Rescued: turn.rescued})
		a.noteChanges(batch.feedback)
		a.plan()
		times := resultTimes(turn.message.ToolCalls, batch.feedback)
		msgs, metas := resultMessages(turn.message.ToolCalls, batch.feedback)
		for i, m := range msgs {
			if err := a.hist.addAt(ctx, m, times[i], metas[i]); err != nil {
				return RunResult{}, err
			}
		}
		if ctx.Err() != nil {
			return RunResult{Status: StatusCancelled, Message: "Stopped."}, nil
		}
		if ans.Completed {
			if !a.needsWrite() {
				return a.done(ctx, ans.Text)
			}
			if err := a.hist.add(ctx, api.Message{Role: "user", Content: a.writeReminder()}); err != nil {
				return RunResult{}, err
			}
		}
	}
	return RunResult{Status: StatusIterationLimit, Message: fmt.Sprintf(
		"Stopped after %d steps, the most a run may take, before the task was finished. Send a message to let it continue.", n)}, nil
}

// addNotices puts the notices of background tasks that ended into the conversation, each as a
// message of its own: the model reads them before its next answer.
func (a *agentRun) addNotices(ctx context.Context, notices []Notice) error {
	for _, n := range notices {
		if err := a.hist.add(ctx, api.Message{Role: "user", Content: n.ForModel()}); err != nil {
			return err
		}
	}
	return nil
}

// errMachine is a failure of the machine (the database) while asking: the run stops on it.
type errMachine struct{ error }

// nextAnswer asks for the loop's next answer once it is the run's turn at the model (queue.go),
// telling the model first what changed while it waited: the files changed on disk, the notices
// of the background tasks that ended.
func (a *agentRun) nextAnswer(ctx context.Context) (answer, error) {
	release, err := a.takeModel(ctx)
	if err != nil {
		return answer{}, err
	}
	defer release()
	if err := a.noteStaleFiles(ctx); err != nil {
		return answer{}, errMachine{err}
	}
	if err := a.addNotices(ctx, a.deps.Subagents.take()); err != nil {
		return answer{}, errMachine{err}
	}
	return a.askWindowed(ctx)
}

// askWindowed asks for the loop's next answer, with the history fitted to the window. An answer
// to a prompt Ollama cut anyway is set aside and asked for again once (promptcut.go). The run
// has its turn at the model meanwhile, for the compactions too.
func (a *agentRun) askWindowed(ctx context.Context) (answer, error) {
	for retried := false; ; retried = true {
		conv, expected := a.windowedRequest(ctx)
		estimated := a.estimatedTokens() // on the estimate alone, for the density
		previous := a.window.last        // 0 after a compaction: the history did not just grow
		a.answers++
		ans, err := a.ask(ctx, a.answers, conv, true, expected)
		if err != nil {
			return ans, err
		}
		count := ans.metrics.PromptEvalCount
		a.window.last = count
		if !promptCut(count, a.numCtx, expected, previous) {
			a.deps.Density.Note(a.req.Model, count, estimated)
			return ans, nil
		}
		cut := PromptCutPayload{Iteration: a.answers, PromptTokens: count, Expected: expected, Window: a.numCtx}
		if err := a.handleCut(ctx, cut, retried); err != nil {
			return answer{}, err
		}
	}
}

// ask streams one answer into the UI, after saying what the wait for it is for, and reports how
// much of the window it used. expected is the request's estimated size in tokens. The caller has
// the run's turn at the model (takeModel).
func (a *agentRun) ask(ctx context.Context, iteration int, conv conversation, withTools bool, expected int) (answer, error) {
	if err := a.awaitModel(ctx, expected); err != nil {
		return answer{}, err
	}
	req := llm.ChatRequest{
		Model: a.req.Model, Messages: conv.msgs, MessagesJSON: conv.encoded,
		Think: a.info.Capabilities.Thinking, NumCtx: a.numCtx,
	}
	if withTools {
		req.Tools, req.ToolsJSON = a.wire, a.wireJSON
	}
	opts := StreamOptions{Known: a.known, Throttle: a.deps.Throttle, Label: func(name string, args map[string]any) string {
		return a.tools.view(tools.Call{Name: name, Args: args}).Spinner
	}}
	started := false
	ans, err := streamAnswer(ctx, a.deps.LLM, req, a.path, opts, answerSink{ctx: ctx, emit: a.emit, iteration: iteration}, func() {
		started = true
		a.answerStarted(ctx)
	})
	if !started {
		a.answerStarted(ctx) // an empty answer, or none: the wait is over all the same
	}
	a.reportUsage(ctx, iteration, ans.metrics)
	return ans, err
}

// repeatedCall counts the answer's calls (a call repeated within one answer counts once: the
// model may mean it) and names one made by too many answers.
func (a *agentRun) repeatedCall(calls []tools.Call) string {
	seen := map[string]bool{}
	repeated := ""
	for _, c := range calls {
		args, _ := json.Marshal(c.Args) // maps marshal with sorted keys: canonical
		key := c.Name + " " + string(args)
		if seen[key] {
			continue
		}
		seen[key] = true
		a.calls[key]++
		if a.calls[key] >= doomLoopRepeats && repeated == "" {
			repeated = key
		}
	}
	return repeated
}

// done ends the run with the model's last words, or, when it ended without any, a short
// summary asked for without tools.
func (a *agentRun) done(ctx context.Context, text string) (RunResult, error) {
	if strings.TrimSpace(text) != "" {
		return RunResult{Status: StatusDone, Message: text}, nil
	}
	ask := api.Message{Role: "user", Content: "Summarise in two or three sentences what you did in this task and what changed. Do not call tools."}
	release, err := a.takeModel(ctx)
	if err != nil {
		return RunResult{Status: StatusCancelled, Message: "Stopped."}, nil
	}
	a.answers++
	ans, err := a.ask(ctx, a.answers, a.hist.request(a.system, ask), false, a.promptTokens()+messageTokens([]api.Message{ask}))
	release()
	switch {
	case ctx.Err() != nil:
		return RunResult{Status: StatusCancelled, Message: "Stopped."}, nil
	case err != nil || strings.TrimSpace(ans.Text) == "":
		return RunResult{Status: StatusDone, Message: "Done."}, nil
	}
	if err := a.hist.add(ctx, api.Message{Role: "assistant", Content: ans.Text}); err != nil {
		return RunResult{}, err
	}
	return RunResult{Status: StatusDone, Message: ans.Text}, nil
}

// answerFailure ends the run after a model call failed, keeping what had streamed.
func (a *agentRun) answerFailure(ctx context.Context, ans answer, err error) (RunResult, error) {
	if ans.RawText != "" || ans.Thinking != "" {
		if saveErr := a.hist.add(ctx, api.Message{Role: "assistant", Content: ans.RawText, Thinking: ans.Thinking}); saveErr != nil {
			return RunResult{}, saveErr
		}
	}
	if ctx.Err() != nil {
		return RunResult{Status: StatusCancelled, Message: "Stopped."}, nil
	}
	return a.modelFailure(ctx, err), nil
}

func (a *agentRun) modelFailure(ctx context.Context, err error) RunResult {
	if ctx.Err() != nil {
		return RunResult{Status: StatusCancelled, Message: "Stopped."}
	}
	msg := err.Error()
	if errors.Is(err, llm.ErrStreamCut) {
		msg += "; what it wrote so far is kept. Check that Ollama is still running, then send the message again."
	}
	return RunResult{Status: StatusFailed, Message: msg}
}

// finish closes the checkpoint and tells the UI how the run ended, with a fresh context so a
// cancelled run still says so.
func (a *agentRun) finish(ctx context.Context, out RunResult, runErr error) (RunResult, error) {
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finishTimeout)
	defer cancel()
	if runErr != nil {
		out = RunResult{Status: StatusFailed, Message: "The run stopped: " + runErr.Error()}
	}
	if out.Status != StatusCancelled && ctx.Err() != nil {
		out = RunResult{Status: StatusCancelled, Message: "Stopped."}
	}
	out.FilesChanged = []checkpoint.FileChange{}
	out.ToolUses = a.toolUses
	out.Dialects, out.RescuedCalls = a.dialects, a.rescued
	if a.cp != nil {
		files, err := a.cp.Files(fctx)
		if err == nil {
			out.FilesChanged = a.relative(files)
		}
		runErr = errors.Join(runErr, err, a.cp.Close(fctx))
	}
	a.emit.state(fctx, events.RunFinished, RunFinishedPayload(out))
	return out, errors.Join(runErr, a.emit.failure())
}

// relative turns the checkpoint's absolute paths into workspace-relative slash paths, as every
// other event names files.
func (a *agentRun) relative(files []checkpoint.FileChange) []checkpoint.FileChange {
	return checkpoint.Relative(a.req.Workspace, files)
}
