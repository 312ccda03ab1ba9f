package events

// Type names an event. The list is mirrored once in frontend/src/lib/events.ts; a test keeps the
// two in step.
type Type string

const (
	// OllamaStatus carries an llm.Status whenever the server's reachability, version or models change.
	OllamaStatus Type = "ollamaStatus"
	// RecentChanged tells the welcome screen to reload recent projects (payload: {}).
	RecentChanged Type = "recentChanged"

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
)

// All lists every event type, for the mirror test.
var All = []Type{
	OllamaStatus, RecentChanged,
	RunStarted, AssistantText, Thinking, ThinkingDone, Spinner,
	ProgressGroupStarted, ToolAction, CommandOutput, ProgressGroupFinished, RunFinished,
}
