package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"gantry/internal/lsp"
)

// After every successful write or edit, the file's language server says which errors the change
// brought in, and they are added to the result: the model fixes what it broke in its next step
// instead of learning it from a failed build later (SPEC §6, reference 003 step 10). Only
// errors, only new ones (counted by message, since lines move with the edit), at most
// maxNewErrors; an edit never waits on a server longer than editCheckWait for either verdict.
const (
	editCheckWait = 10 * time.Second
	maxNewErrors  = 10
)

// editCheck is a check begun before the write: the server, and the errors already there.
type editCheck struct {
	client *lsp.Client
	abs    string
	rel    string
	before map[string]int // error messages and how often each appeared
}

// startEditCheck gets the file's server (starting it if need be, without asking anyone: a server
// that needs the person's say is left out) and the file's errors before the change. A zero
// editCheck checks nothing.
func startEditCheck(ctx context.Context, env *Env, t fileTarget) editCheck {
	if env.Code == nil {
		return editCheck{}
	}
	client := withinWait(ctx, func(ctx context.Context) *lsp.Client {
		// Started apart from ctx: a start cut short would be thrown away and paid again.
		c, err := env.Code.Client(context.WithoutCancel(ctx), t.abs, lsp.Caller{Trusted: env.Approver.FolderTrusted()})
		if err != nil {
			return nil
		}
		return c
	})
	if client == nil {
		return editCheck{}
	}
	check := editCheck{client: client, abs: t.abs, rel: t.rel, before: map[string]int{}}
	if t.existed {
		problems, ok := check.errors(ctx)
		if !ok {
			return editCheck{}
		}
		for _, p := range problems {
			check.before[p.Message]++
		}
	}
	return check
}

// errors are the file's errors now, or false when the server did not say in time.
func (c editCheck) errors(ctx context.Context) ([]lsp.Problem, bool) {
	problems, ok, err := c.client.Problems(ctx, c.abs, editCheckWait)
	if err != nil || !ok {
		return nil, false
	}
	var errs []lsp.Problem
	for _, p := range problems {
		if p.Severity == "error" {
			errs = append(errs, p)
		}
	}
	return errs, true
}

// finish adds the errors the change brought in to res.
func (c editCheck) finish(ctx context.Context, res *Result) {
	if c.client == nil {
		return
	}
	after, ok := c.errors(ctx)
	if !ok {
		return
	}
	seen := map[string]int{}
	var fresh []lsp.Problem
	for _, p := range after {
		if seen[p.Message]++; seen[p.Message] > c.before[p.Message] {
			fresh = append(fresh, p)
		}
	}
	if len(fresh) == 0 {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n\n%s found %s in %s that this change brought in; fix them next:\n", c.client.Name(), plural(len(fresh), "error"), c.rel)
	for i, p := range fresh {
		if i == maxNewErrors {
			fmt.Fprintf(&b, "(%d more)\n", len(fresh)-i)
			break
		}
		fmt.Fprintf(&b, "%s:%d:%d %s\n", c.rel, p.Start.Line, p.Start.Char, p.Message)
		res.Meta.Problems = append(res.Meta.Problems, Problem{Line: p.Start.Line, Message: p.Message})
	}
	res.Content += strings.TrimRight(b.String(), "\n")
}

// withinWait runs f, giving up on its answer after editCheckWait or when ctx ends.
func withinWait[T any](ctx context.Context, f func(context.Context) T) T {
	done := make(chan T, 1)
	go func() { done <- f(ctx) }()
	timer := time.NewTimer(editCheckWait)
	defer timer.Stop()
	select {
	case v := <-done:
		return v
	case <-timer.C:
	case <-ctx.Done():
	}
	var zero T
	return zero
}
