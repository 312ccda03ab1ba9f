package llm

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"gantry/internal/llm/fakeollama"

	"github.com/stretchr/testify/require"
)

func TestPullReportsProgressAndInstalls(t *testing.T) {
	t.Parallel()
	srv := fakeollama.NewTest(t, fakeollama.Script{Library: []fakeollama.Model{{Name: "qwen3:4b", Size: 5000}}})
	base := mustURL(t, srv.URL())

	var got []PullProgress
	require.NoError(t, Pull(context.Background(), base, " qwen3:4b ", func(p PullProgress) { got = append(got, p) }))
	require.Equal(t, "pulling manifest", got[0].Status)
	require.Equal(t, "success", got[len(got)-1].Status)
	var layer []int64
	for _, p := range got {
		if p.Total == 5000 {
			layer = append(layer, p.Completed)
		}
	}
	require.Equal(t, []int64{0, 1000, 2000, 3000, 4000, 5000}, layer, "the big layer's bytes grow to its total")

	st := CheckStatus(context.Background(), base)
	require.Equal(t, "qwen3:4b", st.Models[0].Name)
}

func TestPullUnknownModel(t *testing.T) {
	t.Parallel()
	srv := fakeollama.NewTest(t, fakeollama.Script{})
	err := Pull(context.Background(), mustURL(t, srv.URL()), "no-such-model:1b", func(PullProgress) {})
	require.ErrorIs(t, err, ErrUnknownModel)
	require.Contains(t, err.Error(), `Ollama could not find a model named "no-such-model:1b"`)

	err = Pull(context.Background(), mustURL(t, srv.URL()), "two words", func(PullProgress) {})
	require.ErrorContains(t, err, "has no spaces")
	err = Pull(context.Background(), mustURL(t, srv.URL()), "  ", func(PullProgress) {})
	require.ErrorContains(t, err, "type the name of a model")
}

func TestPullUnreachable(t *testing.T) {
	t.Parallel()
	err := Pull(context.Background(), mustURL(t, "http://127.0.0.1:1"), "qwen3:4b", func(PullProgress) {})
	require.ErrorIs(t, err, ErrUnreachable)
}

func TestPullCancel(t *testing.T) {
	t.Parallel()
	srv := fakeollama.NewTest(t, fakeollama.Script{Library: []fakeollama.Model{{Name: "big:1b"}}})
	srv.SetScript(fakeollama.Script{Library: []fakeollama.Model{{Name: "big:1b"}}, PullDelay: 50 * time.Millisecond})
	base := mustURL(t, srv.URL())
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	err := Pull(ctx, base, "big:1b", func(p PullProgress) {
		if p.Completed > 0 {
			once.Do(cancel)
		}
	})
	require.True(t, errors.Is(err, context.Canceled), "%v", err)
	require.Empty(t, CheckStatus(context.Background(), base).Models, "a cancelled pull installs nothing")
}

func TestDescribeModels(t *testing.T) {
	t.Parallel()
	srv := fakeollama.NewTest(t, fakeollama.Script{Models: []fakeollama.Model{
		{Name: "qwen3:4b", Capabilities: []string{"completion", "tools", "thinking"}},
		{Name: "gemma3:1b"},
	}})
	base := mustURL(t, srv.URL())
	models := CheckStatus(context.Background(), base).Models
	models = append(models, Model{Name: "gone:1b"})
	got := DescribeModels(context.Background(), base, models)
	require.Len(t, got, 3)
	require.Equal(t, "gemma3:1b", got[0].Name)
	require.True(t, got[0].Known)
	require.False(t, got[0].Capabilities.Tools)
	require.True(t, got[1].Capabilities.Tools && got[1].Capabilities.Thinking)
	require.False(t, got[2].Known, "a model that vanished is still listed")
}
