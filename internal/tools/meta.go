package tools

// Meta is what a result says in structured form, beside its text for the model: the files it
// read and changed, the files an undo restored, the command it ran. It is stored with the result
// in the session's history, and the session memory, the stale-file note and the UI read it, so
// none of them depends on how a result is worded. Paths are workspace-relative slash paths. The
// zero value says nothing.
type Meta struct {
	Read    []ReadSpan   `json:"read,omitempty"`
	Changed []FileChange `json:"changed,omitempty"`
	Undone  []UndoneFile `json:"undone,omitempty"`
	Command *CommandRun  `json:"command,omitempty"`
	// Places are the locations a code intelligence answer names, for the UI to open.
	Places []Place `json:"places,omitempty"`
	// Problems are errors a language server found in the file the call changed, that were not
	// there before the change.
	Problems []Problem `json:"problems,omitempty"`
	// Tasks is the whole task list after a call changed it, for the checklist the person sees.
	Tasks []Task `json:"tasks,omitempty"`
}

// Empty reports whether m says nothing.
func (m Meta) Empty() bool {
	return len(m.Read) == 0 && len(m.Changed) == 0 && len(m.Undone) == 0 && m.Command == nil &&
		len(m.Places) == 0 && len(m.Problems) == 0 && len(m.Tasks) == 0
}

// ReadSpan is a file the model was shown, lines From to To of Total (1-based, inclusive).
type ReadSpan struct {
	Path  string `json:"path"`
	From  int    `json:"from"`
	To    int    `json:"to"`
	Total int    `json:"total,omitempty"`
}

// FileChange is a file the call wrote: lines added and removed, or created.
type FileChange struct {
	Path    string `json:"path"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	Created bool   `json:"created,omitempty"`
	// FirstLine and LastLine span the changed lines in the new text (1-based); 0 when unknown.
	FirstLine int `json:"firstLine,omitempty"`
	LastLine  int `json:"lastLine,omitempty"`
}

// UndoneFile is a file an undo put back as it was before the run, or deleted (Gone) because
// the run had created it.
type UndoneFile struct {
	Path string `json:"path"`
	Gone bool   `json:"gone,omitempty"`
}

// CommandRun is a command that ran, and how it ended.
type CommandRun struct {
	Command  string `json:"command"`
	ExitCode int    `json:"exitCode"`
	TimedOut bool   `json:"timedOut,omitempty"`
}

// UndoReport is what an undo did: its account for the person and the model, and the files it
// restored or deleted.
type UndoReport struct {
	Text   string
	Undone []UndoneFile
}
