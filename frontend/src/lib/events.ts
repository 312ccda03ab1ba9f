// Mirrors internal/events/types.go (a Go test checks every type appears here).
import type { OllamaStatus } from './types'

export const EventType = {
  OllamaStatus: "ollamaStatus",
  RecentChanged: "recentChanged",
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
