package tools

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

//go:embed read_file.md
var readFileDescription string

// What the model receives is capped so that one call cannot fill a small context window:
// 2,000 lines or 100 KB (about 25k tokens), whichever comes first. Longer lines (minified code,
// data) are cut, so a single line cannot use up the budget either.
const (
	readChunkLines   = 100
	readMaxLines     = 2000
	readMaxBytes     = 100 << 10
	readMaxLineBytes = 2000
	readSniffBytes   = 8 << 10
	readBufferBytes  = 64 << 10
)

// Beyond what is shown, the file is only read to count its lines, and only this far: a 1 GB log
// then costs a fraction of a second and its total is reported as "more than N lines". The time
// limit is for slow disks; it only applies past readScanExactBytes, so files of a few megabytes
// are always counted exactly, however busy the machine.
const (
	readScanBytes      = 64 << 20
	readScanTime       = 500 * time.Millisecond
	readScanExactBytes = 8 << 20
)

type readFileParams struct {
	Path      string `json:"path" jsonschema:"file to read, relative to the workspace root"`
	StartLine int    `json:"startLine,omitempty"`
}

// ReadFileDisplay is read_file's result for the UI.
type ReadFileDisplay struct {
	Kind       string `json:"kind"` // "file"
	Path       string `json:"path"` // workspace-relative slash path
	Lines      int    `json:"lines"`
	TotalLines int    `json:"totalLines"`
	// TotalAtLeast says counting stopped before the end of a huge file: TotalLines is a lower bound.
	TotalAtLeast bool `json:"totalAtLeast,omitempty"`
	Truncated    bool `json:"truncated"`
	// From is the first line shown, when not 1.
	From int `json:"from,omitempty"`
}

var readFileAbout = About{
	Label: "Read files", Summary: "Read a file's text.", Core: true,
	Example: map[string]any{"path": "src/main.go"},
	View: func(args map[string]any) CallView {
		p := PathArg(args)
		return CallView{Running: "Reading " + p, Spinner: "Reading " + fileLabel(p) + "…"}
	},
}

// ReadFile reads a text file for the model in 100-line chunks, each shown in the UI as its own
// action. There is deliberately no line-range parameter: a model that could ask for "lines
// 1–20000" would bypass the cap and fill its context. It may say where to start (startLine):
// every call still shows at most the cap from there, so a large file is read a part at a time,
// each part ending with the startLine that reads on and an outline of the definitions outside
// it, for a jump to the one the model needs.
//
// CRLF line endings are not shown (a "\r" on every line costs tokens and confuses edits); a header
// line says the file uses them, and "(no newline at end of file)" follows a last line without one.
func ReadFile(env *Env) Tool {
	return Define("read_file", KindRead, readFileDescription, readFileAbout, func(ctx context.Context, p readFileParams, out Output) (Result, error) {
		return readFile(ctx, env, p.Path, max(p.StartLine, 1), out)
	})
}

func readFile(ctx context.Context, env *Env, arg string, start int, out Output) (Result, error) {
	abs, rel, failed := resolveForReading(env, arg)
	if failed != nil {
		return *failed, nil
	}
	// Stat before opening: opening a named pipe would block until something writes to it.
	fi, err := os.Stat(abs)
	if err != nil {
		return missingOrUnreadable(env, rel, "file", err)
	}
	switch {
	case fi.IsDir():
		name := quotePath(rel)
		if rel == "" {
			name = "The workspace root"
		}
		return Fail(ErrInvalidArguments, "%s is a folder, not a file. Use list_files to see what it contains.", name), nil
	case !fi.Mode().IsRegular():
		return Fail(ErrInvalidArguments, "%s is %s, not a regular file, so it cannot be read as text.", quotePath(rel), describeSpecialFile(fi.Mode())), nil
	}
	f, err := os.Open(abs)
	if err != nil {
		return missingOrUnreadable(env, rel, "file", err)
	}
	defer f.Close()

	scan := &budgetedReader{ctx: ctx, r: f, left: readScanBytes, deadline: time.Now().Add(readScanTime), size: fi.Size()}
	lr := &lineReader{r: bufio.NewReaderSize(scan, readBufferBytes)}
	head, err := lr.r.Peek(readSniffBytes)
	if err != nil && !errors.Is(err, io.EOF) {
		return readFailure(ctx, rel, err)
	}
	if len(head) == 0 {
		return Result{
			Content: fmt.Sprintf("%s is empty (0 bytes).", quotePath(rel)),
			Display: ReadFileDisplay{Kind: "file", Path: rel},
			Meta:    Meta{Read: []ReadSpan{{Path: rel}}},
		}, nil
	}
	if kind := BinaryKind(head, rel, err != nil); kind != "" {
		return Fail(ErrInvalidArguments, "%s looks like %s (%s), not text, so read_file cannot show it.",
			quotePath(rel), kind, formatSize(fi.Size())), nil
	}

	rd := fileRead{rel: rel, size: fi.Size(), first: start}
	if start > 1 {
		switch skipped, err := lr.skip(start-1, &rd.outline); {
		case errors.Is(err, errScanBudget):
			return Fail(ErrInvalidArguments, "Line %d of %s is beyond the first %s that read_file looks at (the file is %s). Use search_workspace to find the part you need.",
				start, quotePath(rel), formatSize(readScanBytes), formatSize(fi.Size())), nil
		case err != nil:
			return readFailure(ctx, rel, err)
		case skipped < start-1 || lr.atEOF():
			return Fail(ErrInvalidArguments, "%s has %s, so there is no line %d to start from.", quotePath(rel), plural(skipped, "line"), start), nil
		}
	}
	if err := rd.readShown(lr, out); err != nil {
		return readFailure(ctx, rel, err)
	}
	if rd.stop == readStopCapped {
		switch _, err := lr.skip(-1, &rd.outline); {
		case errors.Is(err, errScanBudget):
			rd.countStopped = true
		case err != nil:
			return readFailure(ctx, rel, err)
		}
	}
	rd.complete, rd.lastByte = lr.complete, lr.lastByte
	return Result{Content: rd.forModel(), Display: rd.display(), Meta: Meta{Read: []ReadSpan{rd.span()}}}, nil
}

// resolveForReading resolves a path argument of a read-side tool to its absolute form and its
// workspace-relative slash form ("" for the root), or the failed result to return.
func resolveForReading(env *Env, p string) (abs, rel string, failed *Result) {
	abs, err := ResolveWorkspacePath(env.Root, p)
	if err != nil {
		kind := ErrOutsideWorkspace
		if p == "" {
			kind = ErrInvalidArguments
		}
		res := Fail(kind, "%s", err.Error())
		return "", "", &res
	}
	rel, err = filepath.Rel(filepath.Clean(env.Root), abs)
	if err != nil || rel == "." {
		rel = ""
	}
	return abs, filepath.ToSlash(rel), nil
}

// missingOrUnreadable turns a failed stat or open into a result: a missing path names the close
// matches that do exist, so a model that misspelt a name can retry at once.
func missingOrUnreadable(env *Env, rel, what string, err error) (Result, error) {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		msg := fmt.Sprintf("There is no %s %s.", what, quotePath(rel))
		if s := similarPaths(filepath.Clean(env.Root), rel); len(s) > 0 {
			msg += " Did you mean: " + strings.Join(s, ", ") + "?"
		} else {
			msg += " Use list_files or glob to find it."
		}
		return Fail(ErrNotFound, "%s", msg), nil
	}
	if errors.Is(err, fs.ErrPermission) {
		return Fail(ErrFailed, "%s cannot be read: permission denied.", quotePath(rel)), nil
	}
	return Result{}, fmt.Errorf("reading %s: %w", rel, err)
}

// readFailure reports an error met while reading: a stopped run, or a machine failure.
func readFailure(ctx context.Context, rel string, err error) (Result, error) {
	if ctx.Err() != nil {
		return Fail(ErrCancelled, "Reading %s was stopped.", quotePath(rel)), nil
	}
	return Result{}, fmt.Errorf("reading %s: %w", rel, err)
}

var errScanBudget = errors.New("read budget spent")

// budgetedReader ends reading with errScanBudget after a number of bytes or at a deadline, and
// with ctx's error once ctx ends, so no file can hold a call for long.
type budgetedReader struct {
	ctx      context.Context
	r        io.Reader
	left     int64
	deadline time.Time
	size     int64 // the file's size when opened
	read     int64
}

func (b *budgetedReader) Read(p []byte) (int, error) {
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	if b.left <= 0 || b.read >= readScanExactBytes && time.Now().After(b.deadline) {
		// A budget that runs out exactly at the end has still seen the whole file.
		if b.read >= b.size {
			return 0, io.EOF
		}
		return 0, errScanBudget
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	b.read += int64(n)
	return n, err
}

// lineReader splits a file into lines without ever holding more than a cut line of it.
type lineReader struct {
	r        *bufio.Reader
	complete int   // lines read so far that ended in "\n"
	lastByte byte  // last byte read, to tell whether the file ends with "\n"
	pos      int64 // bytes read so far
}

// fileLine is one line as the model sees it: without its line ending, cut to readMaxLineBytes.
type fileLine struct {
	text       []byte
	cut        int64 // bytes of the line left out
	crlf       bool
	eol        bool // ended with "\n"
	unfinished bool // the read budget ran out inside this line
}

// next returns the next line, io.EOF when none is left, or the line read so far together with
// the error that stopped it.
func (lr *lineReader) next() (fileLine, error) {
	var ln fileLine
	var n int64   // bytes of the line, "\n" excluded
	var last byte // last byte of the line, to recognise "\r\n"
	for {
		frag, err := lr.r.ReadSlice('\n')
		if len(frag) > 0 {
			lr.lastByte = frag[len(frag)-1]
		}
		lr.pos += int64(len(frag))
		body := frag
		if err == nil {
			body = frag[:len(frag)-1]
		}
		if len(body) > 0 {
			last = body[len(body)-1]
		}
		if room := readMaxLineBytes - len(ln.text); room > 0 {
			ln.text = append(ln.text, body[:min(room, len(body))]...)
		}
		n += int64(len(body))
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == nil {
			ln.eol = true
			lr.complete++
			break
		}
		if errors.Is(err, io.EOF) {
			if n == 0 {
				return ln, io.EOF
			}
			break
		}
		if n == 0 {
			return ln, err
		}
		ln.unfinished = true
		ln.cut = n - int64(len(ln.text))
		return ln, err
	}
	if ln.eol && last == '\r' {
		ln.crlf = true
		n--
		if int64(len(ln.text)) > n {
			ln.text = ln.text[:n]
		}
	}
	ln.cut = n - int64(len(ln.text))
	if ln.cut > 0 {
		// Never end a cut line in the middle of a character.
		for i := len(ln.text) - 1; i >= 0 && i >= len(ln.text)-utf8.UTFMax; i-- {
			if utf8.RuneStart(ln.text[i]) {
				if !utf8.FullRune(ln.text[i:]) {
					ln.cut += int64(len(ln.text) - i)
					ln.text = ln.text[:i]
				}
				break
			}
		}
	}
	return ln, nil
}

// skip reads past n lines (n < 0: all that are left) without keeping them, noting the lines an
// outline lists, and returns how many it passed, a last line without "\n" included. Past the
// outline's reach it only counts line ends, in bulk.
func (lr *lineReader) skip(n int, o *readOutline) (int, error) {
	passed, midLine := 0, false
	for n < 0 || passed < n {
		if lr.pos >= readOutlineBytes && !midLine {
			want := -1
			if n >= 0 {
				want = n - passed
			}
			lines, rest, err := lr.skipBulk(want)
			passed += lines
			switch {
			case err == nil:
				midLine = rest
				continue
			case errors.Is(err, io.EOF):
				if rest {
					passed++
				}
				return passed, nil
			default:
				return passed, err
			}
		}
		frag, err := lr.r.ReadSlice('\n')
		if len(frag) > 0 {
			lr.lastByte = frag[len(frag)-1]
			if !midLine && lr.pos < readOutlineBytes {
				o.note(lr.complete+1, frag)
			}
			lr.pos += int64(len(frag))
		}
		switch {
		case err == nil:
			lr.complete++
			passed, midLine = passed+1, false
		case errors.Is(err, bufio.ErrBufferFull):
			midLine = true
		case errors.Is(err, io.EOF):
			if len(frag) > 0 || midLine {
				passed++
			}
			return passed, nil
		default:
			return passed, err
		}
	}
	return passed, nil
}

// skipBulk passes want whole lines (want < 0: as many as are buffered) from the buffer,
// counting their ends without looking at them; midLine says it stopped inside a line. It
// returns the reader's error (io.EOF at the end) once nothing is left to count.
func (lr *lineReader) skipBulk(want int) (lines int, midLine bool, err error) {
	buf, err := lr.r.Peek(readBufferBytes)
	if len(buf) == 0 {
		return 0, false, err
	}
	end := len(buf)
	if want < 0 {
		lines = bytes.Count(buf, []byte{'\n'})
	} else {
		for i := 0; lines < want; lines++ {
			j := bytes.IndexByte(buf[i:], '\n')
			if j < 0 {
				break
			}
			i += j + 1
			end = i
		}
		if lines < want {
			end = len(buf)
		}
	}
	_, _ = lr.r.Discard(end) // end bytes are buffered: Discard cannot fail
	lr.lastByte, lr.pos, lr.complete = buf[end-1], lr.pos+int64(end), lr.complete+lines
	return lines, lr.lastByte != '\n', nil
}

// atEOF reports whether nothing is left to read.
func (lr *lineReader) atEOF() bool {
	_, err := lr.r.Peek(1)
	return errors.Is(err, io.EOF)
}

// Why read_file stopped adding lines to what the model sees.
const (
	readStopEOF    = iota
	readStopCapped // the cap was reached and the file goes on
	readStopBudget // the read budget ran out inside the shown part (a line of many megabytes)
)

// fileRead is one read_file call's progress and outcome.
type fileRead struct {
	rel          string
	size         int64
	first        int // the first line shown
	lines        []fileLine
	outline      readOutline // definitions in the lines not shown
	shownBytes   int
	stop         int
	countStopped bool // the rest of the file was not counted to its end
	complete     int
	lastByte     byte
}

// readShown reads the lines the model will see, chunk by chunk, reporting each chunk as an action.
func (rd *fileRead) readShown(lr *lineReader, out Output) error {
	name := path.Base(rd.rel)
	for more := true; more; {
		start := len(rd.lines) + 1
		for more && len(rd.lines) < start-1+readChunkLines {
			var err error
			if more, err = rd.readLine(lr); err != nil {
				return err
			}
		}
		if end := len(rd.lines); end >= start {
			from, to := rd.first+start-1, rd.first+end-1
			out.Action(Action{Title: "Reading " + name, Path: rd.rel, StartLine: from, EndLine: to})
			out.Action(Action{Title: "Read " + name, Path: rd.rel, StartLine: from, EndLine: to, Done: true})
		}
	}
	return nil
}

// readLine adds the next line to what is shown; it reports false when no more will be.
func (rd *fileRead) readLine(lr *lineReader) (bool, error) {
	ln, err := lr.next()
	switch {
	case errors.Is(err, io.EOF):
		return false, nil
	case errors.Is(err, errScanBudget) && !ln.unfinished:
		rd.stop = readStopBudget
		return false, nil
	case err != nil && !errors.Is(err, errScanBudget):
		return false, err
	case len(rd.lines) == readMaxLines || rd.shownBytes+len(ln.text) > readMaxBytes:
		rd.stop = readStopCapped
		return false, nil
	}
	rd.lines = append(rd.lines, ln)
	rd.shownBytes += len(ln.text) + 8 // the line number and its separator
	if ln.unfinished {
		rd.stop = readStopBudget
		return false, nil
	}
	return true, nil
}

// totalLines is the number of lines in the file; when the count stopped early it is a lower bound.
func (rd *fileRead) totalLines() int {
	if rd.countStopped || rd.stop == readStopBudget {
		return rd.complete + 1 // there was more after the last "\n" counted
	}
	if rd.lastByte != '\n' {
		return rd.complete + 1
	}
	return rd.complete
}

// truncated reports whether some of the file was not shown, before or after what was.
func (rd *fileRead) truncated() bool { return rd.stop != readStopEOF || rd.first > 1 }

// last is the number of the last line shown.
func (rd *fileRead) last() int { return rd.first + len(rd.lines) - 1 }

func (rd *fileRead) display() ReadFileDisplay {
	d := ReadFileDisplay{
		Kind:         "file",
		Path:         rd.rel,
		Lines:        len(rd.lines),
		TotalLines:   rd.totalLines(),
		TotalAtLeast: rd.countStopped || rd.stop == readStopBudget,
		Truncated:    rd.truncated(),
	}
	if rd.first > 1 {
		d.From = rd.first
	}
	return d
}

// span is the part of the file the model was shown.
func (rd *fileRead) span() ReadSpan {
	s := ReadSpan{Path: rd.rel, Total: rd.totalLines()}
	if len(rd.lines) > 0 {
		s.From, s.To = rd.first, rd.last()
	}
	return s
}

func (rd *fileRead) forModel() string {
	shown, total, last := len(rd.lines), rd.totalLines(), rd.last()
	atLeast := rd.countStopped || rd.stop == readStopBudget
	var b strings.Builder
	b.Grow(rd.shownBytes + 256)
	switch {
	case !rd.truncated():
		fmt.Fprintf(&b, "%s (%s):\n", rd.rel, plural(total, "line"))
	case atLeast:
		fmt.Fprintf(&b, "%s (%s, more than %d lines; lines %d–%d shown):\n", rd.rel, formatSize(rd.size), rd.complete, rd.first, last)
	default:
		fmt.Fprintf(&b, "%s (%s; lines %d–%d shown):\n", rd.rel, plural(total, "line"), rd.first, last)
	}
	endings, crlf, invalid := 0, 0, false
	for _, ln := range rd.lines {
		if ln.eol {
			endings++
		}
		if ln.crlf {
			crlf++
		}
		invalid = invalid || !utf8.Valid(ln.text) || bytes.IndexByte(ln.text, 0) >= 0
	}
	switch {
	case crlf > 0 && crlf == endings:
		b.WriteString("(file uses CRLF line endings)\n")
	case crlf > 0:
		b.WriteString("(file mixes CRLF and LF line endings)\n")
	}
	if invalid {
		b.WriteString("(some bytes are not valid UTF-8 and are shown as \uFFFD)\n")
	}
	width := len(strconv.Itoa(last))
	for i, ln := range rd.lines {
		fmt.Fprintf(&b, "%*d| ", width, rd.first+i)
		text := strings.ToValidUTF8(string(ln.text), "\uFFFD")
		b.WriteString(strings.ReplaceAll(text, "\x00", "\uFFFD"))
		switch {
		case ln.unfinished:
			b.WriteString(" … [line continues; not read to its end]")
		case ln.cut > 0:
			fmt.Fprintf(&b, " … [line continues: %d more bytes not shown]", ln.cut)
		}
		b.WriteByte('\n')
	}
	if rd.stop == readStopEOF && !rd.lines[shown-1].eol {
		b.WriteString("(no newline at end of file)\n")
	}
	if rd.first > 1 {
		fmt.Fprintf(&b, "[lines 1–%d not shown: this read started at line %d.]\n", rd.first-1, rd.first)
	}
	switch {
	case rd.stop == readStopEOF:
	case atLeast:
		fmt.Fprintf(&b, "[file continues: lines after %d not shown (more than %d lines, %s in total). To read on, call read_file with startLine %d; search_workspace finds a part by its text.]\n",
			last, rd.complete, formatSize(rd.size), last+1)
	default:
		fmt.Fprintf(&b, "[file continues: lines %d–%d not shown (%d lines total). To read on, call read_file with startLine %d; search_workspace finds a part by its text.]\n",
			last+1, total, total, last+1)
	}
	rd.outline.write(&b)
	return b.String()
}
