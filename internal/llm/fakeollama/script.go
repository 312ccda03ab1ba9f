package fakeollama

import (
	"encoding/json"
	"slices"
	"time"
)

// Model is an installed (or, in Script.Library, pullable) model. Zero fields get defaults that
// make a chat-capable model: Arch "llama", ContextLength 4096, Capabilities ["completion"].
// Names are matched the way Ollama matches them: case-insensitively, "qwen3" meaning
// "qwen3:latest" and "registry.ollama.ai/library/qwen3:4b" meaning "qwen3:4b".
type Model struct {
	Name          string   `json:"name"`                    // "qwen3:4b"; a name without a tag means ":latest"
	Arch          string   `json:"arch,omitempty"`          // "qwen3" → model_info["qwen3.context_length"], details.family
	ContextLength int      `json:"contextLength,omitempty"` // the model's trained context, as /api/show reports it
	Capabilities  []string `json:"capabilities,omitempty"`  // "completion", "tools", "thinking", "vision", "embedding"
	ParameterSize string   `json:"parameterSize,omitempty"` // "4.0B"
	Quantization  string   `json:"quantization,omitempty"`  // "Q4_K_M"
	Size          int64    `json:"size,omitempty"`          // bytes on disk; default 1 GiB
	// ModifiedAt orders /api/tags, newest first; zero means a fixed date in the past.
	ModifiedAt time.Time `json:"modifiedAt,omitzero"`
	// BytesPerToken is how many bytes of text its tokenizer packs into a token on average;
	// default 4. A smaller figure makes prompts count more tokens than a client estimating
	// four bytes a token expects, as code and non-English text do with real tokenizers.
	BytesPerToken int `json:"bytesPerToken,omitempty"`
}

// ToolCall is a native tool call. Arguments are sent in sorted key order, because a Go map has
// none; the client still receives them as api.ToolCallFunctionArguments.
type ToolCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments,omitempty"`
}

// Chunk is one streamed /api/chat line. Thinking is only sent when the model has the "thinking"
// capability and the request did not say think:false, as with real Ollama.
type Chunk struct {
	Thinking  string     `json:"thinking,omitempty"`
	Content   string     `json:"content,omitempty"`
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
}

// Turn is one scripted answer to one /api/chat request. In JSON the durations are integer
// milliseconds: firstDelayMs, chunkDelayMs.
type Turn struct {
	// When routes the turn to one conversation: it answers only a chat whose first user message
	// contains When (a subagent's brief, the parent's task). Turns without it answer any chat.
	// Each chat takes the first queued turn it may, so conversations that interleave (a run
	// and its background subagents) each get their own answers in order.
	When string `json:"when,omitempty"`
	// Hold keeps the answer back until the test releases this name (Server.Release, or POST
	// /_fake/release {"name": …}).
	Hold string `json:"hold,omitempty"`

	Chunks     []Chunk       `json:"chunks,omitempty"`
	FirstDelay time.Duration `json:"-"` // before the first chunk (or before the Status answer)
	ChunkDelay time.Duration `json:"-"` // between chunks

	// Status, when non-zero, answers with this HTTP status and Ollama's {"error": Error} body
	// instead of streaming.
	Status int    `json:"status,omitempty"`
	Error  string `json:"error,omitempty"` // text for Status or StreamError; defaults to the status text
	// StreamError sends Ollama's mid-stream {"error": …} line after the chunks instead of the final
	// message (with no chunks it is a 500, as Ollama does before anything was written).
	StreamError bool `json:"streamError,omitempty"`
	// CutAfter > 0 drops the TCP connection once that many chunks were sent (or before the final
	// message if there are fewer), as when Ollama crashes mid-answer.
	CutAfter   int    `json:"cutAfter,omitempty"`
	DoneReason string `json:"doneReason,omitempty"` // "stop" (default) or "length"

	// Token counts in the final message; zero means counting the text at the model's
	// BytesPerToken, with the prompt cut to num_ctx the way Ollama cuts it.
	PromptEvalCount int `json:"promptEvalCount,omitempty"`
	EvalCount       int `json:"evalCount,omitempty"`
}

// Rule answers every request whose last message contains Contains (and names Model, when set)
// with Turn, leaving the queued turns alone: the standing answer to a request a client makes on
// its own, such as a check it runs when a model is picked, so that it never takes a turn a test
// queued for something else.
type Rule struct {
	Model    string `json:"model,omitempty"`
	Contains string `json:"contains"`
	Turn     Turn   `json:"turn"`
}

// Script is the fake's whole configurable state. In JSON, PullDelay is pullDelayMs.
type Script struct {
	Version   string        `json:"version,omitempty"` // default "0.17.4"
	Models    []Model       `json:"models,omitempty"`  // installed: /api/tags, /api/show, /api/chat
	Library   []Model       `json:"library,omitempty"` // what /api/pull can fetch; anything else fails like an unknown name
	Turns     []Turn        `json:"turns,omitempty"`   // consumed in order; when empty /api/chat streams "OK"
	Rules     []Rule        `json:"rules,omitempty"`   // matched before the turns, never consumed
	PullDelay time.Duration `json:"-"`                 // between pull progress lines, so a progress bar can be watched
	// HoldLoads holds every model load until the test releases this name (Server.Release),
	// so that it can watch the wait for a model to load; "" loads at once.
	HoldLoads string `json:"holdLoads,omitempty"`
	// PullHold stops every fresh pull halfway through its model layer until ReleasePulls (or
	// the client goes away): a test sees a download in progress for as long as it needs.
	PullHold bool `json:"pullHold,omitempty"`
}

type turnJSON struct {
	turnFields
	FirstDelayMs int64 `json:"firstDelayMs,omitempty"`
	ChunkDelayMs int64 `json:"chunkDelayMs,omitempty"`
}

// turnFields and scriptFields drop the methods so the wrappers do not recurse.
type (
	turnFields   Turn
	scriptFields Script
)

type scriptJSON struct {
	scriptFields
	PullDelayMs int64 `json:"pullDelayMs,omitempty"`
}

func (t Turn) MarshalJSON() ([]byte, error) {
	return json.Marshal(turnJSON{turnFields(t), t.FirstDelay.Milliseconds(), t.ChunkDelay.Milliseconds()})
}

func (t *Turn) UnmarshalJSON(b []byte) error {
	var j turnJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*t = Turn(j.turnFields)
	t.FirstDelay = time.Duration(j.FirstDelayMs) * time.Millisecond
	t.ChunkDelay = time.Duration(j.ChunkDelayMs) * time.Millisecond
	return nil
}

func (s Script) MarshalJSON() ([]byte, error) {
	return json.Marshal(scriptJSON{scriptFields(s), s.PullDelay.Milliseconds()})
}

func (s *Script) UnmarshalJSON(b []byte) error {
	var j scriptJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = Script(j.scriptFields)
	s.PullDelay = time.Duration(j.PullDelayMs) * time.Millisecond
	return nil
}

// clone keeps the server's state private from slices the caller still holds.
func (s Script) clone() Script {
	s.Models = slices.Clone(s.Models)
	s.Library = slices.Clone(s.Library)
	s.Turns = slices.Clone(s.Turns)
	s.Rules = slices.Clone(s.Rules)
	return s
}
