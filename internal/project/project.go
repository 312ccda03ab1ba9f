package project

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"gantry/internal/tools"
)

// Context is what the model is told about the project before it reads anything: the
// project's own instructions for agents and a few lines of facts that save it exploratory calls.
type Context struct {
	Name      string
	Languages []string
	// Instructions come from the files projects keep for coding agents (AGENTS.md, CLAUDE.md,
	// .github/copilot-instructions.md, .cursorrules), cut to a budget with a note saying so.
	Instructions string
	// Summary is a few lines, one per source: manifests, Makefile targets, the README's opening.
	Summary string
}

// Discovery reads only the start of each file, and skips files too large to be hand-written
// (generated manifests, vendored READMEs), which would cost time and say little.
const (
	readBytes        = 32 << 10
	maxFileBytes     = 1 << 20
	instructionChars = 3000 // ≈750 tokens, shared by all instruction files
	readmeChars      = 300
	listMax          = 10
)

// instructionFiles are read in this order; identical contents (CLAUDE.md is often a copy
// or a link of AGENTS.md) are included once.
var instructionFiles = []string{"AGENTS.md", "CLAUDE.md", ".github/copilot-instructions.md", ".cursorrules"}

// Discover reads the well-known files at root and summarises them. Missing, unreadable,
// binary or oversized files are skipped: a project without any of them gets an empty context,
// never an error. Files are resolved with tools.ResolveWorkspacePath, so a link leading out of
// the workspace is not followed.
func Discover(root string) Context {
	d := discovery{root: root, names: rootNames(root)}
	var p Context
	p.Instructions = d.instructions()
	var summary []string
	add := func(line, name, lang string) {
		if line == "" {
			return
		}
		summary = append(summary, line)
		if p.Name == "" {
			p.Name = name
		}
		if lang != "" && !slices.Contains(p.Languages, lang) {
			p.Languages = append(p.Languages, lang)
		}
	}
	add(d.goModule())
	add(d.nodePackage())
	add(d.pythonProject())
	add(d.rustCrate())
	add(d.makeTargets(), "", "")
	add(d.readme(), "", "")
	p.Summary = strings.Join(summary, "\n")
	if p.Name == "" && (p.Summary != "" || p.Instructions != "") {
		p.Name = filepath.Base(root)
	}
	return p
}

// Section renders the context for the system prompt; "" when nothing was found.
func (p Context) Section() string {
	if p.Summary == "" && p.Instructions == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("PROJECT CONTEXT:\n")
	if p.Name != "" {
		b.WriteString("Project: " + p.Name)
		if len(p.Languages) > 0 {
			b.WriteString(" (" + strings.Join(p.Languages, ", ") + ")")
		}
		b.WriteString("\n")
	}
	if p.Summary != "" {
		b.WriteString(p.Summary + "\n")
	}
	if p.Instructions != "" {
		b.WriteString("\nPROJECT INSTRUCTIONS (from the project's files for agents; follow them):\n")
		b.WriteString(p.Instructions + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

type discovery struct {
	root  string
	names map[string]string // lower-case name → actual name of the root's entries
}

func rootNames(root string) map[string]string {
	names := map[string]string{}
	entries, err := os.ReadDir(root)
	if err != nil {
		return names
	}
	for _, e := range entries {
		lower := strings.ToLower(e.Name())
		// An exact-case name wins over another spelling ("Makefile" over "makefile").
		if _, seen := names[lower]; !seen || e.Name() == lower {
			names[lower] = e.Name()
		}
	}
	return names
}

func (d discovery) has(name string) bool {
	_, ok := d.names[strings.ToLower(name)]
	return ok
}

// read returns the start of a text file under root, or "" when it is missing, leads out of the
// workspace, is not a regular file, is too large or is binary. truncated says the file went on.
func (d discovery) read(rel string) (text string, truncated bool) {
	if !strings.Contains(rel, "/") {
		actual, ok := d.names[strings.ToLower(rel)]
		if !ok {
			return "", false
		}
		rel = actual
	}
	abs, err := tools.ResolveWorkspacePath(d.root, rel)
	if err != nil {
		return "", false
	}
	// Stat before opening: opening a named pipe would block.
	fi, err := os.Stat(abs)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxFileBytes {
		return "", false
	}
	f, err := os.Open(abs)
	if err != nil {
		return "", false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, readBytes))
	if err != nil || bytes.IndexByte(data, 0) >= 0 {
		return "", false
	}
	truncated = fi.Size() > int64(len(data))
	if truncated {
		data = trimPartialRune(data)
	}
	if !utf8.Valid(data) {
		return "", false
	}
	return strings.ReplaceAll(string(data), "\r\n", "\n"), truncated
}

func trimPartialRune(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && len(b) > 0; i++ {
		if r, size := utf8.DecodeLastRune(b); r != utf8.RuneError || size > 1 {
			return b
		}
		b = b[:len(b)-1]
	}
	return b
}

func (d discovery) instructions() string {
	var parts []string
	var seen []string
	budget := instructionChars
	for _, name := range instructionFiles {
		text, truncated := d.read(name)
		text = strings.TrimSpace(text)
		if text == "" || slices.Contains(seen, text) {
			continue
		}
		seen = append(seen, text)
		// A few leftover characters would show a meaningless scrap of the file.
		if len(text) > budget && budget < 200 {
			parts = append(parts, fmt.Sprintf("(%s not included: the instructions above fill the space; read the file if it is needed)", name))
			continue
		}
		if cut, ok := cut(text, budget); ok {
			text, truncated = cut, true
		}
		budget -= len(text)
		block := "From " + name + ":\n" + text
		if truncated {
			block += fmt.Sprintf("\n(%s is cut here; read the file for the rest)", name)
		}
		parts = append(parts, block)
	}
	return strings.Join(parts, "\n\n")
}

// cut shortens s to at most limit bytes, at a line end when one is near.
func cut(s string, limit int) (string, bool) {
	if len(s) <= limit {
		return s, false
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if nl := strings.LastIndexByte(s[:cut], '\n'); nl > limit/2 {
		cut = nl
	}
	return strings.TrimRight(s[:cut], " \n"), true
}

// list renders at most listMax names, saying how many were left out.
func joinList(names []string) string {
	if len(names) <= listMax {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, … (%d more)", strings.Join(names[:listMax], ", "), len(names)-listMax)
}

func (d discovery) goModule() (line, name, lang string) {
	text, _ := d.read("go.mod")
	if text == "" {
		return "", "", ""
	}
	var module, goVersion string
	deps, inRequire := 0, false
	for _, l := range strings.Split(text, "\n") {
		l, comment, _ := strings.Cut(l, "//")
		fields := strings.Fields(l)
		indirect := strings.TrimSpace(comment) == "indirect"
		switch {
		case len(fields) == 0:
		case inRequire && fields[0] == ")":
			inRequire = false
		case inRequire:
			if !indirect {
				deps++
			}
		case fields[0] == "module" && len(fields) > 1:
			module = strings.Trim(fields[1], `"`)
		case fields[0] == "go" && len(fields) > 1:
			goVersion = fields[1]
		case fields[0] == "require" && len(fields) > 1 && fields[1] == "(":
			inRequire = true
		case fields[0] == "require" && !indirect:
			deps++
		}
	}
	if module == "" {
		return "", "", ""
	}
	var facts []string
	if goVersion != "" {
		facts = append(facts, "go "+goVersion)
	}
	facts = append(facts, fmt.Sprintf("%d direct deps", deps))
	return fmt.Sprintf("Go module %s (%s)", module, strings.Join(facts, ", ")), module, "Go"
}

func (d discovery) nodePackage() (line, name, lang string) {
	text, truncated := d.read("package.json")
	if text == "" || truncated {
		return "", "", ""
	}
	var pkg struct {
		Name            string            `json:"name"`
		Scripts         map[string]string `json:"scripts"`
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	if json.Unmarshal([]byte(text), &pkg) != nil {
		return "", "", ""
	}
	lang = "JavaScript"
	if d.has("tsconfig.json") || pkg.Dependencies["typescript"] != "" || pkg.DevDependencies["typescript"] != "" {
		lang = "TypeScript"
	}
	manager := "npm"
	for _, m := range []struct{ lock, name string }{{"pnpm-lock.yaml", "pnpm"}, {"yarn.lock", "yarn"}, {"bun.lockb", "bun"}, {"bun.lock", "bun"}} {
		if d.has(m.lock) {
			manager = m.name
			break
		}
	}
	label := pkg.Name
	if label == "" {
		label = "(unnamed)"
	}
	parts := []string{fmt.Sprintf("Node package %s (%s)", label, manager)}
	if len(pkg.Scripts) > 0 {
		parts = append(parts, "scripts: "+joinList(sortedKeys(pkg.Scripts)))
	}
	if len(pkg.Dependencies) > 0 {
		parts = append(parts, "deps: "+joinList(sortedKeys(pkg.Dependencies)))
	}
	if len(pkg.DevDependencies) > 0 {
		parts = append(parts, fmt.Sprintf("%d dev deps", len(pkg.DevDependencies)))
	}
	return strings.Join(parts, "; "), pkg.Name, lang
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// tomlDepName is the package name at the start of a dependency ("rich[jupyter]>=13").
var tomlDepName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*`)

func (d discovery) pythonProject() (line, name, lang string) {
	text, _ := d.read("pyproject.toml")
	if text == "" {
		if d.has("setup.py") || d.has("requirements.txt") {
			return "Python project (setup.py or requirements.txt; no pyproject.toml)", "", "Python"
		}
		return "", "", ""
	}
	doc := parseTOML(text)
	name = doc.str("project", "name")
	var deps []string
	if list, ok := doc["project"]["dependencies"].([]string); ok {
		for _, dep := range list {
			if n := tomlDepName.FindString(dep); n != "" {
				deps = append(deps, n)
			}
		}
	}
	if name == "" { // Poetry keeps the same facts elsewhere
		name = doc.str("tool.poetry", "name")
		for _, dep := range doc.keys("tool.poetry.dependencies") {
			if dep != "python" {
				deps = append(deps, dep)
			}
		}
	}
	label := name
	if label == "" {
		label = "(unnamed)"
	}
	line = "Python project " + label
	if py := doc.str("project", "requires-python"); py != "" {
		line += " (python " + py + ")"
	}
	if len(deps) > 0 {
		line += "; deps: " + joinList(deps)
	}
	return line, name, "Python"
}

func (d discovery) rustCrate() (line, name, lang string) {
	text, _ := d.read("Cargo.toml")
	if text == "" {
		return "", "", ""
	}
	doc := parseTOML(text)
	name = doc.str("package", "name")
	if name == "" {
		if _, ok := doc["workspace"]; ok {
			return "Rust workspace (Cargo)", "", "Rust"
		}
		return "", "", ""
	}
	var facts []string
	if ed := doc.str("package", "edition"); ed != "" {
		facts = append(facts, "edition "+ed)
	}
	facts = append(facts, fmt.Sprintf("%d deps", len(doc["dependencies"])))
	return fmt.Sprintf("Rust crate %s (%s)", name, strings.Join(facts, ", ")), name, "Rust"
}

// projectMakeTarget matches a rule's target list; ":=" and "::=" are assignments, not rules.
var projectMakeTarget = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9_./ -]*?)\s*::?(?:[^=]|$)`)

func (d discovery) makeTargets() string {
	var text string
	for _, name := range []string{"GNUmakefile", "Makefile"} {
		if text, _ = d.read(name); text != "" {
			break
		}
	}
	var targets []string
	for _, l := range strings.Split(text, "\n") {
		m := projectMakeTarget.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		for _, t := range strings.Fields(m[1]) {
			if !strings.ContainsAny(t, "%./") && !slices.Contains(targets, t) {
				targets = append(targets, t)
			}
		}
	}
	if len(targets) == 0 {
		return ""
	}
	return "Makefile targets: " + joinList(targets)
}

func (d discovery) readme() string {
	var text string
	for _, name := range []string{"README.md", "README.rst", "README.txt", "README"} {
		if text, _ = d.read(name); text != "" {
			break
		}
	}
	para := firstParagraph(text)
	if para == "" {
		return ""
	}
	if cut, ok := cut(para, readmeChars); ok {
		para = cut + "…"
	}
	return "README: " + para
}

// firstParagraph returns the README's first paragraph of prose, skipping titles (ATX,
// setext and rST), badges, HTML, rST directives, tables and code blocks.
func firstParagraph(text string) string {
	var para []string
	inCode := false
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~"):
			inCode = !inCode
			continue
		case l != "" && strings.Trim(l, "=-~*^#+") == "":
			para = nil // an underline: the lines above were a title
			continue
		}
		prose := !inCode && l != "" && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "<") &&
			!strings.HasPrefix(l, "![") && !strings.HasPrefix(l, "[![") && !strings.HasPrefix(l, "..") &&
			!strings.HasPrefix(l, "|")
		if prose {
			para = append(para, l)
		} else if len(para) > 0 {
			break
		}
	}
	return strings.Join(para, " ")
}
