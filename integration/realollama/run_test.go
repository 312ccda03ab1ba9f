//go:build realollama

package realollama

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/llm"
)

// A whole headless run on each model: the path its capabilities select, the gibberish answer
// as the final message, and both the task and the answer in the database.
func TestHeadlessRunEndsWithTheAnswer(t *testing.T) {
	s := server(t)
	for model, path := range map[string]string{ModelText: "text", ModelTools: "native"} {
		t.Run(path, func(t *testing.T) {
			d := newGantryDirs(t)
			res := gantryRun(t, s.Addr, d, model, "Say hello to the README.", nil)
			require.Equal(t, 0, res.code, res.stderr)

			started := res.payloads("runStarted")
			require.Len(t, started, 1)
			require.Equal(t, path, started[0]["toolPath"])
			require.Equal(t, model, started[0]["model"])

			final := res.final()
			require.Equal(t, "final", final["type"])
			require.Equal(t, "done", final["status"])
			answer, _ := final["message"].(string)
			require.NotEmpty(t, strings.TrimSpace(answer))
			require.Nil(t, final["truncated"], "the stop sequence ended it: not cut")
			require.NotEmpty(t, res.payloads("assistantText"), "the answer streamed")

			msgs := storedMessages(t, d)
			require.Len(t, msgs, 2)
			require.Equal(t, "user", msgs[0].Role)
			require.Contains(t, msgs[0].Content, "Say hello to the README.")
			require.Equal(t, "assistant", msgs[1].Role)
			require.Contains(t, msgs[1].Content, strings.TrimSpace(answer))
		})
	}
}

func TestHeadlessRunReportsACutAnswer(t *testing.T) {
	d := newGantryDirs(t)
	res := gantryRun(t, server(t).Addr, d, ModelShort, "Tell me a long story.", nil)
	require.Equal(t, 0, res.code, res.stderr)
	final := res.final()
	require.Equal(t, "done", final["status"])
	require.Equal(t, true, final["truncated"])
	require.NotEmpty(t, final["message"])
	finished := res.payloads("runFinished")
	require.Len(t, finished, 1)
	require.Equal(t, true, finished[0]["truncated"], "the UI's event says so too")
}

func TestHeadlessRunWithAnUnknownModel(t *testing.T) {
	d := newGantryDirs(t)
	res := gantryRun(t, server(t).Addr, d, "qwen3:4b", "Say hello.", nil)
	require.Equal(t, 1, res.code)
	final := res.final()
	require.Equal(t, "failed", final["status"])
	msg, _ := final["message"].(string)
	require.Contains(t, msg, `"qwen3:4b" is not installed`)
	for _, m := range []string{ModelLong, ModelShort, ModelText, ModelTools} {
		require.Contains(t, msg, m)
	}
	require.Equal(t, "user", storedMessages(t, d)[0].Role, "the task is kept")
}

// Faults, made real: the server dies mid-answer, is down for the next run, then comes back.
func TestServerKilledStoppedAndBack(t *testing.T) {
	s := ownServer(t)
	d := newGantryDirs(t)
	ctx := context.Background()
	c := client(s) // one client throughout, as the app keeps one

	// 1. SIGKILL while the answer streams: the run fails and says why; what streamed is kept.
	var once sync.Once
	killed := make(chan error, 1)
	res := gantryRun(t, s.Addr, d, ModelLong, "Write a very long story.", func(line map[string]any) {
		if line["type"] == "assistantText" {
			once.Do(func() { killed <- s.Kill() })
		}
	})
	select {
	case err := <-killed:
		require.NoError(t, err)
	default:
		t.Fatal("no answer streamed before the run ended")
	}
	require.Equal(t, 1, res.code)
	require.Equal(t, "failed", res.final()["status"])
	require.Contains(t, res.final()["message"], "Ollama stopped answering in the middle of the reply")
	msgs := storedMessages(t, d)
	require.Len(t, msgs, 2)
	require.Equal(t, "assistant", msgs[1].Role)
	require.NotEmpty(t, msgs[1].Content, "the part that streamed is kept")

	// 2. Stopped before a run: status and run both say it is not reachable, and where.
	st := llm.CheckStatus(ctx, s.URL())
	require.False(t, st.Reachable)
	require.Contains(t, st.Error, "cannot connect to "+s.Addr)
	require.Contains(t, st.Hint, "ollama serve")
	_, err := c.Model(ctx, ModelText)
	requireUnreachable(t, err, s.Addr)

	res = gantryRun(t, s.Addr, d, ModelText, "Say hello.", nil)
	require.Equal(t, 1, res.code)
	require.Equal(t, "failed", res.final()["status"])
	require.Contains(t, res.final()["message"], "Ollama is not reachable at "+s.Addr)

	// 3. Back: the same client finds it again (a failed lookup is not cached), the next run
	// works and nothing stored before is lost.
	require.NoError(t, s.Restart(ctx))
	st = llm.CheckStatus(ctx, s.URL())
	require.True(t, st.Reachable, st.Error)
	info, err := c.Model(ctx, ModelText)
	require.NoError(t, err)
	require.False(t, info.Capabilities.Tools)
	res = gantryRun(t, s.Addr, d, ModelText, "Say hello again.", nil)
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, "done", res.final()["status"])

	after := storedMessages(t, d)
	require.Equal(t, msgs, after[:len(msgs)], "the killed run's messages are intact")
	var roles []string
	for _, m := range after[len(msgs):] {
		roles = append(roles, m.Role)
	}
	require.Equal(t, []string{"user", "user", "assistant"}, roles, "the failed run's task, then the run that worked")
}

// A chat cut by a crash: the client reports a cut stream, not a finished answer.
func TestChatCutBySIGKILL(t *testing.T) {
	s := ownServer(t)
	c := client(s)
	var once sync.Once
	resp, err := c.Chat(context.Background(), llm.ChatRequest{Model: ModelLong, Messages: hello()}, func(llm.Chunk) error {
		once.Do(func() { require.NoError(t, s.Kill()) })
		return nil
	})
	require.ErrorIs(t, err, llm.ErrStreamCut)
	require.NotEmpty(t, resp.Content, "what arrived is returned")
	require.Empty(t, resp.DoneReason)
}
