package mcp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/mcp/mcptest"
	"gantry/internal/tools"
)

func testServer(t *testing.T) string { return mcptest.Build(t) }

// events collects a manager's events and lets a test wait for one.
type eventLog struct {
	mu   sync.Mutex
	all  []Event
	news chan struct{}
}

func newEventLog() *eventLog { return &eventLog{news: make(chan struct{}, 1000)} }

func (l *eventLog) add(e Event) {
	l.mu.Lock()
	l.all = append(l.all, e)
	l.mu.Unlock()
	l.news <- struct{}{}
}

// waitFor blocks until an event matching f arrived.
func (l *eventLog) waitFor(t *testing.T, f func(Event) bool) Event {
	t.Helper()
	for seen := 0; ; {
		l.mu.Lock()
		for ; seen < len(l.all); seen++ {
			if f(l.all[seen]) {
				e := l.all[seen]
				l.mu.Unlock()
				return e
			}
		}
		l.mu.Unlock()
		<-l.news
	}
}

// fixture is a project with a manager whose settings a test sets.
type fixture struct {
	t        *testing.T
	root     string
	notes    string
	m        *Manager
	events   *eventLog
	failures *FailureLog

	mu       sync.Mutex
	settings json.RawMessage
	trusted  bool
}

func newFixture(t *testing.T, servers map[string]any) *fixture {
	t.Helper()
	f := &fixture{t: t, root: t.TempDir(), notes: t.TempDir(), events: newEventLog()}
	f.failures = OpenFailureLog(filepath.Join(t.TempDir(), "mcp-failures.jsonl"))
	f.setServers(servers)
	f.m = NewManager(Options{
		Root: f.root, Version: "test",
		Settings: func() json.RawMessage { f.mu.Lock(); defer f.mu.Unlock(); return f.settings },
		Trusted:  func() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.trusted },
		Changed:  f.events.add, Failures: f.failures,
	})
	t.Cleanup(f.m.Close)
	return f
}

func (f *fixture) setServers(servers map[string]any) {
	raw, err := json.Marshal(servers)
	require.NoError(f.t, err)
	f.mu.Lock()
	f.settings = raw
	f.mu.Unlock()
}

// stdio is a settings entry for the test server over stdio.
func (f *fixture) stdio(extra map[string]any) map[string]any {
	e := map[string]any{"command": testServer(f.t), "args": []string{"--dir", f.notes}}
	for k, v := range extra {
		e[k] = v
	}
	return e
}

// registry is a run's registry over the manager's tools, approving through approver.
func (f *fixture) registry(approver tools.Approver) *tools.Registry {
	f.t.Helper()
	ext := f.m.RunTools(context.Background(), approver, nil)
	reg, err := tools.NewRegistry().Extend(ext)
	require.NoError(f.t, err)
	return reg
}

func (f *fixture) status(name string) Status {
	f.t.Helper()
	all, _, _ := f.m.Statuses()
	for _, s := range all {
		if s.Name == name {
			return s
		}
	}
	f.t.Fatalf("no server %s", name)
	return Status{}
}

// output records what a call shows live.
type output struct {
	mu     sync.Mutex
	chunks []string
	first  chan struct{}
	once   sync.Once
}

func newOutput() *output { return &output{first: make(chan struct{})} }

func (o *output) Action(tools.Action) {}

func (o *output) Stream(chunk []byte) {
	o.mu.Lock()
	o.chunks = append(o.chunks, string(chunk))
	o.mu.Unlock()
	o.once.Do(func() { close(o.first) })
}

func (o *output) text() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := ""
	for _, c := range o.chunks {
		s += c
	}
	return s
}

var allowAll = tools.PolicyApprover{AllowCommands: true, AllowEdits: true}

func run(t *testing.T, reg *tools.Registry, name string, args map[string]any) tools.Result {
	t.Helper()
	res := reg.RunBatch(context.Background(), t.TempDir(), []tools.Call{{ID: "0", Name: name, Args: args}}, nil)
	require.NoError(t, res[0].Err)
	return res[0].Result
}
