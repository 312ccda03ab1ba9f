package events

// Type names an event. The list is mirrored once in frontend/src/lib/events.ts; a test keeps the
// two in step.
type Type string

const (
	// OllamaStatus carries an llm.Status whenever the server's reachability, version or models change.
	OllamaStatus Type = "ollamaStatus"
	// RecentChanged tells the welcome screen to reload recent projects (payload: {}).
	RecentChanged Type = "recentChanged"
)

// All lists every event type, for the mirror test.
var All = []Type{OllamaStatus, RecentChanged}
