package llm

import (
	"context"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// Before the first token of an answer Ollama may have to load the model (seconds to minutes for
// a large one) and then read the prompt (prefill, long for a long prompt on a slow machine); its
// chat stream says nothing until the first token. To tell the two waits apart, a caller asks
// Running, and when the model is not ready it Loads it first: an /api/chat request without
// messages, which Ollama answers once the model is in memory. The wait for the chat after that
// is the prefill.

// loads counts the loads under way from this process, per server and model: Ollama's /api/ps
// already lists a model while it is being loaded, so only this process can tell that a load it
// started (the warm-up when a project opens, say) has not finished.
var loads = struct {
	sync.Mutex
	n map[string]int
}{n: map[string]int{}}

func (c *Client) loadKey(name string) string {
	return c.base.String() + " " + model.ParseName(name).DisplayShortest()
}

// Running reports whether Ollama has the model in memory with numCtx, so that a request starts
// at once: listed by /api/ps (with that context length, when the server reports one) and not
// being loaded by a request of this process.
//
// A listing is trusted for a while rather than asked for before every model call, where its
// round trip was a fifth of the agent loop's own time (issue 18): up to listingTrust, and never
// past the expiry Ollama gave the model (its keep-alive; a model kept for no time is asked about
// every time), a model listed as ready stays ready while this client asks Ollama for nothing
// else. Another program that makes Ollama load another model in its place could unload it
// meanwhile: the wait for that load then shows as reading the prompt, for at most that long.
func (c *Client) Running(ctx context.Context, name string, numCtx int) (bool, error) {
	key := c.loadKey(name)
	loads.Lock()
	loading := loads.n[key] > 0
	loads.Unlock()
	if loading {
		return false, nil
	}
	listed := listing{key: key, numCtx: numCtx}
	if c.stillListed(listed) {
		return true, nil
	}
	ps, err := c.api.ListRunning(ctx)
	if err != nil {
		err, _ = c.classifyError(ctx, "", err) // a 404 here is not about the model
		return false, err
	}
	want := model.ParseName(name)
	for _, m := range ps.Models {
		if model.ParseName(m.Name).EqualFold(want) {
			// Ollama before 0.7 does not report the context length.
			ready := m.ContextLength == 0 || m.ContextLength == numCtx
			if ready {
				listed.until = c.now().Add(listingTrust)
				if m.ExpiresAt.Before(listed.until) {
					listed.until = m.ExpiresAt
				}
				c.list(listed)
			}
			return ready, nil
		}
	}
	return false, nil
}

// listingTrust is the longest Running takes an /api/ps listing of a ready model as still true.
const listingTrust = 30 * time.Second

// listing is a model with a context length that /api/ps listed as ready, and until when Running
// takes that as still true.
type listing struct {
	key    string // loadKey
	numCtx int
	until  time.Time
}

func (c *Client) stillListed(l listing) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.listed.key == l.key && c.listed.numCtx == l.numCtx && c.now().Before(c.listed.until)
}

func (c *Client) list(l listing) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.listed = l
}

// asking notes a request for a model: one for another model, or another context length, may
// make Ollama unload the one listed, and so may a failed one (a runner that crashed).
func (c *Client) asking(name string, numCtx int, failed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if failed || c.listed.key != c.loadKey(name) || c.listed.numCtx != numCtx {
		c.listed = listing{}
	}
}

// Load makes Ollama load the model with numCtx (a request with another num_ctx would load it
// again) and keep it for keepAlive (0: the server's default), returning once it is loaded.
// Errors and retries are those of Chat.
func (c *Client) Load(ctx context.Context, name string, numCtx int, keepAlive time.Duration) error {
	key := c.loadKey(name)
	loads.Lock()
	loads.n[key]++
	loads.Unlock()
	defer func() {
		loads.Lock()
		if loads.n[key]--; loads.n[key] <= 0 {
			delete(loads.n, key)
		}
		loads.Unlock()
	}()
	wire := chatWireRequest(ChatRequest{Model: name, NumCtx: numCtx, KeepAlive: keepAlive})
	stream := false
	wire.Stream = &stream
	body, err := chatBody(wire, nil, nil)
	if err != nil {
		return err
	}
	c.asking(name, numCtx, false)
	err = c.retrying(ctx, func() (bool, error) {
		// streamChat, not api.Client.Chat, which allocates and clears an 8 MB buffer per call.
		err := c.streamChat(ctx, wire, body, func(api.ChatResponse) error { return nil })
		if err != nil {
			err, _ = c.classifyError(ctx, name, err)
		}
		return false, err
	})
	if err != nil {
		c.asking(name, numCtx, true)
	}
	return err
}
