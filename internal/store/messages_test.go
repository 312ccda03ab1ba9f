package store

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestMessagesRoundTripInOrder(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	ctx := context.Background()
	s := createSession(t, db, "/ws")
	calls := json.RawMessage(`[{"function":{"name":"read_file","arguments":{"path":"a.go"}}}]`)
	at := time.UnixMilli(time.Now().Add(time.Minute).UnixMilli())
	want := []Message{
		{SessionID: s.ID, RunID: "r1", Role: "system", Content: "You are a coding agent."},
		{SessionID: s.ID, RunID: "r1", Role: "user", Content: "Read a.go"},
		{SessionID: s.ID, RunID: "r1", Role: "assistant", Thinking: "Let me look.", ToolCalls: calls},
		{SessionID: s.ID, RunID: "r1", Role: "tool", ToolName: "read_file", Content: "package a\n", Time: at},
	}
	for i, m := range want {
		seq, err := db.AppendMessage(ctx, m)
		require.NoError(t, err)
		require.Equal(t, int64(i+1), seq)
	}

	got, err := db.Messages(ctx, s.ID)
	require.NoError(t, err)
	require.Len(t, got, len(want))
	for i := range want {
		require.Equal(t, int64(i+1), got[i].Seq)
		require.False(t, got[i].Time.IsZero())
		want[i].Seq, want[i].Time = got[i].Seq, got[i].Time
	}
	require.Equal(t, want, got)
	require.Nil(t, got[0].ToolCalls, "no tool calls stays nil, not an empty JSON value")
	require.Equal(t, at, got[3].Time)

	session, err := db.GetSession(ctx, s.ID)
	require.NoError(t, err)
	require.Equal(t, at, session.UpdatedAt, "a message marks its session active")
}

func TestAppendMessageToUnknownSessionFails(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	_, err := db.AppendMessage(context.Background(), Message{SessionID: "missing", Role: "user"})
	require.Error(t, err)
}

func TestConcurrentAppendsKeepEachSessionContiguous(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	ctx := context.Background()
	sessions := []Session{createSession(t, db, "/a"), createSession(t, db, "/b")}
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Go(func() {
			s := sessions[w%len(sessions)]
			for i := range 20 {
				_, err := db.AppendMessage(ctx, Message{SessionID: s.ID, Role: "user", Content: fmt.Sprintf("%d/%d", w, i)})
				require.NoError(t, err)
			}
		})
	}
	wg.Wait()
	for _, s := range sessions {
		msgs, err := db.Messages(ctx, s.ID)
		require.NoError(t, err)
		require.Len(t, msgs, 60)
		last := map[string]int{}
		for i, m := range msgs {
			require.Equal(t, int64(i+1), m.Seq, "no gaps, no duplicates")
			var w, n int
			_, err := fmt.Sscanf(m.Content, "%d/%d", &w, &n)
			require.NoError(t, err)
			key := fmt.Sprint(w)
			if prev, ok := last[key]; ok {
				require.Greater(t, n, prev, "each writer's messages stay in its order")
			}
			last[key] = n
		}
	}
}
