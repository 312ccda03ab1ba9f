package agent

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/require"

	"gantry/internal/store"
)

// The history's per-message token estimates and encodings stay what messageTokens and
// json.Marshal say of its messages, as they are loaded, added and compacted, and a request sends
// each message with its own encoding.
func TestHistoryMeasuresAndEncodingsFollowItsMessages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := store.Open(ctx, t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	sess, err := db.CreateSession(ctx, store.Session{WorkspacePath: t.TempDir(), Mode: "agent", Model: "m"})
	require.NoError(t, err)
	requireTokens := func(h *history) {
		t.Helper()
		require.Len(t, h.tokens, len(h.msgs))
		require.Len(t, h.encoded, len(h.msgs))
		for i, m := range h.msgs {
			require.Equal(t, messageTokens(h.msgs[i:]), h.tokensFrom(i), "from message %d", i)
			want, err := json.Marshal(m)
			require.NoError(t, err)
			require.Equal(t, string(want), string(h.encoded[i]), "message %d", i)
		}
		conv := h.request("SYSTEM", api.Message{Role: "user", Content: "Summarise."})
		require.Len(t, conv.encoded, len(conv.msgs))
		for i, m := range conv.msgs {
			want, err := json.Marshal(m)
			require.NoError(t, err)
			require.Equal(t, string(want), string(conv.encoded[i]), "request message %d", i)
		}
	}

	h, err := loadHistory(ctx, db, sess.ID, "r1", time.Now)
	require.NoError(t, err)
	call := api.ToolCall{Function: api.ToolCallFunction{Name: "read_file", Arguments: api.NewToolCallFunctionArguments()}}
	call.Function.Arguments.Set("path", "main.go")
	for _, m := range []api.Message{
		{Role: "user", Content: "read main.go and tell me what it does"},
		{Role: "assistant", Thinking: "The person wants a summary.", ToolCalls: []api.ToolCall{call}},
		{Role: "tool", ToolName: "read_file", Content: "package main\n\nfunc main() {}\n"},
		{Role: "assistant", Content: "It does nothing yet."},
	} {
		require.NoError(t, h.add(ctx, m))
	}
	requireTokens(h)

	again, err := loadHistory(ctx, db, sess.ID, "r2", time.Now)
	require.NoError(t, err)
	requireTokens(again)
	require.Equal(t, h.tokensFrom(0), again.tokensFrom(0))

	again.replaceBefore(3, []api.Message{{Role: "user", Content: "Summary of the conversation so far: main.go was read."}})
	requireTokens(again)
}
