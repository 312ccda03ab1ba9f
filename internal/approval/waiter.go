package approval

import "context"

// Waiter hears about an approval that waits for a person, so whoever made the request can show
// it waiting: Waiting is called just before approvalRequested is stored and Answered just after
// approvalResolved, in the requester's goroutine, so whatever they emit lands in the event log
// in that order. The agent's tool runner gives each tool call its own Waiter through the
// call's context; a request without one is simply not announced.
type Waiter interface {
	Waiting(ctx context.Context)
	// Answered reports how it ended: allowed, or denied (by the person or a cancelled ctx).
	Answered(ctx context.Context, allowed bool)
}

type waiterKey struct{}

// WithWaiter returns ctx carrying w for the approvals requested under it.
func WithWaiter(ctx context.Context, w Waiter) context.Context {
	return context.WithValue(ctx, waiterKey{}, w)
}

// waiterOf is ctx's Waiter, or one that hears nothing.
func waiterOf(ctx context.Context) Waiter {
	if w, ok := ctx.Value(waiterKey{}).(Waiter); ok {
		return w
	}
	return noWaiter{}
}

type noWaiter struct{}

func (noWaiter) Waiting(context.Context)        {}
func (noWaiter) Answered(context.Context, bool) {}
