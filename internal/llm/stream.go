package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"sync"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/envconfig"
	"github.com/ollama/ollama/version"
)

const (
	// firstLineBuffer is what a chat's reader starts with: Ollama's lines are a few hundred
	// bytes, a tool call with a whole file in it some kilobytes.
	firstLineBuffer = 64 << 10
	// maxLineBuffer is the longest line read, api.Client's limit.
	maxLineBuffer = 8 << 20
)

// lineBuffers are the first line buffers of chats (a line that outgrows one gets a larger buffer
// of its own, left to the collector). fn sees each line decoded, never the buffer.
var lineBuffers = sync.Pool{New: func() any { b := make([]byte, firstLineBuffer); return &b }}

// streamChat is api.Client.Chat of req, encoded as body, line for line the same requests,
// answers and errors, except that its line buffer starts small and grows to the same 8 MB
// limit: api.Client allocates and clears all 8 MB for every call, which was most of what a
// model call cost Gantry (issue 18). A server that wants requests signed (OLLAMA_AUTH,
// ollama.com) still goes through api.Client, which holds the key.
func (c *Client) streamChat(ctx context.Context, req *api.ChatRequest, body []byte, fn api.ChatResponseFunc) error {
	if envconfig.UseAuth() || c.base.Hostname() == "ollama.com" {
		return c.api.Chat(ctx, req, fn)
	}
	request, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base.JoinPath("/api/chat").String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	request.Header.Set("Content-Type", "application/json")
	request.Header.Set("Accept", "application/x-ndjson")
	request.Header.Set("User-Agent", fmt.Sprintf("ollama/%s (%s %s) Go/%s", version.Version, runtime.GOARCH, runtime.GOOS, runtime.Version()))
	response, err := c.http.Do(request)
	if err != nil {
		return err
	}
	defer response.Body.Close()

	buf := lineBuffers.Get().(*[]byte)
	defer lineBuffers.Put(buf)
	scanner := bufio.NewScanner(response.Body)
	scanner.Buffer((*buf)[:0], maxLineBuffer)
	for scanner.Scan() {
		line := scanner.Bytes()
		// The usual line, a piece of a successful answer, decoded once; anything else (an error
		// status or line, a line that does not decode) goes the way api.Client reads every line,
		// decoding it as an error first, so the errors stay its errors.
		var chunk struct {
			api.ChatResponse
			Error string `json:"error"`
		}
		if response.StatusCode < http.StatusBadRequest && json.Unmarshal(line, &chunk) == nil && chunk.Error == "" {
			if err := fn(chunk.ChatResponse); err != nil {
				return err
			}
			continue
		}
		var errorResponse struct {
			Error     string `json:"error,omitempty"`
			SigninURL string `json:"signin_url,omitempty"`
		}
		if err := json.Unmarshal(line, &errorResponse); err != nil {
			if response.StatusCode >= http.StatusBadRequest {
				return api.StatusError{StatusCode: response.StatusCode, Status: response.Status, ErrorMessage: string(line)}
			}
			return errors.New(string(line))
		}
		switch {
		case response.StatusCode == http.StatusUnauthorized:
			return api.AuthorizationError{StatusCode: response.StatusCode, Status: response.Status, SigninURL: errorResponse.SigninURL}
		case response.StatusCode >= http.StatusBadRequest:
			return api.StatusError{StatusCode: response.StatusCode, Status: response.Status, ErrorMessage: errorResponse.Error}
		case errorResponse.Error != "":
			return errors.New(errorResponse.Error)
		}
		var resp api.ChatResponse
		if err := json.Unmarshal(line, &resp); err != nil {
			return err
		}
		if err := fn(resp); err != nil {
			return err
		}
	}
	// Like api.Client, a read that fails ends the stream quietly: chatOnce tells a cut from
	// the missing final line.
	return nil
}
