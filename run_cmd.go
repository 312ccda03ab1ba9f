package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"gantry/app"
	"gantry/internal/agent"
	"gantry/internal/approval"
	"gantry/internal/checkpoint"
	"gantry/internal/config"
	"gantry/internal/events"
	"gantry/internal/llm"
	"gantry/internal/lsp"
	"gantry/internal/mcp"
	"gantry/internal/store"
	"gantry/internal/tools"
	"gantry/internal/trust"
)

// Exit codes of `gantry run`.
const (
	exitDone      = 0
	exitFailed    = 1
	exitUsage     = 2
	exitCancelled = 3
)

const runUsage = `Usage: gantry run --workspace DIR [flags] "task"

Runs the agent on the task without a window. Every event is written to stdout as one JSON line
({"id","seq","sessionId","runId","type","payload","time"}); the last line is
{"type":"final","status":…,"message":…,"filesChanged":[…]}, with "truncated":true when Ollama
cut the answer (num_predict or the context window). Exit code: 0 done, 1 failed or
stopped at the step limit, 2 bad usage, 3 stopped by SIGINT/SIGTERM.

Flags:
  --workspace DIR    the project folder (required)
  --model M          the Ollama model (default: the model chosen in Settings)
  --mode MODE        agent (default), explore, plan or review
  --yes              allow file changes and commands that are not critical; without it the
                     permission mode, file rules and "always allow" rules of Settings decide,
                     and whatever would ask is denied
  --yes-critical     also allow critical commands
  --trust            trust the workspace for this run: its own programs (node_modules/.bin,
                     package scripts, build files, git hooks) may run; otherwise only a folder
                     trusted in the app's Settings runs them
  --data-dir DIR     where gantry.db lives
  --config-dir DIR   where settings.json lives
`

// exitCodeError ends the process with a code other than 1.
type exitCodeError struct {
	code int
	err  error
}

func (e *exitCodeError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func usageError(stderr io.Writer, format string, args ...any) error {
	fmt.Fprint(stderr, runUsage)
	return &exitCodeError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

type runFlags struct {
	workspace, model, mode, dataDir, configDir string
	yes, yesCritical, trust                    bool
	task                                       string
}

// parseRunFlags lets flags and the task come in any order.
func parseRunFlags(args []string, stderr io.Writer) (runFlags, error) {
	var f runFlags
	fset := flag.NewFlagSet("gantry run", flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	fset.StringVar(&f.workspace, "workspace", "", "")
	fset.StringVar(&f.model, "model", "", "")
	fset.StringVar(&f.mode, "mode", "agent", "")
	fset.StringVar(&f.dataDir, "data-dir", "", "")
	fset.StringVar(&f.configDir, "config-dir", "", "")
	fset.BoolVar(&f.yes, "yes", false, "")
	fset.BoolVar(&f.yesCritical, "yes-critical", false, "")
	fset.BoolVar(&f.trust, "trust", false, "")
	var words []string
	for {
		if err := fset.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stderr, runUsage)
				return f, &exitCodeError{code: exitDone}
			}
			return f, usageError(stderr, "%v", err)
		}
		args = fset.Args()
		if len(args) == 0 {
			break
		}
		words, args = append(words, args[0]), args[1:]
	}
	f.task = strings.TrimSpace(strings.Join(words, " "))
	switch {
	case f.task == "":
		return f, usageError(stderr, "give the task as the last argument")
	case f.workspace == "":
		return f, usageError(stderr, "--workspace is required")
	}
	return f, nil
}

// runHeadless is `gantry run`: the agent on one task, events as JSON lines on stdout.
func runHeadless(args []string, stdout, stderr io.Writer) error {
	f, err := parseRunFlags(args, stderr)
	if err != nil {
		return err
	}
	mode, err := agent.ParseMode(f.mode)
	if err != nil {
		return usageError(stderr, "%v", err)
	}
	root, err := filepath.Abs(f.workspace)
	if err == nil {
		var st os.FileInfo
		if st, err = os.Stat(root); err == nil && !st.IsDir() {
			err = fmt.Errorf("%s is not a folder", root)
		}
	}
	if err != nil {
		return usageError(stderr, "workspace: %v", err)
	}
	opts, err := appOptions(f.dataDir, f.configDir)
	if err != nil {
		return err
	}
	settings := config.Open(opts.SettingsPath).Get()
	host, err := llm.ResolveHost(settings.OllamaHost)
	if err != nil {
		return usageError(stderr, "%v", err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	client := llm.NewClient(host, http.DefaultClient)
	model := f.model
	if model == "" {
		model = settings.DefaultModel
	}
	if model == "" {
		return usageError(stderr, "no model: pass --model or choose a default model in Settings%s", installedModels(ctx, host))
	}

	db, err := store.Open(ctx, opts.DataDir)
	if err != nil {
		return err
	}
	defer db.Close()
	sess, err := db.CreateSession(ctx, store.Session{WorkspacePath: root, Title: agent.SessionTitle(f.task), Mode: string(mode), Model: model})
	if err != nil {
		return err
	}
	emitter := events.NewEmitter(db)
	lines := &jsonLines{w: stdout}
	emitter.Attach(lines)

	// Nobody can answer an approval here: what would ask is denied and the model is told how a
	// person can allow it (SPEC §8, §13). Settings' permission mode and the person's "always
	// allow" rules and trusted folders hold as in the app; --yes and --trust add to them.
	rules := approval.OpenFileRuleStore(app.RulesPath(opts.SettingsPath))
	saved := trust.Open(app.TrustedFoldersPath(opts.SettingsPath))
	folders := trust.Either{saved}
	if f.trust {
		folders = append(folders, trust.Trusting(root))
	}
	for _, p := range []string{rules.Problem(), saved.Problem()} {
		if p != "" {
			fmt.Fprintln(stderr, "gantry:", p)
		}
	}
	approvals := approval.NewManager(
		func(ctx context.Context, scope events.Scope, typ events.Type, payload any) error {
			_, err := emitter.Emit(ctx, scope, typ, payload)
			return err
		},
		rules, folders,
		approval.HeadlessPolicy(app.PolicyOf(settings), f.yes, f.yesCritical),
	)
	gate := approvals.Gate(approval.GateOptions{Scope: events.Scope{SessionID: sess.ID}, Workspace: root, Unattended: true})
	// The workspace's language servers live as long as the run.
	code := lsp.NewManager(lsp.Options{Root: root, ToolsDirs: app.ToolsDirs(opts.DataDir), Overrides: settings.LanguageServers})
	defer code.Close()
	// So do the MCP servers: the person's, and the project's own file only in a trusted folder.
	mcpServers := mcp.NewManager(app.MCPOptions(root, func() config.Settings { return settings }, folders,
		mcp.OpenFailureLog(app.FailureLogPath(opts.DataDir)), version))
	defer mcpServers.Close()
	sessionOpts := app.SessionOptionsOf(settings)
	sessionOpts.Code = code
	sessionOpts.MCP = mcpServers
	// The run and its background subagents take turns at the model, as in the app.
	sessionOpts.Queue = agent.NewModelQueue(settings.ModelRequests)
	session, err := agent.NewSessionTools(db, sess.ID, root, gate, sessionOpts)
	if err != nil {
		return err
	}
	// A background task that ends while no run is going on wakes the loop below for a turn that
	// hands its notice to the model (reference 002's hold-back).
	wake := make(chan struct{}, 1)
	agents := session.EnableSubagents(agent.Delegation{
		Approver: func(scope events.Scope, background bool, label string) tools.Approver {
			return approvals.Gate(approval.GateOptions{Scope: scope, Workspace: root, Unattended: true, Background: background, Subagent: label})
		},
		Idle: func() bool {
			select {
			case wake <- struct{}{}:
			default:
			}
			return true
		},
	})
	runner := session.Runner(client, emitter)
	// The app's num_ctx for the model: another would make Ollama load it again.
	req := agent.RunRequest{SessionID: sess.ID, Workspace: root, Mode: mode, Model: model, Text: f.task, NumCtxCap: settings.NumCtxCap}
	res, runErr := runner.Run(ctx, withRunID(req))
	// Background tasks are waited for, and each notice handed to the model, before the final
	// line; a signal cancels them, and their cancelled notices are recorded first.
	for runErr == nil && ctx.Err() == nil && (agents.Running() > 0 || agents.Pending() || len(wake) > 0) {
		select {
		case <-wake:
			res, runErr = runner.Run(ctx, withRunID(agent.RunRequest{SessionID: sess.ID, Workspace: root, Mode: mode, Model: model, NumCtxCap: settings.NumCtxCap}))
		case <-ctx.Done():
		}
	}
	agents.Close(finishWait)
	if ctx.Err() != nil && res.Status != agent.StatusFailed {
		res.Status, res.Message = agent.StatusCancelled, "Stopped."
	}
	closeErr := emitter.Close(context.WithoutCancel(ctx))
	res.FilesChanged = lines.filesChanged()
	lines.final(res)
	if err := errors.Join(runErr, closeErr); err != nil {
		fmt.Fprintln(stderr, "gantry:", err)
	}
	switch res.Status {
	case agent.StatusDone:
		return nil
	case agent.StatusCancelled:
		return &exitCodeError{code: exitCancelled, err: errors.New("stopped")}
	}
	return &exitCodeError{code: exitFailed, err: errors.New(res.Message)}
}

// finishWait bounds how long a stopped run waits for its background tasks to record their end.
const finishWait = 5 * time.Second

func withRunID(r agent.RunRequest) agent.RunRequest {
	r.RunID = agent.NewRunID()
	return r
}

// installedModels lists the models Ollama has, for the missing-model message; "" when it
// cannot say.
func installedModels(ctx context.Context, host *url.URL) string {
	st := llm.CheckStatus(ctx, host)
	if !st.Reachable {
		return fmt.Sprintf(" (and Ollama at %s cannot list its models: %s)", st.Host, st.Error)
	}
	if len(st.Models) == 0 {
		return "; no models are installed: download one with `ollama pull`"
	}
	names := make([]string, len(st.Models))
	for i, m := range st.Models {
		names[i] = m.Name
	}
	return "; installed models: " + strings.Join(names, ", ")
}

// jsonLines writes each event as one JSON line. Writing to a pipe can block, but a headless run
// has nobody else waiting on the emitter. It keeps the files every run changed (the turns
// notices started and the subagents' runs included), for the final line.
type jsonLines struct {
	mu      sync.Mutex
	w       io.Writer
	changed map[string]checkpoint.FileChange
	order   []string
}

func (j *jsonLines) Post(ev events.Event) {
	if ev.Type == events.RunFinished {
		var p agent.RunFinishedPayload
		if json.Unmarshal(ev.Payload, &p) == nil {
			j.noteChanged(p.FilesChanged)
		}
	}
	j.write(ev)
}

func (j *jsonLines) noteChanged(files []checkpoint.FileChange) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.changed == nil {
		j.changed = map[string]checkpoint.FileChange{}
	}
	for _, f := range files {
		if _, seen := j.changed[f.Path]; !seen {
			j.order = append(j.order, f.Path)
		}
		j.changed[f.Path] = f
	}
}

// filesChanged are the files the runs changed, each as its latest run left it, in the order
// they were first changed.
func (j *jsonLines) filesChanged() []checkpoint.FileChange {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]checkpoint.FileChange, 0, len(j.order))
	for _, p := range j.order {
		out = append(out, j.changed[p])
	}
	return out
}

func (j *jsonLines) final(res agent.RunResult) {
	files := res.FilesChanged
	if files == nil {
		files = []checkpoint.FileChange{}
	}
	j.write(struct {
		Type         string                  `json:"type"`
		Status       agent.Status            `json:"status"`
		Message      string                  `json:"message"`
		FilesChanged []checkpoint.FileChange `json:"filesChanged"`
		Truncated    bool                    `json:"truncated,omitempty"` // the answer was cut (num_predict, context)
	}{"final", res.Status, res.Message, files, res.Truncated})
}

func (j *jsonLines) write(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	_, _ = j.w.Write(append(b, '\n'))
}
