package tools

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Call is one tool call from a model answer.
type Call struct {
	ID   string
	Name string
	Args map[string]any
}

// CallResult is what one call of a batch came to.
type CallResult struct {
	Call     Call
	Result   Result
	Err      error // infrastructure failure; Result is then a generic failure for the model
	Started  time.Time
	Finished time.Time
}

// BatchObserver hears about each call of a batch as it starts and finishes (the agent turns
// these into UI actions). Methods may be called from several goroutines at once.
type BatchObserver interface {
	Started(index int, call Call)
	Output(index int) Output
	Finished(index int, result CallResult)
}

// CallContexter is a BatchObserver that gives each call a context of its own, derived from the
// batch's, so what the call reaches through it (the Approver) can tell which call is asking.
type CallContexter interface {
	CallContext(ctx context.Context, index int) context.Context
}

// maxParallel bounds concurrent calls: reads are I/O-bound, but a laptop has few cores.
const maxParallel = 8

// RunBatch runs one model answer's calls. Calls that cannot disturb each other run at the same
// time: reads and searches together, edits of different files together; a call waits for every
// earlier call it conflicts with (same file, or a command, which may touch anything), so the
// outcome is as if they ran in the order given. Results come back in that order. A failing call
// does not stop the others; cancelling ctx skips what has not started and interrupts what runs.
func (r *Registry) RunBatch(ctx context.Context, root string, calls []Call, obs BatchObserver) []CallResult {
	if obs == nil {
		obs = quietObserver{}
	}
	plans := make([]plannedCall, len(calls))
	for i, c := range calls {
		plans[i] = r.plan(root, c)
	}
	results := make([]CallResult, len(calls))
	done := make([]chan struct{}, len(calls))
	for i := range done {
		done[i] = make(chan struct{})
	}
	slots := make(chan struct{}, maxParallel)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer close(done[i])
			for j := 0; j < i; j++ {
				if conflicts(plans[j], plans[i]) {
					select {
					case <-done[j]:
					case <-ctx.Done():
					}
				}
			}
			select {
			case slots <- struct{}{}:
				defer func() { <-slots }()
			case <-ctx.Done():
			}
			callCtx := ctx
			if cc, ok := obs.(CallContexter); ok {
				callCtx = cc.CallContext(ctx, i)
			}
			results[i] = r.runOne(callCtx, i, plans[i], obs)
		}(i)
	}
	wg.Wait()
	return results
}

type plannedCall struct {
	call     Call
	tool     Tool
	args     map[string]any
	failed   *Result
	readOnly bool
	path     string // resolved target of a file tool; "" when unknown
}

func (r *Registry) plan(root string, c Call) plannedCall {
	p := plannedCall{call: c}
	p.tool, p.args, p.failed = r.Prepare(c.Name, c.Args)
	if p.failed != nil {
		p.readOnly = true // it will not run, so it disturbs nothing
		return p
	}
	p.readOnly = p.tool.Kind().ReadOnly()
	if s, ok := p.args["path"].(string); ok {
		if abs, err := ResolveWorkspacePath(root, s); err == nil {
			p.path = abs
		}
	}
	return p
}

// conflicts reports whether later must wait for earlier.
func conflicts(earlier, later plannedCall) bool {
	if thinking(earlier) && thinking(later) {
		// The task list's calls keep their order: three task_create calls number their tasks
		// in the order the model wrote them.
		return true
	}
	if earlier.readOnly && later.readOnly {
		return false
	}
	if earlier.tool != nil && earlier.tool.Kind() == KindExecute || later.tool != nil && later.tool.Kind() == KindExecute {
		return true
	}
	// Two calls on known, different files are independent; anything else keeps its order.
	return earlier.path == "" || later.path == "" || earlier.path == later.path
}

func thinking(p plannedCall) bool { return p.tool != nil && p.tool.Kind() == KindThink }

func (r *Registry) runOne(ctx context.Context, i int, p plannedCall, obs BatchObserver) CallResult {
	res := CallResult{Call: p.call, Started: time.Now()}
	obs.Started(i, p.call)
	switch {
	case p.failed != nil:
		res.Result = *p.failed
	case ctx.Err() != nil:
		res.Result = Fail(ErrCancelled, "%s was not run: the run was stopped.", p.call.Name)
	case IsLazy(p.tool) && !p.loadArgs(ctx, &res.Result):
		// Its first call's arguments did not fit the parameters it loaded: the result says so.
	default:
		res.Result, res.Err = runGuarded(ctx, p, obs.Output(i))
		if res.Err != nil {
			res.Result = Fail(ErrFailed, "%s failed: %v", p.call.Name, res.Err)
		}
		// A call that failed because the run was stopped was cancelled, not broken; one that
		// finished its work anyway keeps its result.
		if ctx.Err() != nil && res.Result.Failed() {
			res.Result.ErrorKind = ErrCancelled
		}
	}
	res.Finished = time.Now()
	obs.Finished(i, res)
	return res
}

// loadArgs loads a lazy tool's parameters before its first call and checks the call against
// them; false (with failed set) when the arguments do not fit.
func (p *plannedCall) loadArgs(ctx context.Context, failed *Result) bool {
	args, res := loadParams(ctx, p.tool.(LazyTool), p.call.Args)
	if res != nil {
		*failed = *res
		return false
	}
	p.args = args
	return true
}

// runGuarded turns a panicking tool into a failed call instead of a crashed app.
func runGuarded(ctx context.Context, p plannedCall, out Output) (res Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("internal error in %s: %v", p.tool.Name(), v)
		}
	}()
	return p.tool.Execute(ctx, p.args, out)
}

type quietObserver struct{}

func (quietObserver) Started(int, Call)        {}
func (quietObserver) Output(int) Output        { return Discard }
func (quietObserver) Finished(int, CallResult) {}
