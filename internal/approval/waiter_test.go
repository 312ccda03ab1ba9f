package approval

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/events"
	"gantry/internal/trust"
)

// waiterLog is a Waiter that writes into the recorder's log, so the test sees where its calls
// fall among the events.
type waiterLog struct{ r *recorder }

func (w waiterLog) Waiting(ctx context.Context) { _ = w.r.emit(ctx, events.Scope{}, "waiting", nil) }
func (w waiterLog) Answered(ctx context.Context, allowed bool) {
	_ = w.r.emit(ctx, events.Scope{}, "answered", allowed)
}

func TestWaiterSurroundsTheEvents(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		answer  *Decision // nil: the context is cancelled instead
		allowed bool
	}{
		{"allowed", &Decision{Allowed: true}, true},
		{"denied", &Decision{}, false},
		{"cancelled", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder()
			m := NewManager(rec.emit, &MemoryRuleStore{}, &trust.Memory{}, Policy{Mode: ModeAsk})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			responded := make(chan error, 1)
			go func() {
				card := <-rec.requested
				if tc.answer == nil {
					cancel()
					responded <- nil
					return
				}
				responded <- m.Respond(card.ID, *tc.answer)
			}()
			_, _ = m.Request(WithWaiter(ctx, waiterLog{rec}), Request{Card: Card{Kind: KindCommand, Command: "ls"}})
			require.NoError(t, <-responded)

			var got []string
			for _, e := range rec.all() {
				got = append(got, string(e.Type))
			}
			require.Equal(t, []string{"waiting", string(EventRequested), string(EventResolved), "answered"}, got)
			last := rec.all()[3]
			require.Equal(t, tc.allowed, last.Payload)
			require.NoError(t, last.CtxErr, "Answered gets a live context, so its event is stored")
		})
	}
}
