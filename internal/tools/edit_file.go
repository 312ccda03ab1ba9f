package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

//go:embed edit_file.md
var editFileDescription string

// textEdit is one replacement.
type textEdit struct {
	Old string `json:"old" jsonschema:"The exact text to replace, copied from the file, with enough lines around it to occur only once"`
	New string `json:"new" jsonschema:"The text to put in its place (empty to delete it)"`
}

type editFileParams struct {
	Path  string     `json:"path" jsonschema:"File to edit, relative to the workspace root"`
	Edits []textEdit `json:"edits,omitempty" jsonschema:"The replacements, applied in order"`
	Old   string     `json:"old,omitempty" jsonschema:"Instead of edits, for one replacement: the text to replace"`
	New   string     `json:"new,omitempty" jsonschema:"Instead of edits, for one replacement: the text to put in its place"`

	hasOld, hasNew bool // the arguments were given, possibly empty
}

// Spellings of a lone old/new pair that other agents' edit tools taught models; sameName also
// takes oldString, OLD_TEXT and the like.
var (
	oldNames = []string{"old", "old_string", "old_text", "old_str"}
	newNames = []string{"new", "new_string", "new_text", "new_str"}
)

func (p *editFileParams) UnmarshalJSON(data []byte) error {
	type plain editFileParams // without this method, so decoding does not recurse
	if err := json.Unmarshal(data, (*plain)(p)); err != nil {
		return err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	var err error
	if p.hasOld, err = takeString(raw, oldNames, &p.Old); err != nil {
		return err
	}
	p.hasNew, err = takeString(raw, newNames, &p.New)
	return err
}

// takeString decodes into *into the first argument spelled like one of names, and reports
// whether there was one.
func takeString(raw map[string]json.RawMessage, names []string, into *string) (bool, error) {
	for _, want := range names {
		for given, v := range raw {
			if !sameName(given, want) {
				continue
			}
			if err := json.Unmarshal(v, into); err != nil {
				return true, fmt.Errorf("argument %q must be a string", given)
			}
			return true, nil
		}
	}
	return false, nil
}

// allEdits merges a lone old/new pair into the edits.
func (p editFileParams) allEdits() ([]textEdit, *Result) {
	fail := func(format string, args ...any) ([]textEdit, *Result) {
		res := Fail(ErrInvalidArguments, format, args...)
		return nil, &res
	}
	edits := p.Edits
	switch {
	case p.hasOld && p.hasNew:
		edits = append(edits, textEdit{Old: p.Old, New: p.New})
	case p.hasOld:
		return fail(`"new" is missing: give the text that replaces "old" ("" to delete it).`)
	case p.hasNew:
		return fail(`"old" is missing: give the exact text that "new" replaces.`)
	}
	if len(edits) == 0 {
		return fail(`edits is missing: give edits: [{"old": "exact text to replace", "new": "replacement"}].`)
	}
	for i, e := range edits {
		if e.Old == "" {
			return fail("%sold is empty. Give the exact text to replace; to write a whole file, use write_file.", editLabel(i, len(edits)))
		}
	}
	return edits, nil
}

var editFileAbout = About{
	Label: "Edit files", Summary: "Change part of a file by replacing text.", Core: true,
	View: func(args map[string]any) CallView {
		p := PathArg(args)
		return CallView{Running: "Editing " + p, Spinner: "Writing " + fileLabel(p) + "…"}
	},
}

// EditFile replaces parts of a file, once the approver allows it.
func EditFile(env *Env) Tool {
	return Define("edit_file", KindEdit, editFileDescription, editFileAbout,
		func(ctx context.Context, p editFileParams, _ Output) (Result, error) {
			edits, failed := p.allEdits()
			if failed != nil {
				return *failed, nil
			}
			t, failed := openTarget(env, p.Path)
			if failed != nil {
				return *failed, nil
			}
			if !t.existed {
				res, err := missingOrUnreadable(env, t.rel, "file", fs.ErrNotExist)
				res.Content += " To create a new file, use write_file."
				return res, err
			}
			if t.content == "" {
				return Fail(ErrFailed, "%s is empty, so old cannot match anything. To give it content, use write_file.", t.rel), nil
			}
			after, notes, problem := applyEdits(t.content, edits)
			if problem != "" {
				// Small models retry from their stale copy of the file, and the same mismatch follows.
				return Fail(ErrFailed, "%s\nNo edit was applied, so %s is unchanged.\n\nRe-read the file with read_file before editing it again: the text you replace must match the file exactly.", problem, t.rel), nil
			}
			res, err := applyFileChange(ctx, env, t, after, "Edited")
			if err == nil && !res.Failed() && notes != "" {
				res.Content += "\n" + notes
			}
			return res, err
		})
}

func editLabel(i, n int) string {
	if n == 1 {
		return ""
	}
	return fmt.Sprintf("Edit %d of %d: ", i+1, n)
}

// editRange names the first n edits.
func editRange(n int) string {
	if n == 1 {
		return "edit 1"
	}
	return fmt.Sprintf("edits 1–%d", n)
}

// applyEdits applies the edits in order to content. It returns the new content and notes for
// the model on how edits matched, or a problem that says which edit failed and why.
func applyEdits(content string, edits []textEdit) (after, notes, problem string) {
	// In a CRLF file the model's "\n" would match nothing; the edits work on "\n" text, and the
	// file gets its "\r\n" back at the end.
	crlf := isCRLF(content)
	text := content
	if crlf {
		text = toLF(text)
	}
	var noteLines []string
	for i, e := range edits {
		old, new := e.Old, e.New
		if crlf {
			old, new = toLF(old), toLF(new)
		}
		label := editLabel(i, len(edits))
		next, how, problem := applyEdit(text, old, new)
		if problem != "" {
			if strings.Count(text, "\n") != strings.Count(toLF(content), "\n") {
				problem += fmt.Sprintf("\n(The line numbers count %s as applied.)", editRange(i))
			}
			return "", "", label + problem
		}
		if next == text {
			return "", "", label + "new is the same as the text it replaces, so the edit changes nothing."
		}
		if how != "" {
			noteLines = append(noteLines, label+how)
		}
		text = next
	}
	if crlf {
		text = strings.ReplaceAll(text, "\n", "\r\n")
	}
	return text, strings.Join(noteLines, "\n"), ""
}

func toLF(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// applyEdit replaces the one place where old occurs in text: as written, or else line by line
// with whitespace ignored. how is "" for an exact match and otherwise tells the model what was
// forgiven; problem explains a failure.
func applyEdit(text, old, new string) (result, how, problem string) {
	at := occurrences(text, old)
	switch {
	case len(at) == 1:
		return text[:at[0]] + new + text[at[0]+len(old):], "", ""
	case len(at) > 1:
		return "", "", fmt.Sprintf("old matches %s (%s); include more of the surrounding lines in old so that it matches only one.",
			plural(len(at), "place"), lineList(text, at))
	}
	ft := newFileText(text)
	want := oldLines(old)
	match, problem := ft.looseMatch(want)
	if problem != "" {
		return "", "", problem
	}
	if match >= 0 {
		return ft.replaceLines(match, old, new), "old matched only with whitespace ignored; new was indented like the lines it replaced.", ""
	}
	// Lines copied from read_file with their numbers: the numbers are not in the file.
	if stripped, ok := stripLineNumbers(old); ok && strings.TrimSpace(stripped) != "" {
		if next, how, problem := applyEdit(text, stripped, unnumbered(new)); problem == "" {
			return next, joinNotes(`The line numbers ("12| ") were left out`, how), ""
		}
	}
	return "", "", ft.notFound(want)
}

func joinNotes(a, b string) string {
	if b == "" {
		return a + "."
	}
	return a + "; " + b
}

// occurrences returns where sub starts in text, overlapping occurrences included, up to a limit
// that is plenty to say "too many".
func occurrences(text, sub string) []int {
	var at []int
	for from := 0; len(at) < 1000; {
		i := strings.Index(text[from:], sub)
		if i < 0 {
			break
		}
		at = append(at, from+i)
		from += i + 1
	}
	return at
}

// lineList names the lines of some offsets, like "lines 3, 8, 12", listing the first few.
func lineList(text string, offsets []int) string {
	const shown = 8
	nums := make([]string, 0, shown)
	line, from := 1, 0
	for _, off := range offsets[:min(len(offsets), shown)] {
		line += strings.Count(text[from:off], "\n")
		from = off
		nums = append(nums, strconv.Itoa(line))
	}
	list := "lines " + strings.Join(nums, ", ")
	if len(offsets) > shown {
		list += ", …"
	}
	return list
}

// oldLines splits old into lines; a final line break ends the last line rather than starting
// another.
func oldLines(old string) []string {
	return strings.Split(strings.TrimSuffix(old, "\n"), "\n")
}

// looseForm is a line as whitespace-tolerant matching sees it: trimmed, with each run of
// spaces and tabs made one space.
func looseForm(line string) string { return strings.Join(strings.Fields(line), " ") }

// fileText is the text being edited, cut into lines for the line-wise steps.
type fileText struct {
	text  string
	lines []lineSpan
	loose []string // each line in looseForm
}

// lineSpan is one line: text[start:end] without its line break, next the start of the line
// after it.
type lineSpan struct{ start, end, next int }

func newFileText(text string) fileText {
	ft := fileText{text: text}
	for start := 0; start < len(text); {
		nl := strings.IndexByte(text[start:], '\n')
		if nl < 0 {
			ft.lines = append(ft.lines, lineSpan{start, len(text), len(text)})
			break
		}
		end := start + nl
		if end > start && text[end-1] == '\r' {
			end--
		}
		ft.lines = append(ft.lines, lineSpan{start, end, start + nl + 1})
		start += nl + 1
	}
	ft.loose = make([]string, len(ft.lines))
	for i := range ft.lines {
		ft.loose[i] = looseForm(ft.line(i))
	}
	return ft
}

func (ft fileText) line(i int) string { return ft.text[ft.lines[i].start:ft.lines[i].end] }

func looseLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = looseForm(l)
	}
	return out
}

// looseMatch finds the one run of lines that equals want when whitespace is ignored, and
// returns its first line, or -1 when there is none.
func (ft fileText) looseMatch(want []string) (int, string) {
	loose := looseLines(want)
	if strings.Join(loose, "") == "" {
		return -1, ""
	}
	var starts, offsets []int
	for s := 0; s+len(loose) <= len(ft.lines); s++ {
		if slices.Equal(ft.loose[s:s+len(loose)], loose) {
			starts = append(starts, s)
			offsets = append(offsets, ft.lines[s].start)
		}
	}
	switch len(starts) {
	case 0:
		return -1, ""
	case 1:
		return starts[0], ""
	}
	return -1, fmt.Sprintf("old is not in the file exactly; ignoring whitespace, it matches %s (%s). Include more of the surrounding lines in old so that it matches only one.",
		plural(len(starts), "place"), lineList(ft.text, offsets))
}

// replaceLines puts new in place of the lines old loosely matched, starting at line first.
func (ft fileText) replaceLines(first int, old, new string) string {
	want := oldLines(old)
	matched := make([]string, len(want))
	for i := range want {
		matched[i] = ft.line(first + i)
	}
	new = reindent(new, want, matched)
	last := ft.lines[first+len(want)-1]
	end := last.end
	if strings.HasSuffix(old, "\n") {
		end = last.next
		// old ended its last line, but the file's last line has no line break to replace; new
		// must not add one.
		if last.next == last.end {
			new = strings.TrimSuffix(new, "\n")
		}
	}
	return ft.text[:ft.lines[first].start] + new + ft.text[end:]
}

func indentOf(line string) string {
	return line[:len(line)-len(strings.TrimLeft(line, " \t"))]
}

// reindent gives new the file's indentation. The lines old matched pair the model's
// indentation with the file's, level by level (four spaces might be a tab); new's lines take
// the file's form of their level, and deeper levels than old had keep the extra in the file's
// unit.
func reindent(new string, want, matched []string) string {
	toFile := map[string]string{}
	for i, l := range want {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if _, seen := toFile[indentOf(l)]; !seen {
			toFile[indentOf(l)] = indentOf(matched[i])
		}
	}
	levels := slices.Sorted(maps.Keys(toFile))
	var modelUnit, fileUnit string
	for _, m := range levels {
		for _, m2 := range levels {
			f, f2 := toFile[m], toFile[m2]
			if len(m2) > len(m) && strings.HasPrefix(m2, m) && strings.HasPrefix(f2, f) && len(f2) > len(f) &&
				(modelUnit == "" || len(m2)-len(m) < len(modelUnit)) {
				modelUnit, fileUnit = m2[len(m):], f2[len(f):]
			}
		}
	}
	lines := strings.Split(new, "\n")
	for i, l := range lines {
		indent := indentOf(l)
		if indent == l {
			lines[i] = "" // blank
			continue
		}
		level, found := "", false
		for _, m := range levels {
			if strings.HasPrefix(indent, m) && (!found || len(m) > len(level)) {
				level, found = m, true
			}
		}
		if !found {
			continue // shallower than anything old had: nothing to go by
		}
		extra := indent[len(level):]
		if modelUnit != "" {
			extra = strings.ReplaceAll(extra, modelUnit, fileUnit)
		}
		lines[i] = toFile[level] + extra + l[len(indent):]
	}
	return strings.Join(lines, "\n")
}

var lineNumberPrefix = regexp.MustCompile(`^\s*\d+\| ?`)

// stripLineNumbers removes read_file's "12| " from every line of s, when every line that is
// not blank has one.
func stripLineNumbers(s string) (string, bool) {
	lines := strings.Split(s, "\n")
	numbered := false
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		loc := lineNumberPrefix.FindStringIndex(l)
		if loc == nil {
			return s, false
		}
		lines[i], numbered = l[loc[1]:], true
	}
	return strings.Join(lines, "\n"), numbered
}

func unnumbered(s string) string {
	stripped, _ := stripLineNumbers(s)
	return stripped
}

// similarityBudget bounds the line comparisons spent looking for the closest region.
const similarityBudget = 4_000_000

// notFound explains that old is not in the text and shows the lines most like it, numbered,
// so the model can copy the right text.
func (ft fileText) notFound(want []string) string {
	first, n := closestWindow(ft.loose, looseLines(want))
	if n == 0 {
		return "old was not found, and nothing in the file resembles it. Read the file to see what it contains now."
	}
	where := fmt.Sprintf("line %d", first+1)
	if n > 1 {
		where = fmt.Sprintf("lines %d–%d", first+1, first+n)
	}
	return fmt.Sprintf("old was not found, not even ignoring whitespace. The most similar text is at %s:\n%s"+
		"Copy old exactly from the file (without the line numbers), or read the file again if it may have changed.",
		where, ft.showLines(max(first-2, 0), min(first+n+2, len(ft.lines))))
}

// closestWindow finds the lines of have that best resemble want, line for line, and returns
// where they start and how many there are (0 when nothing resembles it at all). A window may
// run past the end of the file, for an old that goes on beyond the last line.
func closestWindow(have, want []string) (first, n int) {
	if len(have) == 0 || len(want) == 0 {
		return 0, 0
	}
	// On a huge file, only the first lines of old are compared; they still place it.
	compared := min(len(want), max(1, similarityBudget/len(have)))
	best := 0.0
	for s := range have {
		score := 0.0
		for i := 0; i < compared && s+i < len(have); i++ {
			score += lineSimilarity(want[i], have[s+i])
		}
		if score > best {
			first, best = s, score
		}
	}
	if best < 0.5 {
		return 0, 0
	}
	return first, min(len(want), len(have)-first)
}

// lineSimilarity scores two normalized lines from 0 to 1 by how much of them is a shared
// start and end, which is how a mistyped line usually relates to the real one.
func lineSimilarity(a, b string) float64 {
	switch {
	case a == b && a == "":
		return 0.1 // blank lines match everywhere, so they say little about where old is
	case a == b:
		return 1
	case a == "" || b == "":
		return 0
	}
	prefix := 0
	for prefix < len(a) && prefix < len(b) && a[prefix] == b[prefix] {
		prefix++
	}
	suffix := 0
	for suffix < len(a)-prefix && suffix < len(b)-prefix && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	return float64(prefix+suffix) / float64(max(len(a), len(b)))
}

// maxShownLines bounds the numbered lines in an error, and maxShownLineBytes each line.
const (
	maxShownLines     = 16
	maxShownLineBytes = 200
)

// showLines renders lines [from, to) like read_file does, "  12| text".
func (ft fileText) showLines(from, to int) string {
	cut := to > from+maxShownLines
	if cut {
		to = from + maxShownLines
	}
	width := len(strconv.Itoa(to)) + 2
	var b strings.Builder
	for i := from; i < to; i++ {
		l := ft.line(i)
		if len(l) > maxShownLineBytes {
			l = strings.ToValidUTF8(l[:maxShownLineBytes], "") + "…"
		}
		fmt.Fprintf(&b, "%*d| %s\n", width, i+1, l)
	}
	if cut {
		fmt.Fprintf(&b, "%*s| …\n", width, "")
	}
	return b.String()
}
