package agent

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"gantry/internal/toolcall"
)

// memoryCap bounds the memory section of the system prompt, paid on every request.
const memoryCap = 1200

// sessionMemory is the session's notes for the system prompt (SPEC §10): files read, files
// changed with their line counts, commands run with their exit codes. The notes are derived
// from the tool calls and results in the history rather than stored: loadHistory reads the
// same messages, so a later run of the session (or the app after a restart) has them, and
// compaction, which only shortens what the model is sent, cannot lose them.
type sessionMemory struct {
	notes   map[string]*memoryNote // by kind and key
	seq     int                    // order of the latest note
	pending []toolcall.Call        // calls of the last assistant message still waiting for results
	// undone are the files the model's own undo_file and undo_turn put back or deleted, by the
	// name their result gives: changes it knows of (stale.go).
	undone map[string]undoneFile
}

type undoneFile struct {
	at   time.Time
	gone bool
}

type memoryNoteKind int

const (
	noteChanged memoryNoteKind = iota
	noteRead
	noteCommand
)

type memoryNote struct {
	kind           memoryNoteKind
	key            string // path or command
	added, removed int    // summed over the session's changes to the file
	exitCode       int
	last           int // seq of the latest use
	// seen is when the model last saw the file as it is meant to be (its read or its own
	// change, or a note that it changed), and gone that it was told the file is deleted: what
	// stale.go compares with the disk.
	seen time.Time
	gone bool
}

func newSessionMemory() *sessionMemory {
	return &sessionMemory{notes: map[string]*memoryNote{}, undone: map[string]undoneFile{}}
}

var (
	// The tools' own result texts: "Edited main.go (+1 −1).", "Created x.go (3 lines).", and
	// the "[exit code 0, 12ms]" line that ends a command's output.
	memChangedRe = regexp.MustCompile(`\(\+(\d+) −(\d+)\)\.`)
	memCreatedRe = regexp.MustCompile(`^Created .* \((\d+) lines?\)\.`)
	memExitRe    = regexp.MustCompile(`\[exit code (-?\d+)`)
	// resultMessages' text-path framing.
	memTextResultRe = regexp.MustCompile(`(?s)<tool_result name="([^"]*)">\n(.*?)\n</tool_result>`)
)

// observe takes the notes of messages appended to the history, in order, on either tool path
// (a session may switch models). times are when each was saved, index for index (nil: unknown).
func (m *sessionMemory) observe(msgs []api.Message, times []time.Time) {
	for i, msg := range msgs {
		var at time.Time
		if i < len(times) {
			at = times[i]
		}
		switch msg.Role {
		case "assistant":
			m.pending = m.pending[:0]
			for _, c := range msg.ToolCalls {
				m.pending = append(m.pending, toolcall.Call{Name: c.Function.Name, Arguments: c.Function.Arguments.ToMap()})
			}
			if len(msg.ToolCalls) == 0 {
				m.pending = append(m.pending, toolcall.Extract(msg.Content)...)
			}
		case "tool":
			m.result(msg.ToolName, msg.Content, at)
		case "user":
			for _, r := range memTextResultRe.FindAllStringSubmatch(msg.Content, -1) {
				m.result(r[1], r[2], at)
			}
			m.told(msg.Content, at)
		}
	}
}

// result pairs a result with the first waiting call of its tool and notes what it did.
func (m *sessionMemory) result(tool, content string, at time.Time) {
	i := slices.IndexFunc(m.pending, func(c toolcall.Call) bool { return c.Name == tool })
	if i < 0 {
		return
	}
	c := m.pending[i]
	m.pending = slices.Delete(m.pending, i, i+1)
	path := callPath(c.Arguments)

	switch {
	case tool == "undo_file" || tool == "undo_turn":
		m.undid(content, at)
	case tool == "run_terminal_command":
		cmd, _ := c.Arguments["command"].(string)
		exits := memExitRe.FindAllStringSubmatch(content, -1)
		if cmd == "" || len(exits) == 0 {
			return // denied or never run
		}
		code, _ := strconv.Atoi(exits[len(exits)-1][1])
		m.note(noteCommand, clip(cmd, 80)).exitCode = code
	case path == "":
	case tool == "read_file":
		if head := firstLine(content); strings.HasSuffix(head, "):") {
			m.note(noteRead, path).saw(at)
		}
	default:
		if r := memChangedRe.FindStringSubmatch(firstLine(content)); r != nil {
			n := m.note(noteChanged, path)
			n.added, n.removed = n.added+atoi(r[1]), n.removed+atoi(r[2])
			n.saw(at)
		} else if r := memCreatedRe.FindStringSubmatch(firstLine(content)); r != nil {
			n := m.note(noteChanged, path)
			n.added += atoi(r[1])
			n.saw(at)
		}
	}
}

// saw records that the model saw the file (as it is on disk) at t.
func (n *memoryNote) saw(t time.Time) {
	if t.After(n.seen) {
		n.seen = t
	}
	n.gone = false
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func (m *sessionMemory) note(kind memoryNoteKind, key string) *memoryNote {
	id := fmt.Sprint(kind, key)
	n := m.notes[id]
	if n == nil {
		n = &memoryNote{kind: kind, key: key}
		m.notes[id] = n
	}
	m.seq++
	n.last = m.seq
	return n
}

// String renders the notes, newest first, keeping the newest that fit in memoryCap.
func (m *sessionMemory) String() string {
	notes := make([]*memoryNote, 0, len(m.notes))
	for _, n := range m.notes {
		notes = append(notes, n)
	}
	slices.SortFunc(notes, func(a, b *memoryNote) int { return b.last - a.last })
	for k := len(notes); k > 0; k-- {
		if s := renderMemory(notes[:k]); len(s) <= memoryCap {
			return s
		}
	}
	return ""
}

func renderMemory(notes []*memoryNote) string {
	changed := map[string]bool{}
	var lines [3][]string
	for _, n := range notes {
		switch n.kind {
		case noteChanged:
			changed[n.key] = true
			lines[noteChanged] = append(lines[noteChanged], fmt.Sprintf("%s (+%d −%d)", n.key, n.added, n.removed))
		case noteCommand:
			lines[noteCommand] = append(lines[noteCommand], fmt.Sprintf("`%s` (exit %d)", n.key, n.exitCode))
		}
	}
	for _, n := range notes {
		if n.kind == noteRead && !changed[n.key] { // a changed file was read too; say it once
			lines[noteRead] = append(lines[noteRead], n.key)
		}
	}
	titles := [3]string{"Files changed: ", "Files read: ", "Commands run: "}
	var b strings.Builder
	for kind, l := range lines {
		if len(l) > 0 {
			b.WriteString(titles[kind] + strings.Join(l, ", ") + "\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}
