package llm

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ollama/ollama/api"
)

// ChatRequest is one model call.
type ChatRequest struct {
	Model    string
	Messages []api.Message
	Tools    api.Tools // nil on the text-fallback path
	// Think asks a thinking model to think; set it only when ModelInfo says the model can. When
	// false the field is left out of the request, so servers that predate it never see it.
	Think      bool
	NumCtx     int           // options.num_ctx; 0 leaves Ollama's default (see ModelInfo.NumCtx)
	NumPredict int           // options.num_predict; 0 leaves it unlimited
	KeepAlive  time.Duration // how long Ollama keeps the model loaded; 0 leaves the server default
}

// Chunk is one streamed piece of the answer.
type Chunk struct {
	Thinking  string
	Content   string
	ToolCalls []api.ToolCall
}

// Response is the whole answer, or as much of it as arrived before an error.
type Response struct {
	Thinking   string
	Content    string
	ToolCalls  []api.ToolCall
	DoneReason string
	// Truncated is done_reason "length": the answer hit num_predict or the context window.
	Truncated bool
	api.Metrics
}

// Chat streams an answer, calling onChunk (which may be nil) for each piece as it arrives. A 5xx
// is retried twice with backoff, but only while nothing has been delivered, so streamed text is
// never repeated. On cancellation it returns ctx.Err(). Errors: *ModelNotFoundError, *HTTPError,
// ErrUnreachable, ErrStreamCut (the partial Response is kept), an error returned by onChunk, or
// an error carrying the message Ollama sent mid-stream.
func (c *Client) Chat(ctx context.Context, req ChatRequest, onChunk func(Chunk) error) (Response, error) {
	wire := chatWireRequest(req)
	var resp Response
	err := c.retrying(ctx, func() (delivered bool, err error) {
		resp, delivered, err = c.chatOnce(ctx, wire, onChunk)
		return delivered, err
	})
	return resp, err
}

// retrying makes an attempt, and again after a 5xx (a model failing to load, say) with
// backoff, twice at most and only while the attempt delivered nothing.
func (c *Client) retrying(ctx context.Context, attempt func() (delivered bool, err error)) error {
	for n := 0; ; n++ {
		delivered, err := attempt()
		var httpErr *HTTPError
		if delivered || n >= len(c.retryDelays) || !errors.As(err, &httpErr) || !httpErr.Retryable() {
			return err
		}
		if !waitRetry(ctx, c.retryDelays[n]) {
			return ctx.Err()
		}
	}
}

func chatWireRequest(req ChatRequest) *api.ChatRequest {
	options := map[string]any{}
	if req.NumCtx > 0 {
		options["num_ctx"] = req.NumCtx
	}
	if req.NumPredict > 0 {
		options["num_predict"] = req.NumPredict
	}
	wire := &api.ChatRequest{
		Model:    req.Model,
		Messages: req.Messages,
		Tools:    req.Tools,
		Options:  options,
	}
	if req.Think {
		wire.Think = &api.ThinkValue{Value: true}
	}
	if req.KeepAlive != 0 {
		wire.KeepAlive = &api.Duration{Duration: req.KeepAlive}
	}
	return wire
}

// chatOnce makes one attempt; delivered reports whether onChunk was called.
func (c *Client) chatOnce(ctx context.Context, wire *api.ChatRequest, onChunk func(Chunk) error) (resp Response, delivered bool, err error) {
	var (
		done     bool
		chunkErr error // onChunk's error, told apart from the errors api.Client makes
	)
	err = c.api.Chat(ctx, wire, func(r api.ChatResponse) error {
		m := r.Message
		if m.Thinking != "" || m.Content != "" || len(m.ToolCalls) > 0 {
			resp.Thinking += m.Thinking
			resp.Content += m.Content
			resp.ToolCalls = append(resp.ToolCalls, m.ToolCalls...)
			delivered = true
			if onChunk != nil {
				if chunkErr = onChunk(Chunk{Thinking: m.Thinking, Content: m.Content, ToolCalls: m.ToolCalls}); chunkErr != nil {
					return chunkErr
				}
			}
		}
		if r.Done {
			done = true
			resp.DoneReason = r.DoneReason
			resp.Truncated = r.DoneReason == "length"
			resp.Metrics = r.Metrics
		}
		return nil
	})
	switch {
	case ctx.Err() != nil:
		// api.Client ends quietly when the body read fails, cancellation included.
		return resp, delivered, ctx.Err()
	case chunkErr != nil:
		return resp, delivered, chunkErr
	case err != nil:
		classified, known := c.classifyError(ctx, wire.Model, err)
		if !known {
			// Neither a status nor a transport error: the {"error": …} line Ollama sends when
			// generation fails after the stream started.
			classified = fmt.Errorf("Ollama failed in the middle of the reply: %w", err)
		}
		return resp, delivered, classified
	case !done:
		// api.Client also ignores a read error when the connection drops mid-stream.
		return resp, delivered, ErrStreamCut
	}
	return resp, delivered, nil
}

// waitRetry waits d before a retry unless ctx ends first; it reports whether the wait finished.
func waitRetry(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
