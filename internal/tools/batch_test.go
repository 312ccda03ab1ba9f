package tools

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type stepParams struct {
	Path  string `json:"path,omitempty"`
	Delay int    `json:"delay,omitempty"`
	Fail  bool   `json:"fail,omitempty"`
	Panic bool   `json:"panic,omitempty"`
	// Together: the call waits until every call of the batch marked so has started, so they
	// can only finish if they run at the same time.
	Together bool `json:"together,omitempty"`
}

// recorder logs when each call starts and ends, to check what overlapped.
type recorder struct {
	mu     sync.Mutex
	events []string
	active atomic.Int32
	peak   atomic.Int32
	// together is how many calls wait for each other (see stepParams.Together); allIn is
	// closed when the last of them has started.
	together, arrived int
	allIn             chan struct{}
	// running, when set, hears each call's "name path" once it is under way.
	running chan string
}

// expectTogether makes the next n calls marked Together wait for each other.
func (r *recorder) expectTogether(n int) {
	r.together, r.allIn = n, make(chan struct{})
}

// arrive counts a Together call in and returns the channel closed once all have arrived.
func (r *recorder) arrive() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.arrived++; r.arrived == r.together {
		close(r.allIn)
	}
	return r.allIn
}

func (r *recorder) log(s string) {
	r.mu.Lock()
	r.events = append(r.events, s)
	r.mu.Unlock()
}

func (r *recorder) tool(name string, kind Kind) Tool {
	return Define(name, kind, name, About{}, func(ctx context.Context, p stepParams, _ Output) (Result, error) {
		n := r.active.Add(1)
		for {
			peak := r.peak.Load()
			if n <= peak || r.peak.CompareAndSwap(peak, n) {
				break
			}
		}
		defer r.active.Add(-1)
		r.log("start " + name + " " + p.Path)
		defer r.log("end " + name + " " + p.Path)
		if p.Panic {
			panic("boom")
		}
		if r.running != nil {
			r.running <- name + " " + p.Path
		}
		if p.Together {
			select {
			case <-r.arrive():
			case <-ctx.Done():
				return Fail(ErrCancelled, "interrupted before the others started"), nil
			}
		}
		select {
		case <-time.After(time.Duration(p.Delay) * time.Millisecond):
		case <-ctx.Done():
			return Fail(ErrCancelled, "interrupted"), nil
		}
		if p.Fail {
			return Result{}, errors.New("disk on fire")
		}
		return Result{Content: name + " " + p.Path}, nil
	})
}

func newBatchRegistry(t *testing.T, rec *recorder) *Registry {
	r := NewRegistry()
	require.NoError(t, r.Register(rec.tool("read", KindRead)))
	require.NoError(t, r.Register(rec.tool("edit", KindEdit)))
	require.NoError(t, r.Register(rec.tool("exec", KindExecute)))
	return r
}

func call(name, path string, delay int) Call {
	return Call{Name: name, Args: map[string]any{"path": path, "delay": delay}}
}

// together is a call that waits until the others marked so have started (see recorder).
func together(name, path string) Call {
	return Call{Name: name, Args: map[string]any{"path": path, "together": true}}
}

// overlapCtx bounds a batch whose calls wait for each other: if they did not run at the same
// time they would wait for ever, and end cancelled after a minute instead.
func overlapCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func indexOf(events []string, e string) int {
	for i, x := range events {
		if x == e {
			return i
		}
	}
	return -1
}

func TestReadsRunTogetherAndResultsKeepOrder(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	rec.expectTogether(3)
	r := newBatchRegistry(t, rec)
	root := t.TempDir()
	calls := []Call{together("read", "a"), together("read", "b"), together("read", "c")}
	res := r.RunBatch(overlapCtx(t), root, calls, nil)
	require.Equal(t, []string{"read a", "read b", "read c"}, []string{res[0].Result.Content, res[1].Result.Content, res[2].Result.Content}, "three reads overlapped")
	require.EqualValues(t, 3, rec.peak.Load())
}

func TestEditsOfTheSameFileKeepOrderDifferentFilesOverlap(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	rec.expectTogether(2)
	r := newBatchRegistry(t, rec)
	root := t.TempDir()
	res := r.RunBatch(overlapCtx(t), root, []Call{
		together("edit", "a.go"), together("edit", "b.go"), call("edit", "./a.go", 10), call("read", "a.go", 0),
	}, nil)
	require.False(t, res[0].Result.Failed(), res[0].Result.Content)
	ev := rec.events
	require.Less(t, indexOf(ev, "end edit a.go"), indexOf(ev, "start edit ./a.go"), "same resolved path in order")
	require.Less(t, indexOf(ev, "start edit b.go"), indexOf(ev, "end edit a.go"), "different files overlap")
	require.Less(t, indexOf(ev, "end edit ./a.go"), indexOf(ev, "start read a.go"), "a read sees earlier edits")
}

func TestCommandsRunOneAtATimeInOrder(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	r := newBatchRegistry(t, rec)
	r.RunBatch(context.Background(), t.TempDir(), []Call{
		call("edit", "a.go", 30), call("exec", "1", 30), call("exec", "2", 0), call("read", "x", 0),
	}, nil)
	ev := rec.events
	require.Less(t, indexOf(ev, "end edit a.go"), indexOf(ev, "start exec 1"))
	require.Less(t, indexOf(ev, "end exec 1"), indexOf(ev, "start exec 2"))
	require.Less(t, indexOf(ev, "end exec 2"), indexOf(ev, "start read x"))
}

func TestFailuresDoNotStopTheOthers(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	r := newBatchRegistry(t, rec)
	res := r.RunBatch(context.Background(), t.TempDir(), []Call{
		{Name: "read", Args: map[string]any{"path": "a", "fail": true}},
		{Name: "nope"},
		{Name: "read", Args: map[string]any{"path": "b", "panic": true}},
		{Name: "read", Args: map[string]any{"delay": "many"}},
		call("read", "ok", 0),
	}, nil)
	require.Equal(t, ErrFailed, res[0].Result.ErrorKind)
	require.Error(t, res[0].Err)
	require.Equal(t, ErrUnknownTool, res[1].Result.ErrorKind)
	require.Equal(t, ErrFailed, res[2].Result.ErrorKind)
	require.Contains(t, res[2].Result.Content, "internal error")
	require.Equal(t, ErrInvalidArguments, res[3].Result.ErrorKind)
	require.False(t, res[4].Result.Failed())
	require.Equal(t, "read ok", res[4].Result.Content)
}

func TestCancelInterruptsRunningAndSkipsTheRest(t *testing.T) {
	t.Parallel()
	rec := &recorder{running: make(chan string, 2)}
	r := newBatchRegistry(t, rec)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-rec.running // the first command is under way
		cancel()
	}()
	// The first command would take an hour: the batch ends because the stop interrupts it.
	res := r.RunBatch(ctx, t.TempDir(), []Call{call("exec", "1", int(time.Hour/time.Millisecond)), call("exec", "2", 0)}, nil)
	require.Equal(t, "interrupted", res[0].Result.Content)
	require.Equal(t, ErrCancelled, res[0].Result.ErrorKind)
	require.Equal(t, ErrCancelled, res[1].Result.ErrorKind)
	require.Equal(t, -1, indexOf(rec.events, "start exec 2"), "a call that had not started never starts")
}

type countingObserver struct {
	mu       sync.Mutex
	started  []int
	finished []int
}

func (o *countingObserver) Started(i int, _ Call) {
	o.mu.Lock()
	o.started = append(o.started, i)
	o.mu.Unlock()
}
func (o *countingObserver) Output(int) Output { return Discard }
func (o *countingObserver) Finished(i int, _ CallResult) {
	o.mu.Lock()
	o.finished = append(o.finished, i)
	o.mu.Unlock()
}

func TestObserverHearsEveryCall(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	r := newBatchRegistry(t, rec)
	obs := &countingObserver{}
	r.RunBatch(context.Background(), t.TempDir(), []Call{call("read", "a", 0), {Name: "nope"}, call("edit", "b", 0)}, obs)
	require.ElementsMatch(t, []int{0, 1, 2}, obs.started)
	require.ElementsMatch(t, []int{0, 1, 2}, obs.finished)
}
