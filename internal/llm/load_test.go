package llm

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"gantry/internal/llm/fakeollama"
)

func TestLoadThenRunning(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestClient(t, fakeollama.Script{Models: testModels})
	ctx := t.Context()

	ready, err := c.Running(ctx, "qwen3:4b", 8192)
	require.NoError(t, err)
	require.False(t, ready, "nothing is loaded yet")

	require.NoError(t, c.Load(ctx, "qwen3:4b", 8192, 0))
	ready, err = c.Running(ctx, "qwen3:4b", 8192)
	require.NoError(t, err)
	require.True(t, ready)
	ready, err = c.Running(ctx, "qwen3:4b", 16384)
	require.NoError(t, err)
	require.False(t, ready, "another num_ctx would load it again")

	// The chat after the load finds it loaded: one load in all.
	_, err = c.Chat(ctx, ChatRequest{Model: "qwen3:4b", Messages: userSays("hi"), NumCtx: 8192}, nil)
	require.NoError(t, err)
	require.Equal(t, []fakeollama.Load{{Model: "qwen3:4b", NumCtx: 8192}}, fake.Loads())
}

// A load goes through streamChat like a chat: api.Client would allocate and clear an 8 MB line
// buffer for it, once per run of the agent. Not parallel: the count of bytes is the process's.
func TestLoadAllocatesLittle(t *testing.T) {
	t.Setenv("OLLAMA_AUTH", "") // signed requests go through api.Client
	c, _, _ := newTestClient(t, fakeollama.Script{Models: testModels})
	ctx := t.Context()
	require.NoError(t, c.Load(ctx, "qwen3:4b", 8192, 0)) // the connection, once
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	require.NoError(t, c.Load(ctx, "qwen3:4b", 4096, 0))
	runtime.ReadMemStats(&after)
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(2<<20), "bytes allocated by a load, the fake server's included")
}

// While this process is loading a model, Running says it is not ready, though /api/ps lists it.
func TestRunningWhileThisProcessLoads(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestClient(t, fakeollama.Script{Models: testModels, HoldLoads: "load"})
	ctx := t.Context()
	done := make(chan error, 1)
	go func() { done <- c.Load(ctx, "qwen3:4b", 8192, 0) }()
	require.NoError(t, fake.WaitHeld(ctx, "load", 1))
	ps, err := c.api.ListRunning(ctx)
	require.NoError(t, err)
	require.Len(t, ps.Models, 1)
	ready, err := c.Running(ctx, "qwen3:4b", 8192)
	require.NoError(t, err)
	require.False(t, ready)
	fake.Release("load")
	require.NoError(t, <-done)
	ready, err = c.Running(ctx, "QWEN3:4b", 8192)
	require.NoError(t, err)
	require.True(t, ready, "names match as Ollama matches them")
	ready, err = c.Running(ctx, "qwen3", 8192)
	require.NoError(t, err)
	require.False(t, ready, "qwen3 is qwen3:latest, not qwen3:4b")
}

func TestLoadUnknownModel(t *testing.T) {
	t.Parallel()
	c, _, _ := newTestClient(t, fakeollama.Script{Models: testModels})
	err := c.Load(t.Context(), "nope:1b", 8192, 0)
	var nf *ModelNotFoundError
	require.ErrorAs(t, err, &nf)
}

// A listing of a ready model is trusted for a while instead of asked for before every model
// call: until listingTrust has passed or the model's keep-alive runs out, and while this client
// asks for nothing that could make Ollama unload it.
func TestRunningTrustsAListingForAWhile(t *testing.T) {
	t.Parallel()
	c, fake, rec := newTestClient(t, fakeollama.Script{Models: testModels})
	ctx := t.Context()
	clock := time.Now()
	c.now = func() time.Time { return clock }
	running := func(numCtx int) bool {
		t.Helper()
		ready, err := c.Running(ctx, "qwen3:4b", numCtx)
		require.NoError(t, err)
		return ready
	}

	require.False(t, running(8192))
	require.False(t, running(8192), "a model not listed as ready is asked about again")
	require.Equal(t, 2, rec.count("/api/ps"))

	require.NoError(t, c.Load(ctx, "qwen3:4b", 8192, 0))
	require.True(t, running(8192))
	require.True(t, running(8192))
	_, err := c.Chat(ctx, ChatRequest{Model: "qwen3:4b", Messages: userSays("hi"), NumCtx: 8192}, nil)
	require.NoError(t, err)
	require.True(t, running(8192))
	require.Equal(t, 3, rec.count("/api/ps"), "the listing holds across the model's own chats")

	clock = clock.Add(listingTrust)
	require.True(t, running(8192))
	require.Equal(t, 4, rec.count("/api/ps"), "asked again once listingTrust has passed")

	// Another model asked for may take its place.
	_, err = c.Chat(ctx, ChatRequest{Model: "llava:7b", Messages: userSays("hi"), NumCtx: 4096}, nil)
	require.NoError(t, err)
	require.NoError(t, c.Load(ctx, "qwen3:4b", 8192, 0))
	require.True(t, running(8192))
	require.Equal(t, 5, rec.count("/api/ps"))

	// So may a failed request (a runner that crashed, say).
	require.NoError(t, fake.SetDown(true))
	require.Error(t, c.Load(ctx, "qwen3:4b", 8192, 0))
	require.NoError(t, fake.SetDown(false))
	require.NoError(t, c.Load(ctx, "qwen3:4b", 8192, 0))
	require.True(t, running(8192))
	require.Equal(t, 6, rec.count("/api/ps"))
	require.False(t, running(16384), "another context length is another listing")
	require.Equal(t, 7, rec.count("/api/ps"))

	// Never past the expiry Ollama gave the model (its keep-alive): with the clock past it, every
	// call asks.
	clock = time.Now().Add(time.Hour)
	require.True(t, running(8192), "listed by the server, whose own clock says it is loaded")
	require.True(t, running(8192))
	require.Equal(t, 9, rec.count("/api/ps"))
}
