package agent

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"gantry/internal/tools"
)

// Attachment is a file, or a range of its lines, that the person attached to a message.
type Attachment struct {
	Path string `json:"path"` // relative to the workspace root, or absolute inside it
	// StartLine and EndLine are 1-based and inclusive; 0 means the start or the end of the file,
	// so {0, 0} is the whole file and {40, 0} runs from line 40 to the end.
	StartLine int `json:"startLine"`
	EndLine   int `json:"endLine"`
}

// Each attachment is cut to a budget so that one large file cannot fill a small window; the
// label then says which lines were given. 12 KB is about 3k tokens.
const (
	attachMaxBytes     = 12 << 10
	attachMaxLineBytes = 500
)

// RenderAttachments inlines the attachments for the start of a user message, each with a label
// saying it is already provided (reference 001, "Context String Format"), which the system
// prompt's USER-PROVIDED CONTEXT section reinforces. Lines are numbered like a read file's.
//
// The attachments come from the person, not the model, so a problem (a path outside the
// workspace, a missing or binary file, a range past the end) is an error for the UI to show.
func RenderAttachments(root string, atts []Attachment) (string, error) {
	var blocks []string
	for _, a := range atts {
		block, err := renderAttachment(root, a)
		if err != nil {
			return "", fmt.Errorf("attachment %s: %w", a.Path, err)
		}
		blocks = append(blocks, block)
	}
	return strings.Join(blocks, "\n\n"), nil
}

// UserMessage composes what the model receives for a message: the attachments first, then the
// person's text.
func UserMessage(text string, atts []Attachment, root string) (string, error) {
	if len(atts) == 0 {
		return text, nil
	}
	ctx, err := RenderAttachments(root, atts)
	if err != nil {
		return "", err
	}
	return ctx + "\n\n" + text, nil
}

func renderAttachment(root string, a Attachment) (string, error) {
	if a.StartLine < 0 || a.EndLine < 0 {
		return "", errors.New("line numbers start at 1")
	}
	if a.EndLine > 0 && a.EndLine < a.StartLine {
		return "", fmt.Errorf("the range ends (line %d) before it starts (line %d)", a.EndLine, a.StartLine)
	}
	abs, err := tools.ResolveWorkspacePath(root, a.Path)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return "", err
	}
	rel = filepath.ToSlash(rel)
	// Stat before opening: opening a named pipe would block.
	fi, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", errors.New("not a regular file")
	}
	f, err := os.Open(abs)
	if err != nil {
		return "", err
	}
	defer f.Close()

	r := bufio.NewReader(f)
	head, err := r.Peek(8 << 10)
	if kind := tools.BinaryKind(head, abs, err != nil); kind != "" {
		return "", fmt.Errorf("it is %s, not text, so it cannot be attached", kind)
	}
	lines, err := attachReadLines(r, max(a.StartLine, 1), a.EndLine)
	if err != nil {
		return "", err
	}
	if a.StartLine > 1 && lines.first == 0 {
		return "", fmt.Errorf("the file has only %d lines, so line %d does not exist", lines.total, a.StartLine)
	}
	return lines.render(rel, a.StartLine > 1 || a.EndLine > 0), nil
}

type attachLines struct {
	text        []string // the lines shown, without their endings
	size        int      // bytes of text, numbering included
	first, last int      // line numbers shown; first is 0 when none
	total       int      // lines counted; the whole file unless stopped early
	cut         bool     // the budget ran out before the requested range did
}

// attachReadLines collects lines from..to (to 0: the end), reading no further than it needs.
func attachReadLines(r *bufio.Reader, from, to int) (*attachLines, error) {
	out := &attachLines{}
	for n := 1; to == 0 || n <= to; n++ {
		line, err := r.ReadString('\n')
		if line == "" && err != nil {
			if err == io.EOF {
				break
			}
			return nil, err
		}
		out.total = n
		if n < from {
			continue
		}
		line = strings.ToValidUTF8(strings.TrimRight(line, "\r\n"), "\uFFFD")
		if len(line) > attachMaxLineBytes {
			cut := attachMaxLineBytes
			for !utf8.RuneStart(line[cut]) {
				cut--
			}
			line = line[:cut] + " …(line cut)"
		}
		// 8 bytes is the numbering of a line ("  1234| ") and its newline.
		if out.first != 0 && out.size+len(line)+8 > attachMaxBytes {
			out.cut = true
			break
		}
		out.text = append(out.text, line)
		out.size += len(line) + 8
		if out.first == 0 {
			out.first = n
		}
		out.last = n
	}
	return out, nil
}

func (l *attachLines) render(rel string, isRange bool) string {
	const given = "(already provided — do not re-read):"
	var b strings.Builder
	switch {
	case l.first == 0:
		fmt.Fprintf(&b, "Contents of %s (an empty file) %s\n", rel, given)
	case isRange || l.cut:
		fmt.Fprintf(&b, "User's selected code from %s:L%d-L%d %s\n", rel, l.first, l.last, given)
	default:
		fmt.Fprintf(&b, "Contents of %s %s\n", rel, given)
	}
	// Numbered as the tools number a file's lines, so an edit recognises them if the model copies them.
	width := len(strconv.Itoa(l.last))
	b.WriteString("```\n")
	for i, line := range l.text {
		fmt.Fprintf(&b, "%*d| %s\n", width, l.first+i, line)
	}
	b.WriteString("```")
	if l.cut {
		fmt.Fprintf(&b, "\n(cut after line %d to save space: only the lines above are provided; search or read the file for the rest)", l.last)
	}
	return b.String()
}
