package agent

import (
	"context"
	"sync"

	"gantry/internal/events"
)

// Runs share one local Ollama: the session's foreground run, its background subagents and the
// runs of other sessions. A small machine serves one request at a time (OLLAMA_NUM_PARALLEL=1),
// and requests sent together would only make each other slow, a load evict another's model, or
// time out in Ollama's own queue with nothing said. So the app lets a set number of model
// requests go at once and lines the others up in the order they came, and a run that waits in
// line says so (ModelWaiting, phase queued) instead of looking hung.

// ModelQueue lets at most its capacity of model requests go to Ollama at once; the others wait
// in line, first come first served. The zero value and nil let every request go at once. It is
// safe for concurrent use.
type ModelQueue struct {
	mu       sync.Mutex
	capacity int
	busy     int          // requests going on
	line     []*queueSlot // requests waiting, oldest first
}

// queueSlot is one request waiting in line; ready is closed once it may go.
type queueSlot struct {
	ready   chan struct{}
	granted bool
}

// DefaultModelRequests is how many model requests go at once when the setting says nothing:
// one, as Ollama serves on most machines a local model runs on.
const DefaultModelRequests = 1

// NewModelQueue returns a queue letting capacity requests go at once (below 1: the default).
func NewModelQueue(capacity int) *ModelQueue {
	q := &ModelQueue{}
	q.SetCapacity(capacity)
	return q
}

// SetCapacity changes how many requests may go at once (below 1: the default). More room lets
// the first in line go at once; less lets the requests going on finish.
func (q *ModelQueue) SetCapacity(n int) {
	if q == nil {
		return
	}
	if n < 1 {
		n = DefaultModelRequests
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.capacity = n
	for q.busy < q.capacity && len(q.line) > 0 {
		q.grantLocked()
	}
}

// Acquire waits for the request's turn and returns what ends it, to be called once the request
// is done. When the request must wait, queued is called first (from this goroutine). A request
// whose ctx ends while it waits leaves the line at once, with ctx's error.
func (q *ModelQueue) Acquire(ctx context.Context, queued func()) (release func(), err error) {
	if q == nil {
		return func() {}, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q.mu.Lock()
	if q.capacity == 0 || (q.busy < q.capacity && len(q.line) == 0) {
		q.busy++
		q.mu.Unlock()
		return q.releaser(), nil
	}
	slot := &queueSlot{ready: make(chan struct{})}
	q.line = append(q.line, slot)
	q.mu.Unlock()

	if queued != nil {
		queued()
	}
	select {
	case <-slot.ready:
		return q.releaser(), nil
	case <-ctx.Done():
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if slot.granted {
		// Its turn came as it was cancelled: the next in line takes it.
		q.releaseLocked()
	} else {
		for i, s := range q.line {
			if s == slot {
				q.line = append(q.line[:i], q.line[i+1:]...)
				break
			}
		}
	}
	return nil, ctx.Err()
}

// Waiting is how many requests wait in line now.
func (q *ModelQueue) Waiting() int {
	if q == nil {
		return 0
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.line)
}

// releaser ends a request once, however often it is called.
func (q *ModelQueue) releaser() func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			q.mu.Lock()
			defer q.mu.Unlock()
			q.releaseLocked()
		})
	}
}

// releaseLocked ends a request: its room goes to the first in line, if the capacity still has
// it.
func (q *ModelQueue) releaseLocked() {
	q.busy--
	for q.busy < q.capacity && len(q.line) > 0 {
		q.grantLocked()
	}
}

// grantLocked lets the first in line go.
func (q *ModelQueue) grantLocked() {
	slot := q.line[0]
	q.line = q.line[1:]
	slot.granted = true
	q.busy++
	close(slot.ready)
}

// takeModel waits for the run's turn at the model (Deps.Queue); while it waits in line, the
// person is told that another task is using the model. The returned func ends the turn.
func (a *agentRun) takeModel(ctx context.Context) (func(), error) {
	return a.deps.Queue.Acquire(ctx, func() {
		a.emit.state(ctx, events.ModelWaiting, ModelWaitingPayload{Phase: WaitQueued, Model: a.req.Model})
	})
}
