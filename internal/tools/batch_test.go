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
}

// recorder logs when each call starts and ends, to check what overlapped.
type recorder struct {
	mu     sync.Mutex
	events []string
	active atomic.Int32
	peak   atomic.Int32
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
	r := newBatchRegistry(t, rec)
	root := t.TempDir()
	calls := []Call{call("read", "a", 150), call("read", "b", 10), call("read", "c", 80)}
	start := time.Now()
	res := r.RunBatch(context.Background(), root, calls, nil)
	require.Less(t, time.Since(start), 400*time.Millisecond, "three reads overlapped")
	require.EqualValues(t, 3, rec.peak.Load())
	require.Equal(t, []string{"read a", "read b", "read c"}, []string{res[0].Result.Content, res[1].Result.Content, res[2].Result.Content})
}

func TestEditsOfTheSameFileKeepOrderDifferentFilesOverlap(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	r := newBatchRegistry(t, rec)
	root := t.TempDir()
	r.RunBatch(context.Background(), root, []Call{
		call("edit", "a.go", 80), call("edit", "b.go", 80), call("edit", "./a.go", 10), call("read", "a.go", 0),
	}, nil)
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
	rec := &recorder{}
	r := newBatchRegistry(t, rec)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	res := r.RunBatch(ctx, t.TempDir(), []Call{call("exec", "1", 5000), call("exec", "2", 0)}, nil)
	require.Less(t, time.Since(start), time.Second)
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
