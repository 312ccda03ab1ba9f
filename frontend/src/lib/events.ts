// Mirrors internal/events/types.go (a Go test checks every type appears here).
import type { OllamaStatus } from './types'

export const EventType = {
  OllamaStatus: "ollamaStatus",
  RecentChanged: "recentChanged",
  // The agent's run; payloads in internal/agent/events.go.
  RunStarted: "runStarted",
  AssistantText: "assistantText",
  Thinking: "thinking",
  ThinkingDone: "thinkingDone",
  Spinner: "spinner",
  ProgressGroupStarted: "progressGroupStarted",
  ToolAction: "toolAction",
  CommandOutput: "commandOutput",
  ProgressGroupFinished: "progressGroupFinished",
  RunFinished: "runFinished",
  ContextCompacted: "contextCompacted",
  // A tool call waiting for a person; payloads in internal/approval/manager.go.
  ApprovalRequested: "approvalRequested",
  ApprovalResolved: "approvalResolved",
} as const

export type EventTypeName = (typeof EventType)[keyof typeof EventType]

export interface GantryEvent<P = unknown> {
  id: string
  seq: number
  sessionId: string
  runId: string
  type: EventTypeName
  payload: P
  time: string
}

export interface EventPayloads {
  ollamaStatus: OllamaStatus
  recentChanged: Record<string, never>
}
