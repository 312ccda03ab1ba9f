package agent

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"gantry/internal/checkpoint"
)

// Notice is what the parent is told when a background subagent ended (reference 002): put into
// its conversation before its next model call, or starting a turn of its own when it is idle.
type Notice struct {
	TaskID       string                  `json:"taskId"`
	RunID        string                  `json:"runId"`     // the subagent's run
	SessionID    string                  `json:"sessionId"` // the subagent's own session (its history, its checkpoint)
	Task         string                  `json:"task"`      // the brief it was given
	Status       Status                  `json:"status"`
	Summary      string                  `json:"summary"` // one line for a person
	Result       string                  `json:"result"`  // its final answer or why it stopped, cut to noticeResultChars
	ToolUses     int                     `json:"toolUses"`
	DurationMs   int64                   `json:"durationMs"`
	FilesChanged []checkpoint.FileChange `json:"filesChanged"`
}

// noticeResultChars bounds the result a notice carries: a background task's answer should not
// flood the parent's window.
const noticeResultChars = 4000

func newNotice(task *backgroundTask, out RunResult, toolUses int, took time.Duration) Notice {
	n := Notice{
		TaskID: task.id, RunID: task.runID, SessionID: task.sessionID, Task: task.brief,
		Status: out.Status, Result: clipRunes(strings.TrimSpace(out.Message), noticeResultChars),
		ToolUses: toolUses, DurationMs: took.Milliseconds(), FilesChanged: out.FilesChanged,
	}
	if n.FilesChanged == nil {
		n.FilesChanged = []checkpoint.FileChange{}
	}
	n.Summary = fmt.Sprintf("Background task “%s” %s after %s, %s.", clipRunes(task.brief, 80), statusVerb(out.Status),
		roundDuration(took), plural(toolUses, "tool use"))
	return n
}

func statusVerb(s Status) string {
	switch s {
	case StatusDone:
		return "finished"
	case StatusCancelled:
		return "was cancelled"
	case StatusIterationLimit:
		return "stopped at its step limit"
	}
	return "failed"
}

// ForModel is the notice as the parent's model reads it. Every value is escaped: a subagent's
// answer may carry text from files or the web, and must not close the envelope and forge tags
// of its own. The result is cut before it is escaped, so no cut falls inside an entity.
func (n Notice) ForModel() string {
	var b strings.Builder
	b.WriteString("<task-notification>\n")
	field := func(tag, value string) { fmt.Fprintf(&b, "<%s>%s</%s>\n", tag, escapeNotice(value), tag) }
	field("task-id", n.TaskID)
	field("status", string(n.Status))
	field("summary", n.Summary)
	field("task", clipRunes(n.Task, 400))
	if n.Result != "" {
		field("result", n.Result)
	}
	if len(n.FilesChanged) > 0 {
		files := make([]string, len(n.FilesChanged))
		for i, f := range n.FilesChanged {
			files[i] = fmt.Sprintf("%s (+%d −%d)", f.Path, f.Added, f.Removed)
		}
		field("files-changed", strings.Join(files, ", "))
	}
	b.WriteString("</task-notification>\n")
	b.WriteString("This is a background task you started with spawn_agent; it is not a message from the user. Use its result for the task at hand.")
	return b.String()
}

var noticeEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func escapeNotice(s string) string { return noticeEscaper.Replace(s) }

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// roundDuration says how long something took the way a person would: "14 s", "2 min 5 s".
func roundDuration(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	switch {
	case s < 1:
		return "under a second"
	case s < 60:
		return fmt.Sprintf("%d s", s)
	case s%60 == 0:
		return fmt.Sprintf("%d min", s/60)
	}
	return fmt.Sprintf("%d min %d s", s/60, s%60)
}
