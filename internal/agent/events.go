package agent

import (
	"context"
	"errors"
	"sync"

	"gantry/internal/checkpoint"
	"gantry/internal/events"
	"gantry/internal/git"
	"gantry/internal/tools"
)

// EventSink is the one door to the UI (*events.Emitter): Emit stores and posts at once, for
// state changes; EmitDelta batches streamed pieces.
type EventSink interface {
	Emit(ctx context.Context, scope events.Scope, typ events.Type, payload any) (events.Event, error)
	EmitDelta(ctx context.Context, scope events.Scope, typ events.Type, payload any) error
}

// Status is how a run ended.
type Status string

const (
	StatusDone           Status = "done"
	StatusFailed         Status = "failed"
	StatusCancelled      Status = "cancelled"
	StatusIterationLimit Status = "iteration_limit"
)

// ToolPath is how the model calls tools in a run.
type ToolPath string

const (
	PathNative ToolPath = "native" // tools[] in the request, calls in message.tool_calls
	PathText   ToolPath = "text"   // tools in the system prompt, calls as <tool_call> text
)

// RunStartedPayload is the runStarted event: the person's message opens the run.
type RunStartedPayload struct {
	Mode     Mode     `json:"mode"`
	Model    string   `json:"model"`
	Text     string   `json:"text"`
	ToolPath ToolPath `json:"toolPath,omitempty"` // "" when the model could not be looked up
	// Attachments are what the person attached to the message, shown with it.
	Attachments []Attachment `json:"attachments,omitempty"`
	// Plan says the run carries out an approved plan (the plan itself is not repeated).
	Plan bool `json:"plan,omitempty"`
	// GitBranch is what the session's git branch came to; nil when none was asked for.
	GitBranch *git.BranchOutcome `json:"gitBranch,omitempty"`
	// Subagent is set when the run is a subagent's: the UI shows it inside the call that
	// started it.
	Subagent *SubagentOf `json:"subagent,omitempty"`
	// Notices are the background tasks whose ends this run was started to hand the model
	// (Text is then empty), or that came with the person's message.
	Notices []Notice `json:"notices,omitempty"`
}

// TextPayload is an assistantText or thinking delta: the whole cleaned text of the answer so far
// (see StreamSink), so the last delta of an answer is what it showed.
type TextPayload struct {
	Iteration int    `json:"iteration"`
	Text      string `json:"text"`
}

// ThinkingDonePayload collapses an answer's thinking block to "Thought for Ns".
type ThinkingDonePayload struct {
	Iteration  int   `json:"iteration"`
	DurationMs int64 `json:"durationMs"`
}

// SpinnerPayload labels what the model is about to do; "" clears it.
type SpinnerPayload struct {
	Label string `json:"label"`
}

// ProgressGroupPayload opens (progressGroupStarted) or closes (progressGroupFinished) the group
// of one batch of tool calls.
type ProgressGroupPayload struct {
	GroupID   string `json:"groupId"`
	Iteration int    `json:"iteration"`
	Title     string `json:"title,omitempty"`
	// Dialects name the forms the batch's calls were written in when they were read from the
	// model's text (toolcall's Dialect constants); none for native calls.
	Dialects []string `json:"dialects,omitempty"`
	// Rescued: the model can call tools natively, but Ollama's parser missed these calls in
	// its text, and the run read them from there.
	Rescued bool `json:"rescued,omitempty"`
}

// Tool action states.
const (
	ActionPending = "pending" // waiting for a person's approval (approvals.go)
	ActionRunning = "running"
	ActionSuccess = "success"
	ActionError   = "error"
)

// ToolActionPayload is one line of a progress group, sent again as it changes state. A call
// that shows steps of its own (a read's 100-line chunks) adds actions whose ActionID extends
// the call's ("<call>.1").
type ToolActionPayload struct {
	GroupID   string `json:"groupId"`
	ActionID  string `json:"actionId"`
	Tool      string `json:"tool"`
	Status    string `json:"status"`
	Title     string `json:"title"`
	Detail    string `json:"detail,omitempty"` // "+3 −1", "exit 0", the error for the model
	Path      string `json:"path,omitempty"`   // workspace-relative slash path
	StartLine int    `json:"startLine,omitempty"`
	EndLine   int    `json:"endLine,omitempty"`
	Command   string `json:"command,omitempty"`
	Added     int    `json:"added,omitempty"`
	Removed   int    `json:"removed,omitempty"`
	ErrorKind string `json:"errorKind,omitempty"`
	// Sandboxed: a command that ran in the terminal's sandbox (set when it finished).
	Sandboxed bool `json:"sandboxed,omitempty"`
	// DurationMs is set when the action finished.
	DurationMs int64 `json:"durationMs,omitempty"`
	// Places are the locations a code intelligence answer names, each opening the file there.
	Places []tools.Place `json:"places,omitempty"`
	// Problems are errors the file's language server found after the change, that it brought in.
	Problems []tools.Problem `json:"problems,omitempty"`
	// Server is the MCP server the tool comes from (tools.CallView.Server).
	Server string `json:"server,omitempty"`
}

// TaskListPayload is the session's task list after a change, whole.
type TaskListPayload struct {
	Tasks []tools.Task `json:"tasks"`
}

// CommandOutputPayload is a piece of a running command's output, as it arrives.
type CommandOutputPayload struct {
	ActionID string `json:"actionId"`
	Chunk    string `json:"chunk"`
}

// RunFinishedPayload ends a run. Message is the final answer when done, else what stopped it.
type RunFinishedPayload struct {
	Status       Status                  `json:"status"`
	Message      string                  `json:"message"`
	FilesChanged []checkpoint.FileChange `json:"filesChanged"`
	// Truncated: the final answer was cut at the output limit or the context window.
	Truncated bool `json:"truncated,omitempty"`
	// ToolUses counts the calls the run made.
	ToolUses int `json:"toolUses,omitempty"`
	// Dialects are the forms of the tool calls read from the model's text in this run.
	Dialects []string `json:"dialects,omitempty"`
	// RescuedCalls counts native-path calls read from the text because Ollama's parser missed them.
	RescuedCalls int `json:"rescuedCalls,omitempty"`
}

// runEmitter sends one run's events. State events are sent even after the run was cancelled
// (the UI must learn that a tool stopped and the run ended); deltas follow the run's context.
// A failure to store an event does not stop the run; the first one is reported at its end.
type runEmitter struct {
	sink  EventSink
	scope events.Scope

	mu  sync.Mutex
	err error
}

func (e *runEmitter) state(ctx context.Context, typ events.Type, payload any) {
	_, err := e.sink.Emit(context.WithoutCancel(ctx), e.scope, typ, payload)
	e.note(err)
}

func (e *runEmitter) delta(ctx context.Context, typ events.Type, payload any) {
	if ctx.Err() != nil {
		return
	}
	e.note(e.sink.EmitDelta(ctx, e.scope, typ, payload))
}

func (e *runEmitter) note(err error) {
	if err == nil || errors.Is(err, context.Canceled) {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err == nil {
		e.err = err
	}
}

func (e *runEmitter) failure() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}
