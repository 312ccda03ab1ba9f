package llm

import (
	"context"
	"time"

	"github.com/ollama/ollama/api"

	"gantry/internal/toolcall"
)

// /api/show says a model can call tools natively when its chat template mentions them; whether
// Ollama then recognises the calls the model really writes is another matter (its parser knows
// one format per template, and fine-tunes and quantisations drift from it). The tool check asks
// the model once for a call and looks at what comes back.

// Tool check verdicts.
const (
	ToolsNative      = "native"      // the model's call arrived as a native tool call
	ToolsText        = "text"        // the model wrote the call as text, which Ollama did not pick up
	ToolsUnclear     = "unclear"     // the model made no call at all: /api/show's word stands
	ToolsUnsupported = "unsupported" // /api/show lists no tools: the text path, nothing to check
)

// ToolCheck is what the tool check found for one model (one digest: a new pull is checked again).
type ToolCheck struct {
	Model  string `json:"model"`
	Digest string `json:"digest"`
	// Declared: /api/show lists the tools capability.
	Declared bool   `json:"declared"`
	Verdict  string `json:"verdict"`
	// Dialect is the form of a call written as text (toolcall's Dialect constants).
	Dialect   string    `json:"dialect,omitempty"`
	CheckedAt time.Time `json:"checkedAt"`
}

// TextPath reports whether runs should describe the tools in the prompt and read the calls
// from the text: the model declares no tools, or it declares them but writes its calls as text.
func (c ToolCheck) TextPath() bool {
	return !c.Declared || c.Verdict == ToolsText
}

// probeTool is the check's one tool: the example of countless model cards and fine-tuning sets,
// so a model that can call tools at all calls this one.
const probeTool = "get_weather"

// probeTokens bounds the answer; a thinking model thinks first, so it gets some room.
const probeTokens = 400

// CheckTools asks the model for one tool call, with the num_ctx and keep_alive its runs use
// (so that the model is not loaded twice), and says how the call came back. digest names the
// model's version; info is its /api/show.
func (c *Client) CheckTools(ctx context.Context, info ModelInfo, digest string, numCtx int, keepAlive time.Duration) (ToolCheck, error) {
	check := ToolCheck{Model: info.Name, Digest: digest, Declared: info.Capabilities.Tools, Verdict: ToolsUnsupported}
	if !check.Declared {
		check.CheckedAt = time.Now()
		return check, nil
	}
	if err := c.Load(ctx, info.Name, numCtx, keepAlive); err != nil {
		return check, err
	}
	resp, err := c.Chat(ctx, ChatRequest{
		Model: info.Name, NumCtx: numCtx, NumPredict: probeTokens, KeepAlive: keepAlive,
		Think: info.Capabilities.Thinking, Tools: api.Tools{probeToolDefinition()},
		Messages: []api.Message{
			{Role: "system", Content: "You are a helpful assistant with tools. Call a tool whenever it can answer the question."},
			{Role: "user", Content: "What is the weather in Paris right now? Use the " + probeTool + " tool."},
		},
	}, nil)
	if err != nil {
		return check, err
	}
	check.CheckedAt = time.Now()
	check.Verdict = ToolsUnclear
	for _, tc := range resp.ToolCalls {
		if tc.Function.Name == probeTool {
			check.Verdict = ToolsNative
			return check, nil
		}
	}
	if calls := toolcall.ExtractKnown(resp.Content, func(name string) bool { return name == probeTool }); len(calls) > 0 {
		check.Verdict, check.Dialect = ToolsText, calls[0].Dialect
	}
	return check, nil
}

func probeToolDefinition() api.Tool {
	props := api.NewToolPropertiesMap()
	props.Set("city", api.ToolProperty{Type: api.PropertyType{"string"}, Description: "The city, e.g. Paris"})
	return api.Tool{Type: "function", Function: api.ToolFunction{
		Name:        probeTool,
		Description: "Get the current weather in a city.",
		Parameters:  api.ToolFunctionParameters{Type: "object", Required: []string{"city"}, Properties: props},
	}}
}
