package agent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/require"

	"gantry/internal/events"
	"gantry/internal/llm/fakeollama"
	"gantry/internal/store"
)

// queueWait bounds each wait of these tests, so that a broken queue fails them instead of
// hanging; nothing here waits for time to pass, so it is long: a busy machine never reaches it.
const queueWait = 2 * time.Minute

func TestModelQueueLetsItsCapacityGoAndLinesUpTheRestInOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q := NewModelQueue(0)
	first, err := q.Acquire(ctx, func() { t.Error("the first request waited") })
	require.NoError(t, err)

	var mu sync.Mutex
	var order []string
	started := map[string]chan struct{}{}
	done := make(chan struct{}, 3)
	for _, name := range []string{"b", "c", "d"} {
		queued := make(chan struct{})
		started[name] = queued
		go func() {
			release, err := q.Acquire(ctx, func() { close(queued) })
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			release()
			done <- struct{}{}
		}()
		<-queued // in line before the next one comes
	}
	require.Equal(t, 3, q.Waiting())
	first()
	first() // a second call changes nothing
	for range 3 {
		<-done
	}
	require.Equal(t, []string{"b", "c", "d"}, order)
	require.Zero(t, q.Waiting())
}

func TestModelQueueLetsACancelledRequestLeaveTheLine(t *testing.T) {
	t.Parallel()
	q := NewModelQueue(1)
	hold, err := q.Acquire(context.Background(), nil)
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	queued := make(chan struct{})
	gone := make(chan error, 1)
	go func() {
		_, err := q.Acquire(ctx, func() { close(queued) })
		gone <- err
	}()
	<-queued
	cancel()
	require.ErrorIs(t, <-gone, context.Canceled, "it leaves while the model is still taken")
	require.Zero(t, q.Waiting())

	// Its place is not kept: the next request gets the model once it is free.
	next := make(chan struct{})
	go func() {
		defer close(next)
		release, err := q.Acquire(context.Background(), nil)
		if err != nil {
			t.Error(err)
			return
		}
		release()
	}()
	hold()
	<-next

	// A request cancelled before it asks never takes the model.
	_, err = q.Acquire(ctx, nil)
	require.ErrorIs(t, err, context.Canceled)
}

func TestModelQueueWithMoreRoomLetsTheLineGo(t *testing.T) {
	t.Parallel()
	q := NewModelQueue(1)
	hold, err := q.Acquire(context.Background(), nil)
	require.NoError(t, err)
	defer hold()
	queued := make(chan struct{})
	got := make(chan func())
	go func() {
		release, err := q.Acquire(context.Background(), func() { close(queued) })
		if err != nil {
			t.Error(err)
			release = func() {}
		}
		got <- release
	}()
	<-queued
	q.SetCapacity(2)
	(<-got)()

	var none *ModelQueue // no queue: every request goes at once
	release, err := none.Acquire(context.Background(), func() { t.Error("a nil queue made a request wait") })
	require.NoError(t, err)
	release()
}

// queueFixture is several sessions sharing one Ollama (the fake, speaking its real protocol)
// through one ModelQueue, as the app's sessions and their subagents do.
type queueFixture struct {
	*runFixture
	queue    *ModelQueue
	sink     *waitWatch
	sessions map[string]string // each run's session
}

func newQueueFixture(t *testing.T, capacity int, turns []fakeollama.Turn) *queueFixture {
	f := newRunFixture(t, turns, allowAll)
	return &queueFixture{runFixture: f, queue: NewModelQueue(capacity), sink: newWaitWatch(f.emitter), sessions: map[string]string{}}
}

// start runs text in a session of its own, in the background; the result comes on the channel.
func (f *queueFixture) start(ctx context.Context, runID, text string) <-chan RunResult {
	f.t.Helper()
	sess, err := f.db.CreateSession(context.Background(), store.Session{WorkspacePath: f.root, Mode: "explore", Model: "coder"})
	require.NoError(f.t, err)
	f.sessions[runID] = sess.ID
	deps := f.runner.deps
	deps.Events, deps.Queue = f.sink, f.queue
	out := make(chan RunResult, 1)
	go func() {
		res, err := NewRunner(deps).Run(ctx, RunRequest{SessionID: sess.ID, RunID: runID, Workspace: f.root, Mode: ModeExplore, Model: "coder", Text: text})
		if err != nil {
			f.t.Error(err)
		}
		out <- res
	}()
	return out
}

// runLog is the stored events of run's session.
func (f *queueFixture) runLog(run string) []events.Event {
	f.t.Helper()
	require.NoError(f.t, f.emitter.Flush(context.Background()))
	evs, err := f.emitter.Replay(context.Background(), f.sessions[run], 0, 100000)
	require.NoError(f.t, err)
	return evs
}

// asked are the first user messages of the chats Ollama was sent, in the order it got them.
func (f *queueFixture) asked() []string {
	var out []string
	for _, r := range f.fake.Requests() {
		out = append(out, firstUser(r))
	}
	return out
}

func firstUser(r api.ChatRequest) string {
	for _, m := range r.Messages {
		if m.Role == "user" {
			return m.Content
		}
	}
	return ""
}

// waitWatch passes the runs' events on and lets a test wait for a run's model waits.
type waitWatch struct {
	EventSink
	mu      sync.Mutex
	phases  map[string][]string // each run's ModelWaiting phases, in order
	changed chan struct{}       // closed at the next phase
}

func newWaitWatch(sink EventSink) *waitWatch {
	return &waitWatch{EventSink: sink, phases: map[string][]string{}, changed: make(chan struct{})}
}

func (w *waitWatch) Emit(ctx context.Context, scope events.Scope, typ events.Type, payload any) (events.Event, error) {
	w.see(scope, typ, payload)
	return w.EventSink.Emit(ctx, scope, typ, payload)
}

// EmitDelta watches progress too: all but the wait in line go this way.
func (w *waitWatch) EmitDelta(ctx context.Context, scope events.Scope, typ events.Type, payload any) error {
	w.see(scope, typ, payload)
	return w.EventSink.EmitDelta(ctx, scope, typ, payload)
}

func (w *waitWatch) see(scope events.Scope, typ events.Type, payload any) {
	if p, ok := payload.(ModelWaitingPayload); ok && typ == events.ModelWaiting {
		w.mu.Lock()
		w.phases[scope.RunID] = append(w.phases[scope.RunID], p.Phase)
		close(w.changed)
		w.changed = make(chan struct{})
		w.mu.Unlock()
	}
}

// waitTimes blocks until run has reported phase n times.
func (w *waitWatch) waitTimes(t *testing.T, run, phase string, n int) {
	t.Helper()
	timeout := time.After(queueWait)
	for {
		w.mu.Lock()
		count, changed := 0, w.changed
		for _, p := range w.phases[run] {
			if p == phase {
				count++
			}
		}
		w.mu.Unlock()
		if count >= n {
			return
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("%s never reported %q %d times: %v", run, phase, n, w.of(run))
		}
	}
}

// firstTo blocks until some run reports phase, and names it.
func (w *waitWatch) firstTo(t *testing.T, phase string) string {
	t.Helper()
	timeout := time.After(queueWait)
	for {
		w.mu.Lock()
		changed := w.changed
		for run, phases := range w.phases {
			if slices.Contains(phases, phase) {
				w.mu.Unlock()
				return run
			}
		}
		w.mu.Unlock()
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("no run reported %q", phase)
		}
	}
}

func (w *waitWatch) of(run string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.phases[run]...)
}

func waitHeld(t *testing.T, fake *fakeollama.Server, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), queueWait)
	defer cancel()
	require.NoError(t, fake.WaitHeld(ctx, name, 1), "no chat held on %q", name)
}

func result(t *testing.T, ch <-chan RunResult) RunResult {
	t.Helper()
	select {
	case res := <-ch:
		return res
	case <-time.After(queueWait):
		t.Fatal("the run did not end")
		return RunResult{}
	}
}

// With room for one request, a run that asks while another's request is with the model waits
// in line and says so; requests go in the order they came, each run's next request lining up
// behind those that came meanwhile.
func TestRunsShareTheModelOneRequestAtATimeInOrder(t *testing.T) {
	t.Parallel()
	alpha := fakeollama.Turn{When: "Alpha question", Hold: "alpha", Chunks: []fakeollama.Chunk{call("read_file", map[string]any{"path": "main.go"})}}
	bravo := textTurn("Bravo answered. [TASK_COMPLETE]")
	bravo.When, bravo.Hold = "Bravo question", "bravo"
	charlie := textTurn("Charlie answered. [TASK_COMPLETE]")
	charlie.When = "Charlie question"
	alphaEnd := textTurn("Alpha answered. [TASK_COMPLETE]")
	alphaEnd.When = "Alpha question"
	f := newQueueFixture(t, 1, []fakeollama.Turn{alpha, bravo, charlie, alphaEnd})
	ctx := context.Background()

	a := f.start(ctx, "run-a", "Alpha question")
	waitHeld(t, f.fake, "alpha") // its request is with the model
	b := f.start(ctx, "run-b", "Bravo question")
	f.sink.waitTimes(t, "run-b", WaitQueued, 1)
	c := f.start(ctx, "run-c", "Charlie question")
	f.sink.waitTimes(t, "run-c", WaitQueued, 1)
	require.Equal(t, []string{"Alpha question"}, f.asked(), "the others wait in Gantry, not in Ollama")
	require.Equal(t, 2, f.queue.Waiting())

	// Alpha's request ends: Bravo, first in line, goes; Alpha's next request lines up behind
	// Charlie.
	f.fake.Release("alpha")
	waitHeld(t, f.fake, "bravo")
	f.sink.waitTimes(t, "run-a", WaitQueued, 1)
	require.Equal(t, []string{"Alpha question", "Bravo question"}, f.asked())
	f.fake.Release("bravo")

	for _, ch := range []<-chan RunResult{a, b, c} {
		res := result(t, ch)
		require.Equal(t, StatusDone, res.Status, res.Message)
	}
	require.Equal(t, []string{"Alpha question", "Bravo question", "Charlie question", "Alpha question"}, f.asked())
	require.Zero(t, f.queue.Waiting())

	// The queued wait comes first, then the run's own: the model loading or reading the prompt.
	require.Equal(t, []string{WaitQueued, WaitPrefill, WaitNone}, f.sink.of("run-b"))
	require.NotContains(t, f.sink.of("run-a")[:2], WaitQueued, "the first run had the model at once")
	var queued ModelWaitingPayload
	for _, ev := range f.runLog("run-c") {
		if ev.Type == events.ModelWaiting {
			queued = payload[ModelWaitingPayload](t, ev)
			break
		}
	}
	require.Equal(t, ModelWaitingPayload{Phase: WaitQueued, Model: "coder"}, queued, "stored like every event")
}

// Stop on a run that waits in line ends it at once, while the model is still taken, and it
// leaves the line: the next request goes when the model is free.
func TestAQueuedRunStopsAtOnceAndLeavesTheLine(t *testing.T) {
	t.Parallel()
	alpha := textTurn("Alpha answered. [TASK_COMPLETE]")
	alpha.When, alpha.Hold = "Alpha question", "alpha"
	charlie := textTurn("Charlie answered. [TASK_COMPLETE]")
	charlie.When = "Charlie question"
	f := newQueueFixture(t, 1, []fakeollama.Turn{alpha, charlie})

	a := f.start(context.Background(), "run-a", "Alpha question")
	waitHeld(t, f.fake, "alpha")
	stop, cancel := context.WithCancel(context.Background())
	b := f.start(stop, "run-b", "Bravo question")
	f.sink.waitTimes(t, "run-b", WaitQueued, 1)
	cancel()
	res := result(t, b)
	require.Equal(t, StatusCancelled, res.Status)
	require.Equal(t, 1, f.fake.Held("alpha"), "stopped while the model was still taken")
	require.Zero(t, f.queue.Waiting(), "out of the line")

	c := f.start(context.Background(), "run-c", "Charlie question")
	f.sink.waitTimes(t, "run-c", WaitQueued, 1)
	f.fake.Release("alpha")
	require.Equal(t, StatusDone, result(t, a).Status)
	require.Equal(t, StatusDone, result(t, c).Status)
	require.Equal(t, []string{"Alpha question", "Charlie question"}, f.asked(), "the stopped run never reached Ollama")

	var finished RunFinishedPayload
	for _, ev := range f.runLog("run-b") {
		if ev.Type == events.RunFinished {
			finished = payload[RunFinishedPayload](t, ev)
		}
	}
	require.Equal(t, StatusCancelled, finished.Status)
	require.True(t, strings.HasPrefix(finished.Message, "Stopped"), finished.Message)
}

// A background subagent shares the model with its parent: with room for one request, whichever
// of them asks second waits in line, and says so, until the other's request has ended.
func TestABackgroundSubagentWaitsInLineWithItsParent(t *testing.T) {
	t.Parallel()
	brief := "Count the functions in main.go"
	f := newSubFixture(t, []fakeollama.Turn{
		{When: parentTask, Chunks: []fakeollama.Chunk{spawnCall(brief, "", true)}},
		{When: brief, Hold: "sub", Chunks: []fakeollama.Chunk{{Content: "One function. [TASK_COMPLETE]"}}},
		{When: parentTask, Hold: "parent", Chunks: []fakeollama.Chunk{{Content: "It is being counted. [TASK_COMPLETE]"}}},
	}, nil)
	q := NewModelQueue(1)
	f.st.Apply(SessionOptions{Queue: q})
	tasks := watch(f.emitter, events.TaskStarted, events.TaskNotification)
	w := newWaitWatch(tasks)
	f.sink = w

	done := make(chan RunResult, 1)
	go func() { done <- f.run(context.Background(), ModeAgent, "run-1", parentTask) }()
	started := payload[TaskStartedPayload](t, tasks.next(t, events.TaskStarted))

	// The parent's next request and the subagent's first race for the model: one gets it.
	queued := w.firstTo(t, WaitQueued)
	require.Contains(t, []string{"run-1", started.RunID}, queued)
	holder := "parent"
	if queued == "run-1" {
		holder = "sub"
	}
	waitHeld(t, f.fake, holder)
	require.Equal(t, 1, f.fake.Held("sub")+f.fake.Held("parent"), "only one request is with the model")
	require.Equal(t, 1, q.Waiting())

	f.fake.Release("sub")
	f.fake.Release("parent")
	res := result(t, done)
	require.Equal(t, StatusDone, res.Status, res.Message)
	n := payload[Notice](t, tasks.next(t, events.TaskNotification))
	require.Equal(t, StatusDone, n.Status)
	require.Zero(t, q.Waiting())
}

// A notice that arrives while the parent waits in line reaches the model with the parent's
// next request: what the model is told is as of its turn, not of when it began to wait.
func TestANoticeThatCameWhileQueuedGoesWithTheNextRequest(t *testing.T) {
	t.Parallel()
	brief := "Count the functions in main.go"
	f := newSubFixture(t, []fakeollama.Turn{
		// The parent starts the task, then waits in a command for the test's word: by then the
		// task has the model.
		{When: parentTask, Chunks: []fakeollama.Chunk{
			spawnCall(brief, "", true),
			call("run_terminal_command", map[string]any{"command": "cat go.fifo"}),
		}},
		{When: brief, Hold: "sub", Chunks: []fakeollama.Chunk{{Content: "One function. [TASK_COMPLETE]"}}},
		{When: parentTask, Chunks: []fakeollama.Chunk{{Content: "The count is in: one. [TASK_COMPLETE]"}}},
	}, nil)
	q := NewModelQueue(1)
	f.st.Apply(SessionOptions{Queue: q})
	w := newWaitWatch(f.emitter)
	f.sink = w
	fifo := filepath.Join(f.root, "go.fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))

	done := make(chan RunResult, 1)
	go func() { done <- f.run(context.Background(), ModeAgent, "run-1", parentTask) }()
	waitHeld(t, f.fake, "sub")
	// Another task gets in line first, so that the model is taken until the notice is out.
	inLine, turn := make(chan struct{}), make(chan func(), 1)
	go func() {
		release, err := q.Acquire(context.Background(), func() { close(inLine) })
		if err != nil {
			t.Error(err)
			release = func() {}
		}
		turn <- release
	}()
	<-inLine
	word, err := os.OpenFile(fifo, os.O_WRONLY, 0) // opens once the command reads
	require.NoError(t, err)
	_, err = word.WriteString("go\n")
	require.NoError(t, err)
	require.NoError(t, word.Close())
	w.waitTimes(t, "run-1", WaitQueued, 1)
	f.fake.Release("sub")
	other := <-turn
	// The task ends, its notice for the parent, while the parent waits in line.
	ctx, cancel := context.WithTimeout(context.Background(), queueWait)
	defer cancel()
	require.NoError(t, f.agents.Wait(ctx))
	other()

	res := result(t, done)
	require.Equal(t, StatusDone, res.Status, res.Message)
	require.Equal(t, "The count is in: one.", res.Message, "no turn of its own was needed")
	reqs := f.fake.Requests()
	require.Len(t, reqs, 3)
	last := reqs[2].Messages[len(reqs[2].Messages)-1]
	require.Contains(t, last.Content, "<task-notification>")
	require.Contains(t, last.Content, "One function.")
}
