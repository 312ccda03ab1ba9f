package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"gantry/internal/store"
	"gantry/internal/tools"
)

// MessageStore keeps a session's model history (*store.DB).
type MessageStore interface {
	AppendMessage(ctx context.Context, m store.Message) (int64, error)
	Messages(ctx context.Context, sessionID string) ([]store.Message, error)
}

// historySaveTimeout bounds one message write. Writes do not follow the run's context: what
// was streamed before a Stop is still saved (SPEC §3: nothing already written is lost).
const historySaveTimeout = 5 * time.Second

// history is the conversation as the model sees it, in the shape Ollama expects (SPEC §3), and
// kept in step with the store: every message is saved before it joins the history.
type history struct {
	store     MessageStore
	sessionID string
	runID     string
	now       func() time.Time
	msgs      []api.Message
	// times are when each message was saved, index for index: what the model last saw of a
	// file dates from the result that showed it (stale.go).
	times []time.Time
	// metas are what each message says in structured form, index for index (memory.go).
	metas []messageMeta
}

// messageMeta is what a message says in structured form, stored beside it (store.Message.Meta):
// the session memory and the stale-file note read it, never the wording of the message.
type messageMeta struct {
	// Results are the message's tool results in call order: one for a native tool message, the
	// whole batch for the text path's user message.
	Results []resultMeta `json:"results,omitempty"`
	// Told are the files a stale-file note named (stale.go).
	Told *FilesChangedOnDiskPayload `json:"told,omitempty"`
}

// resultMeta is one tool result's meta and the tool that gave it.
type resultMeta struct {
	Tool string `json:"tool"`
	tools.Meta
}

func (m messageMeta) empty() bool { return len(m.Results) == 0 && m.Told == nil }

// loadHistory reads the session's earlier messages, so a run continues the conversation.
func loadHistory(ctx context.Context, st MessageStore, sessionID, runID string, now func() time.Time) (*history, error) {
	stored, err := st.Messages(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	h := &history{store: st, sessionID: sessionID, runID: runID, now: now}
	var legacy legacyReader
	for _, m := range stored {
		msg := api.Message{Role: m.Role, Content: m.Content, Thinking: m.Thinking, ToolName: m.ToolName}
		if len(m.ToolCalls) > 0 {
			if err := json.Unmarshal(m.ToolCalls, &msg.ToolCalls); err != nil {
				return nil, fmt.Errorf("reading the tool calls of message %d: %w", m.Seq, err)
			}
		}
		var meta messageMeta
		if len(m.Meta) > 0 {
			if err := json.Unmarshal(m.Meta, &meta); err != nil {
				return nil, fmt.Errorf("reading the meta of message %d: %w", m.Seq, err)
			}
		} else {
			meta = legacy.meta(msg) // written before metas were stored
		}
		h.msgs = append(h.msgs, msg)
		h.times = append(h.times, m.Time)
		h.metas = append(h.metas, meta)
	}
	return h, nil
}

// add saves m and appends it to the history.
func (h *history) add(ctx context.Context, m api.Message) error {
	return h.addAt(ctx, m, time.Time{}, messageMeta{})
}

// addAt is add for a message dated at (zero: now) with what it says in structured form: a
// tool's result is dated when the tool finished, not when the whole batch did (stale.go).
func (h *history) addAt(ctx context.Context, m api.Message, at time.Time, meta messageMeta) error {
	if at.IsZero() {
		at = h.now()
	}
	rec := store.Message{
		SessionID: h.sessionID, RunID: h.runID, Role: m.Role, Content: m.Content,
		Thinking: m.Thinking, ToolName: m.ToolName, Time: at,
	}
	if len(m.ToolCalls) > 0 {
		raw, err := json.Marshal(m.ToolCalls)
		if err != nil {
			return fmt.Errorf("encoding tool calls: %w", err)
		}
		rec.ToolCalls = raw
	}
	// Every message written now has a meta, empty or not: only older rows lack one and are read
	// from their text (legacy.go).
	raw, err := json.Marshal(meta)
	if err != nil {
		return fmt.Errorf("encoding the message's meta: %w", err)
	}
	rec.Meta = raw
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), historySaveTimeout)
	defer cancel()
	if _, err := h.store.AppendMessage(ctx, rec); err != nil {
		return err
	}
	h.msgs = append(h.msgs, m)
	h.times = append(h.times, rec.Time)
	h.metas = append(h.metas, meta)
	return nil
}

// replaceBefore puts head in place of the messages before i (compaction), dated now. Their
// metas go: the memory has read them already, and the summary says nothing structured.
func (h *history) replaceBefore(i int, head []api.Message) {
	times := make([]time.Time, len(head), len(head)+len(h.times)-i)
	for k := range times {
		times[k] = h.now()
	}
	h.times = append(times, h.times[i:]...)
	h.metas = append(make([]messageMeta, len(head), len(head)+len(h.metas)-i), h.metas[i:]...)
	h.msgs = append(head, h.msgs[i:]...)
}

// request is what one model call sends: the system prompt, then the history, then extra
// messages that are not part of it (the closing summary request).
func (h *history) request(system string, extra ...api.Message) []api.Message {
	out := make([]api.Message, 0, len(h.msgs)+1+len(extra))
	out = append(out, api.Message{Role: "system", Content: system})
	out = append(out, h.msgs...)
	return append(out, extra...)
}

// resultMessages feeds a batch's results back, with each message's meta. After native calls
// (the assistant message's tool_calls, Ollama's own or rescued from the text) it is one tool
// message per call, in call order, each naming its tool and its call's id so that the chat
// template pairs results with calls; after calls written as text, one user message holding
// them all, since a tool message without a call before it is invalid in most templates.
func resultMessages(calls []api.ToolCall, results []toolFeedback) ([]api.Message, []messageMeta) {
	if len(calls) > 0 {
		out := make([]api.Message, len(results))
		metas := make([]messageMeta, len(results))
		for i, r := range results {
			out[i] = api.Message{Role: "tool", ToolName: r.tool, Content: r.content}
			if i < len(calls) {
				out[i].ToolCallID = calls[i].ID
			}
			metas[i] = messageMeta{Results: []resultMeta{{Tool: r.tool, Meta: r.meta}}}
		}
		return out, metas
	}
	var b strings.Builder
	var meta messageMeta
	for i, r := range results {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "<tool_result name=%q>\n%s\n</tool_result>", r.tool, r.content)
		meta.Results = append(meta.Results, resultMeta{Tool: r.tool, Meta: r.meta})
	}
	return []api.Message{{Role: "user", Content: b.String()}}, []messageMeta{meta}
}

// toolFeedback is one call's result as the model reads it, what it says in structured form,
// and when the call finished (zero for calls never run).
type toolFeedback struct {
	tool    string
	content string
	meta    tools.Meta
	at      time.Time
}

// resultTimes dates resultMessages' messages: each result when its call finished; the single
// message after text calls when the first of them did, so that nothing a later call of the
// batch changed looks seen.
func resultTimes(calls []api.ToolCall, results []toolFeedback) []time.Time {
	if len(calls) > 0 {
		out := make([]time.Time, len(results))
		for i, r := range results {
			out[i] = r.at
		}
		return out
	}
	var first time.Time
	for _, r := range results {
		if !r.at.IsZero() && (first.IsZero() || r.at.Before(first)) {
			first = r.at
		}
	}
	return []time.Time{first}
}

// notRunFeedback answers calls that were never run, so the history still pairs every call
// with a result.
func notRunFeedback(calls []tools.Call, why string) []toolFeedback {
	out := make([]toolFeedback, len(calls))
	for i, c := range calls {
		out[i] = toolFeedback{tool: c.Name, content: why}
	}
	return out
}
