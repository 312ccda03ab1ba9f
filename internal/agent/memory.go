package agent

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"gantry/internal/tools"

	"github.com/ollama/ollama/api"
)

// memoryCap bounds the memory section of the system prompt, paid on every request.
const memoryCap = 1200

// sessionMemory is the session's notes for the system prompt (SPEC §10): files read, files
// changed with their line counts, commands run with their exit codes. The notes are derived
// from the metas of the tool results in the history rather than stored: loadHistory reads the
// same messages, so a later run of the session (or the app after a restart) has them, and
// compaction, which only shortens what the model is sent, cannot lose them.
type sessionMemory struct {
	notes map[string]*memoryNote // by kind and key
	seq   int                    // order of the latest note
	// undone are the files the model's own undos put back or deleted: changes it knows of
	// (stale.go).
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

// observe takes the notes of messages appended to the history, in order. times and metas are
// when each was saved and what it says in structured form, index for index (times may be
// short: unknown).
func (m *sessionMemory) observe(msgs []api.Message, times []time.Time, metas []messageMeta) {
	for i := range msgs {
		var at time.Time
		if i < len(times) {
			at = times[i]
		}
		for _, r := range metas[i].Results {
			m.result(r.Meta, at)
		}
		if told := metas[i].Told; told != nil {
			m.told(*told, at)
		}
	}
}

// result notes what one tool result did.
func (m *sessionMemory) result(meta tools.Meta, at time.Time) {
	for _, r := range meta.Read {
		m.note(noteRead, r.Path).saw(at)
	}
	for _, c := range meta.Changed {
		n := m.note(noteChanged, c.Path)
		n.added, n.removed = n.added+c.Added, n.removed+c.Removed
		n.saw(at)
	}
	for _, u := range meta.Undone {
		m.undone[u.Path] = undoneFile{at: at, gone: u.Gone}
	}
	if c := meta.Command; c != nil && c.Command != "" {
		m.note(noteCommand, tools.Clip(c.Command, 80)).exitCode = c.ExitCode
	}
}

// saw records that the model saw the file (as it is on disk) at t.
func (n *memoryNote) saw(t time.Time) {
	if t.After(n.seen) {
		n.seen = t
	}
	n.gone = false
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
