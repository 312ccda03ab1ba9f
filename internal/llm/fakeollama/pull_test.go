package fakeollama

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/require"
)

func pull(t *testing.T, srv *Server, req api.PullRequest) ([]api.ProgressResponse, error) {
	t.Helper()
	var got []api.ProgressResponse
	err := newClient(t, srv).Pull(t.Context(), &req, func(p api.ProgressResponse) error {
		got = append(got, p)
		return nil
	})
	return got, err
}

func TestPullReportsProgressThenListsTheModel(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{Models: []Model{gemma}, Library: []Model{qwen}})

	got, err := pull(t, srv, api.PullRequest{Model: "qwen3:4b"})
	require.NoError(t, err)

	require.Equal(t, "pulling manifest", got[0].Status)
	require.Equal(t, []string{"verifying sha256 digest", "writing manifest", "success"},
		[]string{got[len(got)-3].Status, got[len(got)-2].Status, got[len(got)-1].Status})

	layers := got[1 : len(got)-3]
	big := layers[0]
	require.Regexp(t, `^sha256:[0-9a-f]{64}$`, big.Digest)
	require.Equal(t, "pulling "+big.Digest[7:19], big.Status)
	require.Equal(t, qwen.Size, big.Total)
	var completed []int64
	for _, p := range layers {
		if p.Digest == big.Digest {
			completed = append(completed, p.Completed)
		}
	}
	require.Len(t, completed, pullSteps+1)
	require.Zero(t, completed[0])
	require.IsIncreasing(t, completed)
	require.Equal(t, big.Total, completed[pullSteps])
	require.Len(t, layers, pullSteps+1+3, "the small layers arrive complete")

	list, err := newClient(t, srv).List(t.Context())
	require.NoError(t, err)
	require.Equal(t, "qwen3:4b", list.Models[0].Name, "a fresh pull is the newest model")
	require.Len(t, list.Models, 2)

	// Pulling again finds every layer cached.
	got, err = pull(t, srv, api.PullRequest{Model: "qwen3:4b"})
	require.NoError(t, err)
	require.Len(t, got, 1+4+3)
	require.Equal(t, got[1].Total, got[1].Completed)
}

func TestPullUnknownModelFailsAfterTheManifestLine(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{})

	got, err := pull(t, srv, api.PullRequest{Model: "does-not-exist"})
	require.EqualError(t, err, "pull model manifest: file does not exist")
	require.Equal(t, []api.ProgressResponse{{Status: "pulling manifest"}}, got)

	_, err = pull(t, srv, api.PullRequest{Model: "bad name!"})
	requireStatusError(t, err, 400, "invalid model name")
}

func TestPullWithoutStreaming(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{Library: []Model{{Name: "tiny"}}})
	stream := false

	got, err := pull(t, srv, api.PullRequest{Model: "tiny", Stream: &stream})
	require.NoError(t, err)
	require.Equal(t, []api.ProgressResponse{{Status: "success"}}, got)

	_, err = pull(t, srv, api.PullRequest{Model: "nope", Stream: &stream})
	requireStatusError(t, err, 500, "pull model manifest: file does not exist")

	list, err := newClient(t, srv).List(t.Context())
	require.NoError(t, err)
	require.Equal(t, "tiny:latest", list.Models[0].Name)
}

func TestPullIsPaced(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{Library: []Model{{Name: "tiny"}}, PullDelay: 10 * time.Millisecond})

	start := time.Now()
	got, err := pull(t, srv, api.PullRequest{Model: "tiny"})
	require.NoError(t, err)
	require.GreaterOrEqual(t, time.Since(start), time.Duration(len(got)-1)*10*time.Millisecond)
}

func TestPullHoldKeepsAPullHalfwayUntilReleased(t *testing.T) {
	t.Parallel()
	srv := NewTest(t, Script{Library: []Model{qwen}, PullHold: true})
	var mu sync.Mutex
	var log []string // the statuses as they arrive, and the moment of the release
	add := func(s string) {
		mu.Lock()
		log = append(log, s)
		mu.Unlock()
	}
	halfway := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		req := api.PullRequest{Model: "qwen3:4b"}
		done <- newClient(t, srv).Pull(t.Context(), &req, func(p api.ProgressResponse) error {
			add(p.Status)
			if p.Total > 0 && p.Completed == p.Total*(pullSteps/2)/pullSteps {
				close(halfway)
			}
			return nil
		})
	}()
	<-halfway
	add("released")
	srv.ReleasePulls()
	require.NoError(t, <-done)

	mu.Lock()
	defer mu.Unlock()
	at := slices.Index(log, "released")
	require.Equal(t, "success", log[len(log)-1])
	require.NotContains(t, log[:at], "verifying sha256 digest", "held until the release")
	require.Equal(t, log[at-1], log[at+1], "the model layer goes on where it stopped")
}
