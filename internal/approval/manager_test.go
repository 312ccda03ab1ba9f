package approval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"gantry/internal/diff"
	"gantry/internal/events"
	"gantry/internal/safety"
	"gantry/internal/trust"
)

// recorder is an EmitFunc that keeps every event and hands out requested IDs.
type recorder struct {
	mu        sync.Mutex
	events    []recordedEvent
	requested chan Card
}

type recordedEvent struct {
	Scope   events.Scope
	Type    events.Type
	Payload any
	CtxErr  error // the emitting context's error: a resolved event must not be sent on a dead one
}

func newRecorder() *recorder { return &recorder{requested: make(chan Card, 64)} }

func (r *recorder) emit(ctx context.Context, scope events.Scope, typ events.Type, payload any) error {
	r.mu.Lock()
	r.events = append(r.events, recordedEvent{Scope: scope, Type: typ, Payload: payload, CtxErr: ctx.Err()})
	r.mu.Unlock()
	if p, ok := payload.(Card); ok {
		r.requested <- p
	}
	return nil
}

func (r *recorder) all() []recordedEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recordedEvent(nil), r.events...)
}

// resolved returns the approvalResolved payloads for id.
func (r *recorder) resolved(id string) []ResolvedPayload {
	var out []ResolvedPayload
	for _, e := range r.all() {
		if p, ok := e.Payload.(ResolvedPayload); ok && p.ID == id {
			out = append(out, p)
		}
	}
	return out
}

// nextRequest waits for the next approvalRequested event.
func (r *recorder) nextRequest(t *testing.T) Card {
	t.Helper()
	select {
	case p := <-r.requested:
		return p
	case <-time.After(5 * time.Second):
		t.Fatal("no approval was requested")
		return Card{}
	}
}

// requireNoRequest checks that nothing was asked.
func (r *recorder) requireNoRequest(t *testing.T) {
	t.Helper()
	select {
	case p := <-r.requested:
		t.Fatalf("unexpected approval request %+v", p)
	default:
	}
}

type result struct {
	d   Decision
	err error
}

// requestAsync runs Request in a goroutine and returns where its result arrives.
func requestAsync(ctx context.Context, m *Manager, req Request) <-chan result {
	done := make(chan result, 1)
	go func() {
		d, err := m.Request(ctx, req)
		done <- result{d, err}
	}()
	return done
}

func waitResult(t *testing.T, done <-chan result, within time.Duration) result {
	t.Helper()
	select {
	case r := <-done:
		return r
	case <-time.After(within):
		t.Fatalf("Request did not return within %v", within)
		return result{}
	}
}

func commandRequest(cmd string) Request {
	return Request{
		Card:  Card{Kind: KindCommand, Command: cmd, Cwd: "/ws", Severity: safety.SeverityMedium, Reason: "installs packages"},
		Scope: events.Scope{SessionID: "s1", RunID: "r1"}, Workspace: "/ws",
	}
}

func TestRespondFirstAnswerWins(t *testing.T) {
	t.Parallel()
	rec := newRecorder()
	m := NewManager(rec.emit, &MemoryRuleStore{}, &trust.Memory{}, Policy{})
	done := requestAsync(t.Context(), m, commandRequest("npm install"))
	id := rec.nextRequest(t).ID

	const responders = 16
	errs := make([]error, responders)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range responders {
		wg.Go(func() {
			<-start
			errs[i] = m.Respond(id, Decision{Allowed: i%2 == 0, Message: fmt.Sprint(i)})
		})
	}
	close(start)
	wg.Wait()

	winner := -1
	for i, err := range errs {
		if err == nil {
			require.Equal(t, -1, winner, "two answers were accepted")
			winner = i
			continue
		}
		require.ErrorIs(t, err, ErrAlreadyResolved)
	}
	require.NotEqual(t, -1, winner)

	r := waitResult(t, done, 5*time.Second)
	require.NoError(t, r.err)
	require.Equal(t, Decision{Allowed: winner%2 == 0, Message: fmt.Sprint(winner)}, r.d)
	require.Len(t, rec.resolved(id), 1)
	require.ErrorIs(t, m.Respond(id, Decision{Allowed: true}), ErrAlreadyResolved)
}

func TestRespondUnknownID(t *testing.T) {
	t.Parallel()
	m := NewManager(newRecorder().emit, &MemoryRuleStore{}, &trust.Memory{}, Policy{})
	require.ErrorIs(t, m.Respond("nope", Decision{Allowed: true}), ErrUnknown)
	_, ok := m.Pending("nope")
	require.False(t, ok)
}

func TestCancelDeniesAndResolvesOnce(t *testing.T) {
	t.Parallel()
	rec := newRecorder()
	m := NewManager(rec.emit, &MemoryRuleStore{}, &trust.Memory{}, Policy{})
	ctx, cancel := context.WithCancel(t.Context())
	done := requestAsync(ctx, m, commandRequest("npm install"))
	id := rec.nextRequest(t).ID

	cancel()
	r := waitResult(t, done, time.Second)
	require.ErrorIs(t, r.err, context.Canceled)
	require.Equal(t, Decision{Allowed: false, Message: "cancelled"}, r.d)

	require.Equal(t, []ResolvedPayload{{ID: id, Outcome: OutcomeCancelled}}, rec.resolved(id))
	for _, e := range rec.all() {
		require.NoError(t, e.CtxErr, "%s was emitted on a cancelled context, which the emitter refuses", e.Type)
	}
	require.ErrorIs(t, m.Respond(id, Decision{Allowed: true}), ErrAlreadyResolved)
	_, ok := m.Pending(id)
	require.False(t, ok)
}

func TestRequestOnCancelledContextAsksNobody(t *testing.T) {
	t.Parallel()
	rec := newRecorder()
	m := NewManager(rec.emit, &MemoryRuleStore{}, &trust.Memory{}, Policy{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	d, err := m.Request(ctx, commandRequest("ls"))
	require.ErrorIs(t, err, context.Canceled)
	require.False(t, d.Allowed)
	require.Empty(t, rec.all())
}

func TestRequestFailsWhenTheEventCannotBeStored(t *testing.T) {
	t.Parallel()
	broken := errors.New("database closed")
	m := NewManager(func(context.Context, events.Scope, events.Type, any) error { return broken }, &MemoryRuleStore{}, &trust.Memory{}, Policy{})
	d, err := m.Request(t.Context(), commandRequest("ls"))
	require.ErrorIs(t, err, broken)
	require.False(t, d.Allowed)
}

func TestEventsComeInOrderWithSmallPayloads(t *testing.T) {
	t.Parallel()
	rec := newRecorder()
	m := NewManager(rec.emit, &MemoryRuleStore{}, &trust.Memory{}, Policy{})
	req := Request{
		Card:   Card{Kind: KindEdit, Path: ".env", Existed: true, Sensitive: true, Rule: ".env"},
		Before: "A=1\n", After: "A=2\n",
		Scope: events.Scope{SessionID: "s1", RunID: "r1"}, Workspace: "/ws",
	}
	done := requestAsync(t.Context(), m, req)
	id := rec.nextRequest(t).ID

	pending, ok := m.Pending(id)
	require.True(t, ok)
	require.Equal(t, "A=1\n", pending.Before)
	require.Equal(t, "A=2\n", pending.After)

	require.ErrorContains(t, m.Respond(id, Decision{Allowed: true, Always: true}), "sensitive file", "a sensitive file asks every time")
	require.NoError(t, m.Respond(id, Decision{Allowed: false, Message: "keep it at 1"}))
	r := waitResult(t, done, 5*time.Second)
	require.NoError(t, r.err)
	require.Equal(t, Decision{Message: "keep it at 1"}, r.d)

	evs := rec.all()
	require.Len(t, evs, 2)
	require.Equal(t, EventRequested, evs[0].Type)
	require.Equal(t, EventResolved, evs[1].Type)
	for _, e := range evs {
		require.Equal(t, req.Scope, e.Scope)
	}
	require.Equal(t, Card{ID: id, Kind: KindEdit, Path: ".env", Existed: true, Sensitive: true, Rule: ".env"}, evs[0].Payload)
	require.Equal(t, ResolvedPayload{ID: id, Outcome: OutcomeDenied, Message: "keep it at 1"}, evs[1].Payload)
	raw, err := json.Marshal(evs[0].Payload)
	require.NoError(t, err)
	require.NotContains(t, string(raw), "A=2", "file contents must not travel in the event")
}

// numberedLines returns "line 1\n" … "line n\n" with the given lines replaced.
func numberedLines(n int, replace map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if s, ok := replace[i]; ok {
			b.WriteString(s + "\n")
			continue
		}
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestAcceptWithChanges(t *testing.T) {
	t.Parallel()
	before := numberedLines(40, nil)
	after := numberedLines(40, map[int]string{2: "CHANGED 2", 20: "CHANGED 20", 38: "CHANGED 38"})
	require.Len(t, diff.Hunks(before, after, diff.DefaultContext), 3, "the test needs three separate hunks")
	edited := "the person's own text\n"

	cases := []struct {
		name string
		d    Decision
		want string
		edit bool
	}{
		{"edited content", Decision{Allowed: true, Content: &edited}, edited, true},
		{"first and last hunk", Decision{Allowed: true, AcceptedHunks: []int{2, 0}}, numberedLines(40, map[int]string{2: "CHANGED 2", 38: "CHANGED 38"}), true},
		{"every hunk", Decision{Allowed: true, AcceptedHunks: []int{0, 1, 2}}, after, false},
		{"no hunk", Decision{Allowed: true, AcceptedHunks: []int{}}, before, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder()
			m := NewManager(rec.emit, &MemoryRuleStore{}, &trust.Memory{}, Policy{})
			done := requestAsync(t.Context(), m, Request{Card: Card{Kind: KindEdit, Path: "a.txt", Existed: true}, Before: before, After: after, Workspace: "/ws"})
			id := rec.nextRequest(t).ID
			require.NoError(t, m.Respond(id, tc.d))
			r := waitResult(t, done, 5*time.Second)
			require.NoError(t, r.err)
			require.True(t, r.d.Allowed)
			require.NotNil(t, r.d.Content)
			require.Equal(t, tc.want, *r.d.Content)
			require.Nil(t, r.d.AcceptedHunks)
			require.Equal(t, []ResolvedPayload{{ID: id, Outcome: OutcomeAllowed, Edited: tc.edit}}, rec.resolved(id))
		})
	}
}

func TestRespondRefusesAnswersThatCannotApply(t *testing.T) {
	t.Parallel()
	rec := newRecorder()
	m := NewManager(rec.emit, &MemoryRuleStore{}, &trust.Memory{}, Policy{})
	text := "x\n"

	cmdDone := requestAsync(t.Context(), m, commandRequest("npm install"))
	cmdID := rec.nextRequest(t).ID
	editDone := requestAsync(t.Context(), m, Request{Card: Card{Kind: KindEdit, Path: "a.txt"}, Before: "a\n", After: "b\n", Workspace: "/ws"})
	editID := rec.nextRequest(t).ID

	for name, tc := range map[string]struct {
		id string
		d  Decision
	}{
		"content for a command":  {cmdID, Decision{Allowed: true, Content: &text}},
		"always deny":            {cmdID, Decision{Always: true}},
		"unknown scope":          {cmdID, Decision{Allowed: true, Always: true, RuleScope: "galaxy"}},
		"hunk that is not there": {editID, Decision{Allowed: true, AcceptedHunks: []int{5}}},
		"content and hunks":      {editID, Decision{Allowed: true, Content: &text, AcceptedHunks: []int{0}}},
		"content with a denial":  {editID, Decision{Content: &text}},
	} {
		require.Error(t, m.Respond(tc.id, tc.d), name)
	}

	// Refused answers leave the approvals waiting for a proper one.
	require.NoError(t, m.Respond(cmdID, Decision{Allowed: true}))
	require.NoError(t, m.Respond(editID, Decision{Allowed: true, AcceptedHunks: []int{0}}))
	require.True(t, waitResult(t, cmdDone, 5*time.Second).d.Allowed)
	r := waitResult(t, editDone, 5*time.Second)
	require.Equal(t, "b\n", *r.d.Content)
}

func TestAlwaysStoresARule(t *testing.T) {
	t.Parallel()
	rec := newRecorder()
	rules := &MemoryRuleStore{}
	m := NewManager(rec.emit, rules, &trust.Memory{}, Policy{})
	done := requestAsync(t.Context(), m, commandRequest("npm install   left-pad"))
	id := rec.nextRequest(t).ID
	require.NoError(t, m.Respond(id, Decision{Allowed: true, Always: true}))
	require.Equal(t, Decision{Allowed: true, Always: true}, waitResult(t, done, 5*time.Second).d)
	require.Equal(t, []Rule{{Kind: KindCommand, CommandPrefix: "npm install left-pad", Severity: safety.SeverityMedium, Scope: ScopeProject, Workspace: "/ws"}}, rules.Rules())
	require.Equal(t, []ResolvedPayload{{ID: id, Outcome: OutcomeAlwaysAllowed}}, rec.resolved(id))
}

func TestAlwaysStillAllowsOnceWhenTheRuleCannotBeSaved(t *testing.T) {
	t.Parallel()
	blocker := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(blocker, nil, 0o644))
	rec := newRecorder()
	m := NewManager(rec.emit, OpenFileRuleStore(filepath.Join(blocker, "rules.json")), &trust.Memory{}, Policy{})
	done := requestAsync(t.Context(), m, commandRequest("npm install"))
	err := m.Respond(rec.nextRequest(t).ID, Decision{Allowed: true, Always: true, RuleScope: ScopeUser})
	require.ErrorContains(t, err, "allowed this once")
	require.True(t, waitResult(t, done, 5*time.Second).d.Allowed)
}
