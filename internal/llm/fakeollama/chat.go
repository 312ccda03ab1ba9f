package fakeollama

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// defaultTurn answers chats nobody scripted, so tests that only care about the request work.
var defaultTurn = Turn{Chunks: []Chunk{{Content: "OK"}}}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	defer func() {
		s.mu.Lock()
		s.chatTime += time.Since(start)
		s.mu.Unlock()
	}()
	var req api.ChatRequest
	if !decodeRequest(w, r, &req) {
		return
	}
	if len(req.Messages) > 0 { // a load or unload asks for no answer; Loads records loads
		s.mu.Lock()
		s.requests = append(s.requests, req)
		s.mu.Unlock()
	}

	m, ok := s.admit(w, req)
	if !ok {
		return
	}
	numCtx := numCtxOf(req)
	loadTook, ok := s.schedule(r.Context(), m, numCtx, req.KeepAlive)
	if !ok {
		return
	}
	if len(req.Messages) == 0 {
		writeJSON(w, http.StatusOK, doneResponse(req.Model, "load"))
		return
	}
	turn := s.nextTurn(req)
	// A held turn is a model reading its prompt: the hold counts as prefill.
	prefillStart := time.Now()
	if !s.hold(r.Context(), turn.Hold) || !sleep(r.Context(), turn.FirstDelay) {
		return
	}
	if turn.Status != 0 {
		writeError(w, turn.Status, cmp.Or(turn.Error, http.StatusText(turn.Status)))
		return
	}

	// Ollama only parses thinking out of the output when the model can think and was not told not to.
	msgs := turn.messages(m.has(model.CapabilityThinking) && (req.Think == nil || req.Think.Bool()))
	bpt := cmp.Or(m.BytesPerToken, 4)
	rep := reply{
		model: req.Model, turn: turn, msgs: msgs, start: start, load: loadTook, prefill: time.Since(prefillStart),
		prompt: cmp.Or(turn.PromptEvalCount, promptTokens(req, numCtx, bpt)),
		eval:   cmp.Or(turn.EvalCount, evalTokens(msgs, bpt)),
	}
	if req.Stream != nil && !*req.Stream {
		rep.whole(r.Context(), w)
	} else {
		rep.stream(r.Context(), w)
	}
}

// admit answers, and returns false for, the requests Ollama would not run (and an unload): its
// checks and their messages, in the order of server.ChatHandler and scheduleRunner.
func (s *Server) admit(w http.ResponseWriter, req api.ChatRequest) (Model, bool) {
	n := model.ParseName(req.Model)
	if !n.IsValid() {
		writeError(w, http.StatusBadRequest, "model is required")
		return Model{}, false
	}
	m, ok := s.installed(req.Model)
	switch {
	case !ok:
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", req.Model))
	case len(req.Messages) == 0 && req.KeepAlive != nil && req.KeepAlive.Duration == 0:
		s.unload(model.ParseName(m.Name).DisplayShortest(), nil)
		writeJSON(w, http.StatusOK, doneResponse(req.Model, "unload"))
	case !m.has(model.CapabilityThinking) && req.Think.Bool():
		writeError(w, http.StatusBadRequest, fmt.Sprintf("%q does not support thinking", req.Model))
	case !m.has(model.CapabilityCompletion):
		writeError(w, http.StatusBadRequest, fmt.Sprintf("%q does not support chat", req.Model))
	case len(req.Tools) > 0 && !m.has(model.CapabilityTools):
		writeError(w, http.StatusBadRequest, fmt.Sprintf("%s does not support tools", n))
	default:
		return m, true
	}
	return Model{}, false
}

// reply plays one scripted turn back to one chat request.
type reply struct {
	model         string
	turn          Turn
	msgs          []api.Message
	start         time.Time
	load, prefill time.Duration // how long the load and the held prefill took
	prompt, eval  int
}

func (rep reply) final() api.ChatResponse {
	resp := doneResponse(rep.model, cmp.Or(rep.turn.DoneReason, "stop"))
	resp.Metrics = rep.metrics()
	return resp
}

func (rep reply) failure() string {
	return cmp.Or(rep.turn.Error, http.StatusText(http.StatusInternalServerError))
}

// stream sends a line per chunk, then the final message, with ChunkDelay before each.
func (rep reply) stream(ctx context.Context, w http.ResponseWriter) {
	out := &stream{w: w}
	msgs := rep.msgs
	cut := rep.turn.CutAfter > 0
	if cut {
		msgs = msgs[:min(rep.turn.CutAfter, len(msgs))]
	}
	for i, msg := range msgs {
		if i > 0 && !sleep(ctx, rep.turn.ChunkDelay) {
			return
		}
		if !out.send(api.ChatResponse{Model: rep.model, CreatedAt: time.Now().UTC(), Message: msg}) {
			return
		}
	}
	switch {
	case cut:
		hangUp(w)
	case rep.turn.StreamError:
		out.fail(rep.failure())
	case sleep(ctx, rep.turn.ChunkDelay):
		out.send(rep.final())
	}
}

// whole answers stream:false: after as long as streaming would take, one message with everything.
func (rep reply) whole(ctx context.Context, w http.ResponseWriter) {
	if !sleep(ctx, rep.turn.ChunkDelay*time.Duration(len(rep.msgs))) {
		return
	}
	switch {
	case rep.turn.CutAfter > 0:
		hangUp(w)
	case rep.turn.StreamError:
		writeError(w, http.StatusInternalServerError, rep.failure())
	default:
		resp := rep.final()
		resp.Message = merge(rep.msgs)
		writeJSON(w, http.StatusOK, resp)
	}
}

// nextTurn is the answer to req: a rule's that matches its last message, else the first queued
// turn it may have (see Turn.When).
func (s *Server) nextTurn(req api.ChatRequest) Turn {
	first := ""
	for _, m := range req.Messages {
		if m.Role == "user" {
			first = m.Content
			break
		}
	}
	last := req.Messages[len(req.Messages)-1].Content
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.script.Rules {
		if strings.Contains(last, r.Contains) && (r.Model == "" || model.ParseName(r.Model).EqualFold(model.ParseName(req.Model))) {
			return r.Turn
		}
	}
	for i, t := range s.script.Turns {
		if t.When == "" || strings.Contains(first, t.When) {
			s.script.Turns = slices.Delete(s.script.Turns, i, i+1)
			return t
		}
	}
	return defaultTurn
}

func doneResponse(modelName, reason string) api.ChatResponse {
	return api.ChatResponse{
		Model:      modelName,
		CreatedAt:  time.Now().UTC(),
		Message:    api.Message{Role: "assistant"},
		Done:       true,
		DoneReason: reason,
	}
}

// messages turns the scripted chunks into what Ollama's parsers emit: tool calls get a fresh
// call_ id and an index counting calls within the answer.
func (t Turn) messages(think bool) []api.Message {
	msgs := make([]api.Message, 0, len(t.Chunks))
	index := 0
	for _, c := range t.Chunks {
		msg := api.Message{Role: "assistant", Content: c.Content}
		if think {
			msg.Thinking = c.Thinking
		}
		for _, tc := range c.ToolCalls {
			args := api.NewToolCallFunctionArguments()
			for _, k := range slices.Sorted(maps.Keys(tc.Arguments)) {
				args.Set(k, tc.Arguments[k])
			}
			msg.ToolCalls = append(msg.ToolCalls, api.ToolCall{
				ID:       toolCallID(),
				Function: api.ToolCallFunction{Index: index, Name: tc.Name, Arguments: args},
			})
			index++
		}
		msgs = append(msgs, msg)
	}
	return msgs
}

// merge builds the single message of a stream:false answer, as Ollama accumulates it.
func merge(msgs []api.Message) api.Message {
	out := api.Message{Role: "assistant"}
	for _, m := range msgs {
		out.Content += m.Content
		out.Thinking += m.Thinking
		out.ToolCalls = append(out.ToolCalls, m.ToolCalls...)
	}
	return out
}

func toolCallID() string {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 8)
	for i := range b {
		b[i] = letters[rand.IntN(len(letters))]
	}
	return "call_" + string(b)
}

// hangUp drops the connection without finishing the response, like a crashed server.
func hangUp(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// Aborting the handler makes net/http close the connection without a final chunk.
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

// tokens counts s at bpt bytes a token.
func tokens(s string, bpt int) int { return (len(s) + bpt - 1) / bpt }

// messageTokens counts one message with a few tokens of template around it.
func messageTokens(m api.Message, bpt int) int {
	n := 4 + tokens(m.Content, bpt) + tokens(m.Thinking, bpt)
	for _, tc := range m.ToolCalls {
		n += tokens(tc.Function.Name, bpt) + tokens(tc.Function.Arguments.String(), bpt)
	}
	return n
}

// promptTokens is the prompt_eval_count of a request, cut to numCtx as Ollama cuts it:
// server.chatPrompt keeps the last message and the system messages, and as many of the
// newest others as fit; when even those do not fit, the runner keeps numCtx tokens.
func promptTokens(req api.ChatRequest, numCtx, bpt int) int {
	fixed := 0
	if len(req.Tools) > 0 {
		b, _ := json.Marshal(req.Tools)
		fixed = tokens(string(b), bpt)
	}
	// What is read from message from on: the tools, every system message, and the other
	// messages from from on; from goes back as far as the window holds (one pass, summing).
	msgs := req.Messages
	each := make([]int, len(msgs))
	for j, m := range msgs {
		each[j] = messageTokens(m, bpt)
		if m.Role == "system" {
			fixed += each[j]
		}
	}
	kept := func(j int) int {
		if msgs[j].Role == "system" {
			return 0 // counted in fixed
		}
		return each[j]
	}
	from, rest := len(msgs)-1, 0
	if from >= 0 {
		rest = kept(from)
	}
	for from > 0 && fixed+rest+kept(from-1) <= numCtx {
		from--
		rest += kept(from)
	}
	return min(fixed+rest, numCtx)
}

func evalTokens(msgs []api.Message, bpt int) int {
	n := 1 // end of turn
	for _, m := range msgs {
		n += messageTokens(m, bpt) - 4
	}
	return n
}

// metrics reports what Ollama measured: the load and a held prefill as they really took, and
// speeds of a small model on a laptop GPU on top, so total_duration is never less than the
// delays a test scripted.
func (rep reply) metrics() api.Metrics {
	m := api.Metrics{
		LoadDuration:       rep.load,
		PromptEvalCount:    rep.prompt,
		PromptEvalDuration: rep.prefill + time.Duration(rep.prompt)*400*time.Microsecond,
		EvalCount:          rep.eval,
		EvalDuration:       time.Duration(rep.eval) * 25 * time.Millisecond,
	}
	m.TotalDuration = max(time.Since(rep.start), m.LoadDuration+m.PromptEvalDuration+m.EvalDuration)
	return m
}
