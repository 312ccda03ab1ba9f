package llm

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// Context window bounds for NumCtx.
const (
	// DefaultContextCap is used when the setting is 0: large enough for an agent's prompt and
	// tool results, small enough that a 128K-context model does not claim all of a laptop's memory.
	DefaultContextCap = 32768
	// minContext keeps room for the system prompt and tool descriptions even on a tiny cap.
	minContext = 2048
	// unknownContext is assumed when /api/show reports no context length: Ollama's own default is
	// smaller and silently drops the start of long prompts, and almost every current model
	// handles 8K.
	unknownContext = 8192
)

// Client talks to one Ollama server. It is safe for concurrent use.
type Client struct {
	base *url.URL
	api  *api.Client
	http *http.Client // for chats, which stream through streamChat rather than api

	// retryDelays are the waits before each retry of a chat that failed with 5xx; tests shorten them.
	retryDelays []time.Duration

	mu     sync.Mutex
	models map[string]ModelInfo // successful /api/show lookups by the name asked for
	listed listing              // the model /api/ps last listed as ready (Running)
	now    func() time.Time     // tests move the clock
}

// NewClient returns a Client for the server at base (see ResolveHost).
func NewClient(base *url.URL, httpClient *http.Client) *Client {
	return &Client{
		base:        base,
		api:         api.NewClient(base, httpClient),
		http:        cmp.Or(httpClient, http.DefaultClient),
		retryDelays: []time.Duration{500 * time.Millisecond, 1500 * time.Millisecond},
		models:      map[string]ModelInfo{},
		now:         time.Now,
	}
}

// Capabilities are what a model can do, from /api/show.
type Capabilities struct {
	Tools      bool `json:"tools"`      // native tool calls; otherwise the text fallback
	Thinking   bool `json:"thinking"`   // accepts think:true and streams thinking separately
	Vision     bool `json:"vision"`     // accepts images
	Completion bool `json:"completion"` // generates text at all; false for embedding models
}

// ModelInfo is what the agent needs to know about a model before chatting with it.
type ModelInfo struct {
	Name          string       `json:"name"`
	Capabilities  Capabilities `json:"capabilities"`
	ContextLength int          `json:"contextLength"` // the trained context; 0 when unknown
	Family        string       `json:"family"`
	ParameterSize string       `json:"parameterSize"`
	Quantization  string       `json:"quantization"`
}

// NumCtx is the num_ctx to send: the model's context length capped by capSetting
// (DefaultContextCap when 0). A model that reports no length gets unknownContext (8192) or the
// cap if smaller. The result is never below minContext (2048).
func (m ModelInfo) NumCtx(capSetting int) int {
	limit := capSetting
	if limit <= 0 {
		limit = DefaultContextCap
	}
	n := m.ContextLength
	if n <= 0 {
		n = unknownContext
	}
	return max(min(n, limit), minContext)
}

// Model looks the model up with /api/show. Successful lookups are cached for the life of the
// Client; failures are not, so a model pulled later is found. A model that cannot chat returns
// an error wrapping ErrCannotChat; a missing one a *ModelNotFoundError.
func (c *Client) Model(ctx context.Context, name string) (ModelInfo, error) {
	c.mu.Lock()
	info, ok := c.models[name]
	c.mu.Unlock()

	if !ok {
		show, err := c.api.Show(ctx, &api.ShowRequest{Model: name})
		if err != nil {
			err, _ = c.classifyError(ctx, name, err)
			return ModelInfo{}, err
		}
		info = modelInfo(name, show)
		c.mu.Lock()
		c.models[name] = info
		c.mu.Unlock()
	}

	if !info.Capabilities.Completion {
		return ModelInfo{}, fmt.Errorf("%w: %q can only make embeddings; choose a chat model", ErrCannotChat, name)
	}
	return info, nil
}

func modelInfo(name string, show *api.ShowResponse) ModelInfo {
	has := func(c model.Capability) bool { return slices.Contains(show.Capabilities, c) }
	info := ModelInfo{
		Name: name,
		Capabilities: Capabilities{
			Tools:      has(model.CapabilityTools),
			Thinking:   has(model.CapabilityThinking),
			Vision:     has(model.CapabilityVision),
			Completion: has(model.CapabilityCompletion),
		},
		Family:        show.Details.Family,
		ParameterSize: show.Details.ParameterSize,
		Quantization:  show.Details.QuantizationLevel,
	}
	// JSON numbers arrive as float64 in the map[string]any.
	if arch, ok := show.ModelInfo["general.architecture"].(string); ok {
		if n, ok := show.ModelInfo[arch+".context_length"].(float64); ok {
			info.ContextLength = int(n)
		}
	}
	return info
}
