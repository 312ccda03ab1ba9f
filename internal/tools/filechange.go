package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"gantry/internal/diff"
	"gantry/internal/fsutil"
	"gantry/internal/safety"
)

const (
	// maxEditBytes bounds the files write_file and edit_file load whole; source files are far
	// smaller, and anything bigger is data no model should rewrite through a tool call.
	maxEditBytes = 8 << 20
	// displayDiffBytes bounds the diff kept in a result for the UI.
	displayDiffBytes = 200 << 10
	// modelDiffBytes bounds a diff told to the model, whose context is small.
	modelDiffBytes = 4 << 10
	// binarySniffBytes is how much of a file decides whether it is text, as read_file judges.
	binarySniffBytes = 8 << 10
)

// DiffDisplay is what the UI shows for a file change.
type DiffDisplay struct {
	Kind          string `json:"kind"` // "diff"
	Path          string `json:"path"`
	Added         int    `json:"added"`
	Removed       int    `json:"removed"`
	Created       bool   `json:"created,omitempty"`
	Diff          string `json:"diff"` // unified; cut at a line end when long
	DiffTruncated bool   `json:"diffTruncated,omitempty"`
	AutoApproved  bool   `json:"autoApproved,omitempty"`
	UserEdited    bool   `json:"userEdited,omitempty"` // the person changed the proposal before accepting
	Denied        bool   `json:"denied,omitempty"`
	// FirstLine and LastLine span the changed lines in the new text (1-based), so the UI can
	// open the file where the edit is; 0 when nothing changed.
	FirstLine int `json:"firstLine,omitempty"`
	LastLine  int `json:"lastLine,omitempty"`
}

// fileTarget is a file a tool is about to change, as it is now.
type fileTarget struct {
	rel string // as the model named it, workspace-relative slash path
	// abs is where the bytes go: a link inside the workspace is resolved so that it stays a
	// link and its target changes, and so the checkpoint records the file that changes.
	abs     string
	existed bool
	content string
}

// openTarget resolves a path argument and reads the text that is there now, refusing what
// cannot be edited as text. A path that does not exist yet is fine: existed is false.
func openTarget(env *Env, path string) (fileTarget, *Result) {
	abs, rel, failed := resolveForReading(env, path)
	if failed != nil {
		return fileTarget{}, failed
	}
	t := fileTarget{rel: rel, abs: abs}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		t.abs = real
	}
	fail := func(kind ErrorKind, format string, args ...any) (fileTarget, *Result) {
		res := Fail(kind, format, args...)
		return fileTarget{}, &res
	}
	fi, err := os.Stat(t.abs)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		if blocker := fileInTheWay(env.Root, t.abs); blocker != "" {
			return fail(ErrInvalidArguments, "%s cannot be created: %s is a file, not a folder.", quotePath(rel), quotePath(blocker))
		}
		return t, nil
	case errors.Is(err, fs.ErrPermission):
		return fail(ErrFailed, "%s cannot be read: permission denied.", quotePath(rel))
	case err != nil:
		return fail(ErrFailed, "%s cannot be used: %s.", quotePath(rel), describeFSError(err))
	case fi.IsDir():
		return fail(ErrInvalidArguments, "%s is a folder; give the path of a file.", quotePath(rel))
	case !fi.Mode().IsRegular():
		return fail(ErrInvalidArguments, "%s is %s, not a text file.", quotePath(rel), describeSpecialFile(fi.Mode()))
	case fi.Size() > maxEditBytes:
		return fail(ErrInvalidArguments, "%s is %s, too large to rewrite through a tool call (the limit is %s). Use run_terminal_command with a tool made for large files.",
			quotePath(rel), formatSize(fi.Size()), formatSize(maxEditBytes))
	}
	data, err := os.ReadFile(t.abs)
	if err != nil {
		return fail(ErrFailed, "%s cannot be read: %s.", quotePath(rel), describeFSError(err))
	}
	head := data[:min(len(data), binarySniffBytes)]
	if kind := BinaryKind(head, rel, len(head) == len(data)); kind != "" || bytes.IndexByte(data, 0) >= 0 {
		if kind == "" {
			kind = "binary data"
		}
		return fail(ErrInvalidArguments, "%s is %s, not text; only text files can be written this way.", quotePath(rel), kind)
	}
	t.existed, t.content = true, string(data)
	return t, nil
}

// unchangedOnDisk reports whether the file is still as openTarget read it.
func (t fileTarget) unchangedOnDisk() bool {
	data, err := os.ReadFile(t.abs)
	if errors.Is(err, fs.ErrNotExist) {
		return !t.existed
	}
	return err == nil && t.existed && string(data) == t.content
}

// fileInTheWay returns the workspace-relative name of a file where a parent folder of abs would
// have to be, or "".
func fileInTheWay(root, abs string) string {
	for dir := filepath.Dir(abs); len(dir) > len(root); dir = filepath.Dir(dir) {
		fi, err := os.Stat(dir)
		if err != nil {
			continue
		}
		if fi.IsDir() {
			return ""
		}
		return slashRelToRoot(root, dir)
	}
	return ""
}

// applyFileChange takes a whole-file change through approval, checkpoint and an atomic write.
// verb names the change for the model ("Wrote", "Edited").
func applyFileChange(ctx context.Context, env *Env, t fileTarget, proposed, verb string) (Result, error) {
	if t.existed && proposed == t.content {
		return Result{
			Content: fmt.Sprintf("No changes: %s already has this content.", t.rel),
			Display: diffDisplay(t, t.content),
		}, nil
	}
	rule, matched := safety.FileRuleFor(env.FileRules, t.rel)
	sensitive := matched && !rule.AutoApprove
	req := EditApproval{Path: t.rel, Existed: t.existed, Before: t.content, After: proposed, Sensitive: sensitive}
	if sensitive {
		req.Rule = rule.Pattern
	}
	dec, err := env.Approver.ApproveEdit(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return Fail(ErrCancelled, "Stopped while waiting for approval; %s was not written.", t.rel), nil
		}
		return Result{}, fmt.Errorf("asking to write %s: %w", t.rel, err)
	}
	if !dec.Allowed {
		res := Fail(ErrDenied, "The user rejected writing %s.%s", t.rel, userMessage(dec.Message))
		if dec.NotAsked {
			res = Fail(ErrDenied, "%s was not written: %s", t.rel, dec.Message)
		}
		display := diffDisplay(t, proposed)
		display.Denied = true
		res.Display = display
		return res, nil
	}
	final := proposed
	if dec.Content != nil {
		final = *dec.Content
	}
	if t.existed && final == t.content {
		return Fail(ErrDenied, "The user undid all of your changes to %s before accepting, so it was left as it was.%s", t.rel, userMessage(dec.Message)), nil
	}
	if ctx.Err() != nil {
		return Fail(ErrCancelled, "Stopped before writing; %s was not changed.", t.rel), nil
	}
	// A person may take a while to decide, and may edit the file meanwhile; their edit must not
	// be overwritten by a change proposed against what was there before.
	if !t.unchangedOnDisk() {
		return Fail(ErrFailed, "%s changed on disk while waiting for approval, so nothing was written. Read it again and redo the change.", t.rel), nil
	}

	check := startEditCheck(ctx, env, t)
	if err := env.Checkpoints.BeforeEdit(ctx, t.abs); err != nil {
		return Result{}, fmt.Errorf("recording %s before writing it: %w", t.rel, err)
	}
	if err := fsutil.WriteFile(t.abs, []byte(final)); err != nil {
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.ENOTDIR) {
			return Fail(ErrFailed, "%s could not be written: %s. Nothing was changed.", quotePath(t.rel), describeFSError(err)), nil
		}
		return Result{}, fmt.Errorf("writing %s: %w", t.rel, err)
	}
	if err := env.Checkpoints.AfterEdit(ctx, t.abs); err != nil {
		return Result{}, fmt.Errorf("%s was written, but recording it for undo failed: %w", t.rel, err)
	}

	display := diffDisplay(t, final)
	display.AutoApproved = dec.AutoApproved
	display.UserEdited = final != proposed
	var msg string
	if t.existed {
		msg = fmt.Sprintf("%s %s (+%d −%d).", verb, t.rel, display.Added, display.Removed)
	} else {
		msg = fmt.Sprintf("Created %s (%s).", t.rel, plural(display.Added, "line"))
	}
	if display.UserEdited {
		changed, _ := capAtLine(diff.Unified(t.rel, proposed, final, 2), modelDiffBytes)
		msg += "\nThe user changed your proposal before accepting it (- lines are yours, + lines are what was written instead):\n" +
			changed + "Take their version as the current content."
	}
	msg += userMessage(dec.Message)
	change := FileChange{Path: t.rel, Added: display.Added, Removed: display.Removed, Created: !t.existed, FirstLine: display.FirstLine, LastLine: display.LastLine}
	res := Result{Content: msg, Display: display, Meta: Meta{Changed: []FileChange{change}}}
	check.finish(ctx, &res)
	return res, nil
}

func userMessage(m string) string {
	if m = strings.TrimSpace(m); m == "" {
		return ""
	}
	return " The user said: " + m
}

func diffDisplay(t fileTarget, after string) DiffDisplay {
	text, cut := capAtLine(diff.Unified(t.rel, t.content, after, 3), displayDiffBytes)
	d := DiffDisplay{Kind: "diff", Path: t.rel, Created: !t.existed, Diff: text, DiffTruncated: cut}
	// Hunks without context give the counts and where the changes are in one pass.
	hunks := diff.Hunks(t.content, after, 0)
	for _, h := range hunks {
		for _, l := range h.Lines {
			switch l.Kind {
			case diff.LineAdd:
				d.Added++
			case diff.LineDelete:
				d.Removed++
			}
		}
	}
	if len(hunks) > 0 {
		first, last := hunks[0], hunks[len(hunks)-1]
		// A hunk that only deletes has no new lines; it sits after line NewStart.
		d.FirstLine = max(first.NewStart, 1)
		d.LastLine = max(last.NewStart+last.NewLines-1, d.FirstLine)
	}
	return d
}

// capAtLine keeps at most limit bytes of s, ending at a line end, and says whether it cut.
func capAtLine(s string, limit int) (string, bool) {
	if len(s) <= limit {
		return s, false
	}
	s = s[:limit]
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[:i+1]
	}
	return s + "[… diff cut …]\n", true
}

// isCRLF reports whether every line break of s is "\r\n".
func isCRLF(s string) bool {
	n := strings.Count(s, "\n")
	return n > 0 && strings.Count(s, "\r\n") == n
}

// countLines counts lines the way an editor numbers them: a last line without a newline counts.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
