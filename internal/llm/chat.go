package llm

import (
	"bytes"
	"context"
	"encoding/json"
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
	// ToolsJSON is Tools encoded, when the caller has it: a run sends the same tools with every
	// request, and encoding them (ordered maps of schemas) cost as much as the rest of the
	// request. It is sent in Tools' place and must be their encoding.
	ToolsJSON json.RawMessage
	// MessagesJSON are Messages encoded, index for index, when the caller has them: a run's
	// history is encoded once, as each message joins it, where encoding the whole of it again
	// for every request grew with the conversation. Sent in Messages' place when there is one
	// for each; each must be its message's encoding.
	MessagesJSON []json.RawMessage
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
	body, err := chatBody(wire, req.ToolsJSON, req.MessagesJSON)
	if err != nil {
		return Response{}, fmt.Errorf("encoding the chat request: %w", err)
	}
	var resp Response
	c.asking(req.Model, req.NumCtx, false)
	err = c.retrying(ctx, func() (delivered bool, err error) {
		resp, delivered, err = c.chatOnce(ctx, wire, body, onChunk)
		return delivered, err
	})
	if err != nil {
		c.asking(req.Model, req.NumCtx, true)
	}
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

// chatBody is wire as api.Client encodes it, with toolsJSON and messagesJSON, when given, in
// place of encoding wire.Tools and wire.Messages again. They are written into the body as they
// are: encoding/json would check and compact each raw message again, a scan of the whole
// conversation for every request.
func chatBody(wire *api.ChatRequest, toolsJSON json.RawMessage, messagesJSON []json.RawMessage) ([]byte, error) {
	if len(wire.Tools) == 0 {
		toolsJSON = nil
	}
	if len(messagesJSON) == 0 || len(messagesJSON) != len(wire.Messages) {
		messagesJSON = nil
	}
	if toolsJSON == nil && messagesJSON == nil {
		return json.Marshal(wire)
	}
	if body, ok := spliceChatBody(wire, toolsJSON, messagesJSON); ok {
		return body, nil
	}
	return json.Marshal(wire)
}

// spliceChatBody is chatBody's encoding with the given parts; false when the request does not
// encode as it expects (a newer api.ChatRequest whose first fields are not the model and the
// messages), or at all.
func spliceChatBody(wire *api.ChatRequest, toolsJSON json.RawMessage, messagesJSON []json.RawMessage) ([]byte, bool) {
	rest := *wire
	if messagesJSON != nil {
		rest.Messages = nil
	}
	if toolsJSON != nil {
		rest.Tools = nil // omitempty: left out
	}
	head, err := json.Marshal(&rest)
	if err != nil {
		return nil, false
	}
	size := len(head) + len(toolsJSON) + len(messagesJSON) + 16
	for _, m := range messagesJSON {
		size += len(m)
	}
	b := bytes.NewBuffer(make([]byte, 0, size))
	if messagesJSON != nil {
		// The request's first fields are the model, then the messages, null here.
		model, err := json.Marshal(wire.Model)
		if err != nil {
			return nil, false
		}
		prefix := `{"model":` + string(model) + `,"messages":`
		if !bytes.HasPrefix(head, []byte(prefix+"null")) {
			return nil, false
		}
		b.WriteString(prefix)
		b.WriteByte('[')
		for i, m := range messagesJSON {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(m)
		}
		b.WriteByte(']')
		head = head[len(prefix)+len("null"):]
	}
	b.Write(head[:len(head)-1]) // all but the closing brace
	if toolsJSON != nil {
		b.WriteString(`,"tools":`)
		b.Write(toolsJSON)
	}
	b.WriteByte('}')
	return b.Bytes(), true
}

// chatOnce makes one attempt with body, wire encoded; delivered reports whether onChunk was
// called.
func (c *Client) chatOnce(ctx context.Context, wire *api.ChatRequest, body []byte, onChunk func(Chunk) error) (resp Response, delivered bool, err error) {
	var (
		done     bool
		chunkErr error // onChunk's error, told apart from the errors api.Client makes
	)
	err = c.streamChat(ctx, wire, body, func(r api.ChatResponse) error {
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
