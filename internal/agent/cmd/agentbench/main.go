// Command agentbench measures the agent's own costs, for `make bench`:
//
//   - what every request pays before the conversation, per mode, tool path and num_ctx (2k,
//     4k, 8k, 32k): the prompt level the budget chooses, the system prompt's and the native
//     path's tools[] estimated tokens, and the share of the window left to the conversation,
//     for the workspace it runs in (the repository, from make bench);
//   - the loop's overhead per iteration: a run of 50 file reads, then an answer, against a
//     fake Ollama that answers at once, through the real store, event log and tools; the
//     median of 5 runs, in wall time and in the process's CPU time. The fake still takes time
//     to answer, decoding each request (the whole conversation, with Ollama's own types) and
//     encoding the answer, as Ollama does before and after the model; that time is given
//     apart, and the wall time less it is Gantry's own cost per model call, which issue 18's
//     goal is about.
//
// Each result is printed as one line "name<TAB>value<TAB>unit" so a script can tabulate it.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"time"

	"gantry/internal/cputime"
	"gantry/internal/project"

	"gantry/internal/agent"
	"gantry/internal/events"
	"gantry/internal/ignore"
	"gantry/internal/llm"
	"gantry/internal/llm/fakeollama"
	"gantry/internal/safety"
	"gantry/internal/store"
	"gantry/internal/terminal"
	"gantry/internal/tools"
)

const (
	loopIterations = 50
	loopRuns       = 5
)

func main() {
	if err := benchPrompts(); err != nil {
		fmt.Fprintln(os.Stderr, "agentbench:", err)
		os.Exit(1)
	}
	if err := benchLoop(); err != nil {
		fmt.Fprintln(os.Stderr, "agentbench:", err)
		os.Exit(1)
	}
}

func report(name string, value float64, unit string) {
	fmt.Printf("%s\t%.2f\t%s\n", name, value, unit)
}

func builtins(root string) (*tools.Registry, error) {
	env := &tools.Env{Root: root, Ignore: ignore.New(root), Approver: tools.PolicyApprover{}, Checkpoints: tools.NoCheckpoints{}, FileRules: safety.DefaultFileRules()}
	return tools.NewBuiltinRegistry(env, terminal.NewSession(root))
}

// benchWindows are the num_ctx values a prompt is planned for: a laptop model's 2k and 4k,
// the 8k Gantry assumes when a model reports none, and the 32k default cap.
var benchWindows = []int{2048, 4096, 8192, 32768}

// benchPrompts prints, per mode, tool path and window, the level PlanPrompt chooses and what
// every request pays before the conversation: the system prompt and, natively, tools[]. The
// conversation's share of the window follows on its own line (the budget keeps it at 50 % or
// more whenever some level fits).
func benchPrompts() error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	all, err := builtins(root)
	if err != nil {
		return err
	}
	project := project.Discover(root)
	for _, mode := range []agent.Mode{agent.ModeAgent, agent.ModeExplore, agent.ModePlan, agent.ModeReview} {
		reg, err := agent.ModeTools(mode, all)
		if err != nil {
			return err
		}
		for _, native := range []bool{true, false} {
			path := "text"
			if native {
				path = "native"
			}
			for _, numCtx := range benchWindows {
				in := agent.PromptInput{
					Mode: mode, Workspace: root, WorkspaceName: filepath.Base(root), NativeTools: native,
					Project: project, OS: runtime.GOOS, Date: "2025-01-15",
				}
				plan := agent.PlanPrompt(in, reg, numCtx)
				system := agent.EstimateTokens(plan.System())
				name := fmt.Sprintf("prompt %s/%s %dk: %s", mode, path, numCtx/1024, plan.Level)
				if native {
					wire, err := json.Marshal(plan.Wire)
					if err != nil {
						return err
					}
					report(name, float64(plan.Tokens), fmt.Sprintf("tokens (est.): system %d + tools[] %d (%d tools)",
						system, agent.EstimateTokens(string(wire)), len(plan.Wire)))
				} else {
					report(name, float64(plan.Tokens), "tokens (est.): system prompt with the tool list")
				}
				report(fmt.Sprintf("  conversation %s/%s %dk", mode, path, numCtx/1024),
					100*(1-float64(plan.Tokens)/float64(numCtx)), "% of num_ctx left")
			}
		}
	}
	return nil
}

func benchLoop() error {
	var wall, fake, own, cpu, allocs, goroutines []float64
	perIteration := func(d time.Duration) float64 { return float64(d.Microseconds()) / loopIterations }
	for range loopRuns {
		r, err := loopRun()
		if err != nil {
			return err
		}
		wall = append(wall, perIteration(r.wall))
		fake = append(fake, perIteration(r.fake))
		own = append(own, perIteration(r.wall-r.fake))
		cpu = append(cpu, perIteration(r.cpu))
		allocs = append(allocs, float64(r.allocs)/loopIterations)
		goroutines = append(goroutines, float64(r.goroutines)/loopIterations)
	}
	median := func(xs []float64) float64 { slices.Sort(xs); return xs[len(xs)/2] }
	report(fmt.Sprintf("loop overhead, %d read iterations", loopIterations), median(wall), "µs/iteration, wall")
	report("loop overhead: the fake server answering", median(fake), "µs/iteration, wall")
	report("loop overhead: Gantry's own (wall less the fake server)", median(own), "µs/iteration")
	if median(cpu) > 0 {
		report("loop CPU time (incl. fake server)", median(cpu), "µs/iteration, all cores")
	}
	report("loop allocations (incl. fake server)", median(allocs), "allocs/iteration")
	report("loop goroutines started (incl. fake server)", median(goroutines), "goroutines/iteration")
	return nil
}

// loopResult is what one scripted session cost: wall time, the process's CPU time (on every
// core; a shared machine disturbs it less than the wall time) and heap allocations.
type loopResult struct {
	wall, cpu  time.Duration
	fake       time.Duration // of wall, the fake server's answering (fakeollama.Server.ChatTime)
	allocs     uint64
	goroutines uint64
}

// loopRun runs one scripted session.
func loopRun() (loopResult, error) {
	s, err := newLoopSession()
	if err != nil {
		return loopResult{}, err
	}
	defer s.close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	started := goroutinesStarted()
	cpu := cputime.Used()
	start := time.Now()
	err = s.run()
	r := loopResult{wall: time.Since(start), cpu: cputime.Used() - cpu, fake: s.fake.ChatTime()}
	r.goroutines = goroutinesStarted() - started
	runtime.ReadMemStats(&after)
	r.allocs = after.Mallocs - before.Mallocs
	return r, err
}

// loopSession is a session ready for the scripted run: a workspace of loopIterations files, a
// fake Ollama scripted to read each of them and then answer, a database and an event log.
type loopSession struct {
	root    string
	ws      string
	fake    *fakeollama.Server
	db      *store.DB
	emitter *events.Emitter
	runner  *agent.Runner
	session string
}

func newLoopSession() (_ *loopSession, err error) {
	ctx := context.Background()
	root, err := os.MkdirTemp("", "agentbench-")
	if err != nil {
		return nil, err
	}
	s := &loopSession{root: root, ws: filepath.Join(root, "ws")}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	if err := os.Mkdir(s.ws, 0o755); err != nil {
		return nil, err
	}
	turns := make([]fakeollama.Turn, 0, loopIterations+1)
	reader := tools.ReadFile(&tools.Env{}).Name()
	for i := range loopIterations {
		// Each call names another file: the same call thrice would stop the run (doom loop).
		name := fmt.Sprintf("f%02d.go", i)
		if err := os.WriteFile(filepath.Join(s.ws, name), []byte(fmt.Sprintf("package ws\n\nconst N%d = %d\n", i, i)), 0o644); err != nil {
			return nil, err
		}
		turns = append(turns, fakeollama.Turn{Chunks: []fakeollama.Chunk{{ToolCalls: []fakeollama.ToolCall{{Name: reader, Arguments: map[string]any{"path": name}}}}}})
	}
	turns = append(turns, fakeollama.Turn{Chunks: []fakeollama.Chunk{{Content: "Read them all. [TASK_COMPLETE]"}}})

	s.fake = fakeollama.New(fakeollama.Script{Models: []fakeollama.Model{{Name: "coder", Capabilities: []string{"completion", "tools"}}}, Turns: turns})
	if err := s.fake.Start("127.0.0.1:0"); err != nil {
		s.fake = nil
		return nil, err
	}
	base, err := url.Parse(s.fake.URL())
	if err != nil {
		return nil, err
	}
	if s.db, err = store.Open(ctx, filepath.Join(root, "db")); err != nil {
		return nil, err
	}
	sess, err := s.db.CreateSession(ctx, store.Session{WorkspacePath: s.ws, Mode: "agent", Model: "coder"})
	if err != nil {
		return nil, err
	}
	s.session = sess.ID
	s.emitter = events.NewEmitter(s.db)
	reg, err := builtins(s.ws)
	if err != nil {
		return nil, err
	}
	s.runner = agent.NewRunner(agent.Deps{LLM: llm.NewClient(base, http.DefaultClient), Events: s.emitter, Messages: s.db, Tools: reg})
	return s, nil
}

// run is the timed part: the run from the person's message to its runFinished event.
func (s *loopSession) run() error {
	res, err := s.runner.Run(context.Background(), agent.RunRequest{
		SessionID: s.session, RunID: "bench", Workspace: s.ws, Mode: agent.ModeAgent, Model: "coder",
		Text: "read every file", MaxIterations: loopIterations + 1,
	})
	if err != nil {
		return err
	}
	if res.Status != agent.StatusDone {
		return fmt.Errorf("the scripted run ended %s: %s", res.Status, res.Message)
	}
	return nil
}

func (s *loopSession) close() {
	if s.emitter != nil {
		_ = s.emitter.Close(context.Background())
	}
	if s.db != nil {
		_ = s.db.Close()
	}
	if s.fake != nil {
		_ = s.fake.Close()
	}
	_ = os.RemoveAll(s.root)
}

// goroutinesStarted counts the goroutines the process has started: each is a handoff between
// threads on the way, which a busy machine makes slow.
func goroutinesStarted() uint64 {
	sample := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return sample[0].Value.Uint64()
}
