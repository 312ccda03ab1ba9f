package events

// Type names an event. The list is mirrored once in frontend/src/lib/events.ts; a test keeps the
// two in step.
type Type string

const (
	// OllamaStatus carries an llm.Status whenever the server's reachability, version or models change.
	OllamaStatus Type = "ollamaStatus"
	// RecentChanged tells the welcome screen to reload recent projects (payload: {}).
	RecentChanged Type = "recentChanged"
	// ModelPull reports a model download started from Settings (payload app.PullState): progress
	// while it runs, then once more when it ended (done, failed or cancelled).
	ModelPull Type = "modelPull"
	// WorkspaceChanged says files of the open workspace changed on disk, whoever changed them
	// (payload app.WorkspaceChangedPayload): the file tree reloads the folders it lists.
	WorkspaceChanged Type = "workspaceChanged"
	// LanguageServers says a language server of the open workspace started or stopped (payload
	// app.LanguageServerPayload): Settings → Code intelligence reads the statuses again.
	LanguageServers Type = "languageServers"
	// MCPServers says an MCP server of the open workspace started, stopped or listed new tools,
	// or a tool's first call registered its parameters (payload mcp.Event): Settings → Tools
	// reads the servers again.
	MCPServers Type = "mcpServers"

	// The agent's run (payloads in internal/agent/events.go). A run is RunStarted, then per
	// answer AssistantText/Thinking deltas, ThinkingDone and Spinner, then per batch of tool
	// calls ProgressGroupStarted, ToolAction updates, ProgressGroupFinished; RunFinished last.
	RunStarted            Type = "runStarted"
	AssistantText         Type = "assistantText"
	Thinking              Type = "thinking"
	ThinkingDone          Type = "thinkingDone"
	Spinner               Type = "spinner"
	ProgressGroupStarted  Type = "progressGroupStarted"
	ToolAction            Type = "toolAction"
	CommandOutput         Type = "commandOutput"
	ProgressGroupFinished Type = "progressGroupFinished"
	RunFinished           Type = "runFinished"

	// A tool call that waits for a person (payloads approval.Card and approval.ResolvedPayload):
	// its toolAction turns "pending", ApprovalRequested shows the card, ApprovalResolved follows
	// exactly once however it ended, and the toolAction goes on.
	ApprovalRequested Type = "approvalRequested"
	ApprovalResolved  Type = "approvalResolved"

	// ContextCompacted says older turns of the conversation were summarised (or dropped) to
	// fit the model's context window (payload agent.ContextCompactedPayload).
	ContextCompacted Type = "contextCompacted"
	// FilesChangedOnDisk says the model was told that files it had read or written changed on
	// disk since (payload agent.FilesChangedOnDiskPayload).
	FilesChangedOnDisk Type = "filesChangedOnDisk"

	// The model's side of a run (payloads in internal/agent/waiting.go): ModelWaiting says
	// what the wait before an answer's first token is for (the model loading, the prompt
	// being read), ContextUsage how much of the context window an answer used, as Ollama
	// counted it, and PromptCut that Ollama cut the prompt to fit the window.
	ModelWaiting Type = "modelWaiting"
	ContextUsage Type = "contextUsage"
	PromptCut    Type = "promptCut"

	// TaskList is the session's whole task list after a tool changed it (payload
	// agent.TaskListPayload): the checklist above the chat input shows the latest.
	TaskList Type = "taskList"
	// TaskStarted says a background subagent began (payload agent.TaskStartedPayload), and
	// TaskNotification that one ended, however it ended (payload agent.Notice): the chips above
	// the input follow them. Every TaskStarted is followed by exactly one TaskNotification.
	TaskStarted      Type = "taskStarted"
	TaskNotification Type = "taskNotification"
)

// All lists every event type, for the mirror test.
var All = []Type{
	OllamaStatus, ModelPull, RecentChanged, WorkspaceChanged, LanguageServers, MCPServers,
	RunStarted, AssistantText, Thinking, ThinkingDone, Spinner,
	ProgressGroupStarted, ToolAction, CommandOutput, ProgressGroupFinished, RunFinished,
	ApprovalRequested, ApprovalResolved,
	ContextCompacted, FilesChangedOnDisk, TaskList, TaskStarted, TaskNotification,
	ModelWaiting, ContextUsage, PromptCut,
}
