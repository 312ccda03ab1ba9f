package agent

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ollama/ollama/api"

	"gantry/internal/toolcall"
	"gantry/internal/tools"
)

// Messages written before the store kept a meta beside them (migration 3) say what their tool
// results did only in words. legacyReader reads those words, as the tools wrote them then, into
// the metas the session memory and the stale-file note read today. It is the one place that
// parses results, and only for those older rows: the wording of today's results matters to
// nothing but the model.
type legacyReader struct {
	pending []toolcall.Call // calls of the last assistant message still waiting for results
}

var (
	// "Edited main.go (+1 −1).", "Created x.go (3 lines).", and the "[exit code 0, 12ms]" line
	// that ended a command's output.
	legacyChangedRe = regexp.MustCompile(`\(\+(\d+) −(\d+)\)\.`)
	legacyCreatedRe = regexp.MustCompile(`^Created .* \((\d+) lines?\)\.`)
	legacyExitRe    = regexp.MustCompile(`\[exit code (-?\d+)`)
	// The text path's framing of results.
	legacyTextResultRe = regexp.MustCompile(`(?s)<tool_result name="([^"]*)">\n(.*?)\n</tool_result>`)
	// An undo of one file: "Restored a.go as it was…", "Restored a.go, which you had deleted.",
	// "Deleted a.go, which you had created."
	legacyUndoOneRe = regexp.MustCompile(`^(Restored|Deleted) (.+?)(?: as it was before you changed it|, which you had (?:deleted|created))\.$`)
)

// meta is what msg says in structured form, read from its words; messages are given in order.
func (l *legacyReader) meta(msg api.Message) messageMeta {
	var meta messageMeta
	switch msg.Role {
	case "assistant":
		l.pending = l.pending[:0]
		for _, c := range msg.ToolCalls {
			l.pending = append(l.pending, toolcall.Call{Name: c.Function.Name, Arguments: c.Function.Arguments.ToMap()})
		}
		if len(msg.ToolCalls) == 0 {
			l.pending = append(l.pending, toolcall.Extract(msg.Content)...)
		}
	case "tool":
		meta.Results = l.results(meta.Results, msg.ToolName, msg.Content)
	case "user":
		for _, r := range legacyTextResultRe.FindAllStringSubmatch(msg.Content, -1) {
			meta.Results = l.results(meta.Results, r[1], r[2])
		}
		meta.Told = legacyStaleNote(msg.Content)
	}
	return meta
}

// results adds the meta of one result, paired with the first waiting call of its tool.
func (l *legacyReader) results(out []resultMeta, tool, content string) []resultMeta {
	i := slices.IndexFunc(l.pending, func(c toolcall.Call) bool { return c.Name == tool })
	if i < 0 {
		return out
	}
	c := l.pending[i]
	l.pending = slices.Delete(l.pending, i, i+1)
	path := tools.PathArg(c.Arguments)
	head, _, _ := strings.Cut(strings.TrimSpace(content), "\n")
	var m tools.Meta
	cmd, isCommand := c.Arguments["command"].(string)
	switch {
	case isCommand:
		if exits := legacyExitRe.FindAllStringSubmatch(content, -1); len(exits) > 0 {
			m.Command = &tools.CommandRun{Command: cmd, ExitCode: atoi(exits[len(exits)-1][1])}
		}
	case legacyUndoHead(head):
		m.Undone = legacyUndone(content)
	case path == "":
	case strings.HasSuffix(head, "):"): // "main.go (12 lines):", a read's header
		m.Read = []tools.ReadSpan{{Path: path}}
	default:
		if r := legacyChangedRe.FindStringSubmatch(head); r != nil {
			m.Changed = []tools.FileChange{{Path: path, Added: atoi(r[1]), Removed: atoi(r[2])}}
		} else if r := legacyCreatedRe.FindStringSubmatch(head); r != nil {
			m.Changed = []tools.FileChange{{Path: path, Added: atoi(r[1]), Created: true}}
		}
	}
	return append(out, resultMeta{Tool: tool, Meta: m})
}

// legacyUndoHead reports whether a result's first line is an undo's.
func legacyUndoHead(head string) bool {
	if legacyUndoOneRe.MatchString(head) {
		return true
	}
	verb, rest, _ := strings.Cut(head, " ")
	_, list, _ := strings.Cut(rest, ": ")
	return (verb == "Restored" || verb == "Deleted") && list != "" && strings.HasSuffix(head, ".")
}

// legacyUndone reads the files an undo's result names as put back or deleted: one file's own
// sentence, or a list ("Restored 2 files: a, b."; the files after "… and 3 more" were never
// named, and stay unknown).
func legacyUndone(content string) []tools.UndoneFile {
	var out []tools.UndoneFile
	for line := range strings.SplitSeq(content, "\n") {
		if m := legacyUndoOneRe.FindStringSubmatch(line); m != nil {
			out = append(out, tools.UndoneFile{Path: m[2], Gone: m[1] == "Deleted"})
			continue
		}
		gone := strings.HasPrefix(line, "Deleted ")
		if !gone && !strings.HasPrefix(line, "Restored ") {
			continue
		}
		_, names, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		names = strings.TrimSuffix(names, ".")
		if i := strings.LastIndex(names, " and "); i >= 0 && strings.HasSuffix(names, " more") {
			names = names[:i]
		}
		for name := range strings.SplitSeq(names, ", ") {
			out = append(out, tools.UndoneFile{Path: name, Gone: gone})
		}
	}
	return out
}

// legacyStaleNote reads the files a stale-file note named, or nil when content is not one.
func legacyStaleNote(content string) *FilesChangedOnDiskPayload {
	rest, ok := strings.CutPrefix(content, staleNoteHead)
	if !ok {
		return nil
	}
	told := &FilesChangedOnDiskPayload{Changed: []string{}, Deleted: []string{}}
	for line := range strings.SplitSeq(rest, "\n") {
		p, ok := strings.CutPrefix(line, staleItem)
		if !ok {
			continue
		}
		if p, gone := strings.CutSuffix(p, staleDeleted); gone {
			told.Deleted = append(told.Deleted, p)
		} else {
			told.Changed = append(told.Changed, p)
		}
	}
	return told
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
