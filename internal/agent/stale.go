package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"gantry/internal/tools"
)

// A file the model read or wrote may change on disk before it acts on what it knows: the
// person edits it between two messages (or undoes the run's change), a formatter or a build the
// model ran rewrites it. Before each model call the files of the session memory are compared
// with the disk, and those changed since the model last saw them are named in a note, once per
// change (SPEC §12). The note is part of the history, so the memory reads it back like
// everything else: the next run of the session (or the app after a restart) knows it was said.
// Comparing modification times with the times the history was saved makes this work the
// same with or without the file watcher (which skips ignored folders, and `gantry run` has
// none).

// staleNoteHead starts the note; its list has one file per line, "- path" or "- path (deleted)".
const staleNoteHead = "[Gantry] These files changed on disk since you last read or wrote them (the person or a command changed them). What you know of them is out of date: read them again before you rely on it or edit them."

const (
	staleItem    = "- "
	staleDeleted = " (deleted)"
	// staleListCap bounds the note after a checkout or a big generation step.
	staleListCap = 20
)

// FilesChangedOnDiskPayload is the filesChangedOnDisk event: the model was told these files
// changed on disk since it last read or wrote them (as it named them; Deleted are gone).
type FilesChangedOnDiskPayload struct {
	Changed []string `json:"changed"`
	Deleted []string `json:"deleted"`
}

// staleNote is the note for the files changed since the model saw them, or "" if none did,
// and what it names. root is the workspace, against which the memory's paths (as the model
// wrote them) resolve.
func (m *sessionMemory) staleNote(root string) (string, FilesChangedOnDiskPayload) {
	var changed, deleted []string
	now := time.Now()
	for _, f := range m.seenFiles(root) {
		fi, err := f.info, f.statErr
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if !f.gone {
				deleted = append(deleted, f.key)
			}
		case err != nil:
		case fi.ModTime().After(now):
			// Dated in the future (an archive, touch -d, a clock ahead): no change can be
			// told from its time.
		case msTrunc(fi.ModTime()).After(msTrunc(f.seen)):
			changed = append(changed, f.key)
		}
	}
	told := FilesChangedOnDiskPayload{Changed: []string{}, Deleted: []string{}}
	if len(changed)+len(deleted) == 0 {
		return "", told
	}
	var b strings.Builder
	b.WriteString(staleNoteHead)
	n := 0
	for _, p := range changed {
		if n++; n <= staleListCap {
			b.WriteString("\n" + staleItem + p)
			told.Changed = append(told.Changed, p)
		}
	}
	for _, p := range deleted {
		if n++; n <= staleListCap {
			b.WriteString("\n" + staleItem + p + staleDeleted)
			told.Deleted = append(told.Deleted, p)
		}
	}
	if n > staleListCap {
		fmt.Fprintf(&b, "\n(and %d more)", n-staleListCap)
	}
	return b.String(), told
}

// told takes a stale note back from the history: its files count as seen when it was saved.
// A file left out for the cap is named again by the next note.
func (m *sessionMemory) told(named FilesChangedOnDiskPayload, at time.Time) {
	for _, p := range named.Changed {
		m.toldOf(p, at, false)
	}
	for _, p := range named.Deleted {
		m.toldOf(p, at, true)
	}
}

func (m *sessionMemory) toldOf(path string, at time.Time, gone bool) {
	for _, n := range m.notes {
		if n.key == path && n.kind != noteCommand {
			n.saw(at)
			n.gone = gone
		}
	}
}

// seenFile is one file of the memory as the model last saw it, and as it is now on disk.
type seenFile struct {
	key     string // as the model named it
	abs     string
	seen    time.Time
	gone    bool
	info    fs.FileInfo // os.Stat(abs), or its error
	statErr error
}

// seenFiles are the memory's files by where they are on disk (a file read as ./a.go and edited
// as a.go is one), with the latest time the model saw each and what the disk says of it now,
// most recently used first (what the note names when it cannot name them all).
func (m *sessionMemory) seenFiles(root string) []seenFile {
	notes := make([]*memoryNote, 0, len(m.notes))
	for _, n := range m.notes {
		if n.kind != noteCommand && !n.seen.IsZero() {
			notes = append(notes, n)
		}
	}
	slices.SortFunc(notes, func(a, b *memoryNote) int { return b.last - a.last })
	var out []seenFile
	at := map[string]int{}
	ws := tools.NewWorkspaceRoot(root)
	for _, n := range notes {
		abs, fi, err := ws.Stat(n.key)
		if abs == "" {
			continue // refused: outside the workspace now
		}
		if i, ok := at[abs]; ok {
			if n.seen.After(out[i].seen) {
				out[i].seen, out[i].gone = n.seen, n.gone
			}
			continue
		}
		at[abs] = len(out)
		out = append(out, seenFile{key: n.key, abs: abs, seen: n.seen, gone: n.gone, info: fi, statErr: err})
	}
	for name, u := range m.undone {
		abs, err := ws.Resolve(name)
		if i, ok := at[abs]; err == nil && ok && u.at.After(out[i].seen) {
			out[i].seen, out[i].gone = u.at, u.gone
		}
	}
	return out
}

// msTrunc compares times at the history's precision: it saves milliseconds, so a file written
// in the same millisecond as the result that reported it must not look newer.
func msTrunc(t time.Time) time.Time { return t.Truncate(time.Millisecond) }
