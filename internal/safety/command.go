package safety

import (
	"path"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// CommandAnalysis is the danger tier of a shell command and why.
type CommandAnalysis struct {
	Severity Severity
	Reason   string // human-readable, shown on the approval card; empty for none
	// FolderCode says which part of the command runs code the opened folder supplies (its
	// programs, scripts, package scripts, build files), or is empty: in a folder the person has
	// not trusted, such a command always asks (SPEC §8, workspace trust).
	FolderCode string
}

// maxDepth bounds how far shell code inside strings (bash -c, eval, ssh host cmd) is
// followed; deeper nesting is itself suspicious.
const maxDepth = 4

// maxSnippet keeps the quoted part of a reason readable on the approval card.
const maxSnippet = 80

// AnalyzeCommand rates a shell command by the most dangerous thing it can do.
func AnalyzeCommand(command string) CommandAnalysis {
	return AnalyzeCommandIn(command, "")
}

// AnalyzeCommandIn is AnalyzeCommand for a command run in the workspace at root (an absolute
// slash path), which also tells absolute paths into the workspace apart for FolderCode.
func AnalyzeCommandIn(command, root string) CommandAnalysis {
	a := newAnalyzer()
	if root != "" {
		a.root = path.Clean(root)
	}
	a.source(command, 0)
	if a.best.sev == SeverityNone {
		return CommandAnalysis{Severity: SeverityNone, FolderCode: a.folder}
	}
	return CommandAnalysis{Severity: a.best.sev, Reason: a.best.reason, FolderCode: a.folder}
}

// analyzer walks one command, keeping the worst finding.
type analyzer struct {
	src   string // the text that positions of the nodes being walked refer to
	depth int
	best  finding
	pipes map[*syntax.BinaryCmd]bool // inner nodes of pipelines already judged whole

	// cwd is where relative paths point once a cd has moved ("" is the workspace root).
	// A subshell's cd ends with it: open holds, for each node being walked, the directory
	// to return to when it ends, if it is a subshell.
	cwd  string
	open []scope
	// secret names the first secret the command reads, and network says it reaches another
	// machine: together they are how a key leaves the machine (cat ~/.ssh/id_rsa | nc …).
	// exposed names what the command shows that is a secret only when sent (the
	// environment, the project's .env): it completes the pair but is never flagged alone.
	secret  string
	exposed string
	network bool
	// root is the workspace's absolute path when known; folder is the first part found that
	// runs the folder's own code (CommandAnalysis.FolderCode).
	root, folder string
	// local says the command talks only to this machine (curl localhost:3000): that is how a
	// project's own server is tried out with its .env loaded, so it does not complete the
	// pair for exposed; a real secret sent even there is still critical.
	local bool
}

// newAnalyzer starts from none; a zero analyzer would start from the empty severity, which
// ranks as critical and would hide every finding.
func newAnalyzer() *analyzer {
	return &analyzer{best: noFinding}
}

// flag records f if it is worse than anything so far; ties keep the earlier part, which is
// the one that runs first.
func (a *analyzer) flag(f finding, n syntax.Node) {
	if f.sev.Rank() <= a.best.sev.Rank() {
		return
	}
	if s := a.snippet(n); s != "" {
		f.reason += ": " + s
	}
	a.best = f
}

// readsSecret records a read of what (a secret) and its finding.
func (a *analyzer) readsSecret(what string, f finding, n syntax.Node) {
	a.flag(f, n)
	if a.secret == "" {
		a.secret = what
	}
	a.exfiltration()
}

// usesNetwork records that the command reaches another machine, with f as its finding.
func (a *analyzer) usesNetwork(f finding, n syntax.Node) {
	a.flag(f, n)
	a.network = true
	a.exfiltration()
}

// exfiltration is critical: a secret read and a network connection in one command, through
// a pipe, $(…), && or a file in between, is the shape of stealing credentials.
func (a *analyzer) exfiltration() {
	what := a.secret
	if what == "" {
		what = a.exposed
	}
	if a.secret == "" && !a.network {
		what = "" // the environment or a .env sent to this machine only
	}
	if what != "" && (a.network || a.local) && a.best.sev != SeverityCritical {
		// The whole command, not the part that completed the pair, shows where it goes.
		reason := "sends " + what + " over the network"
		if q := quote(a.src); q != "" {
			reason += ": " + q
		}
		a.flag(finding{SeverityCritical, reason}, nil)
	}
}

func (a *analyzer) snippet(n syntax.Node) string {
	if n == nil {
		return ""
	}
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(a.src) || start >= end {
		return ""
	}
	return quote(a.src[start:end])
}

// quote shortens code to one readable line for a reason.
func quote(code string) string {
	s := strings.Join(strings.Fields(code), " ")
	if utf8.RuneCountInString(s) > maxSnippet {
		s = string([]rune(s)[:maxSnippet-1]) + "…"
	}
	return s
}

// source parses and walks shell code at the given nesting depth.
func (a *analyzer) source(src string, depth int) {
	if depth > maxDepth {
		a.flag(finding{SeverityHigh, "nests shell code too deeply to analyse"}, nil)
		return
	}
	f, err := parse(src)
	if err != nil {
		a.unparsed(src, err, depth)
		return
	}
	a.walk(f, src, depth)
}

func parse(src string) (*syntax.File, error) {
	return syntax.NewParser().Parse(strings.NewReader(src), "")
}

func (a *analyzer) walk(f *syntax.File, src string, depth int) {
	outerSrc, outerDepth := a.src, a.depth
	a.src, a.depth = src, depth
	defer func() { a.src, a.depth = outerSrc, outerDepth }()
	syntax.Walk(f, a.visit)
}

// visit sees every node, so commands inside $(…), `…`, <(…), function bodies, loops and
// conditionals are judged like top-level ones.
func (a *analyzer) visit(n syntax.Node) bool {
	if n == nil { // Walk is done with the node entered last
		if s := a.open[len(a.open)-1]; s.subshell {
			a.cwd = s.cwd
		}
		a.open = a.open[:len(a.open)-1]
		return true
	}
	switch n.(type) {
	case *syntax.Subshell, *syntax.CmdSubst, *syntax.ProcSubst:
		a.open = append(a.open, scope{cwd: a.cwd, subshell: true})
	default:
		a.open = append(a.open, scope{})
	}
	switch n := n.(type) {
	case *syntax.Stmt:
		a.stmt(n)
	case *syntax.BinaryCmd:
		if isPipe(n) && !a.pipes[n] {
			a.pipeline(n)
		}
	case *syntax.FuncDecl:
		a.funcDecl(n)
	}
	return true
}

// scope is one node being walked: (cd / && ls); rm -rf * still runs in the workspace.
type scope struct {
	cwd      string
	subshell bool
}

func isPipe(b *syntax.BinaryCmd) bool {
	return b.Op == syntax.Pipe || b.Op == syntax.PipeAll
}

func (a *analyzer) stmt(s *syntax.Stmt) {
	for _, r := range s.Redirs {
		switch {
		case writesFile(r):
			t := resolveWord(r.Word)
			if netDevice(t) {
				a.usesNetwork(classifyWrite(t), r)
			} else {
				a.flag(a.afterCd(classifyWrite(atDir(a.cwd, t)), classifyWrite(t)), r)
			}
		case r.Op == syntax.RdrIn && r.Word != nil:
			t := resolveWord(r.Word)
			if netDevice(t) {
				a.usesNetwork(finding{SeverityHigh, "opens a network connection through " + t.text}, r)
			} else {
				a.readPath(t, false, r)
			}
		}
	}
	switch cmd := s.Cmd.(type) {
	case *syntax.CallExpr:
		for _, as := range cmd.Assigns {
			a.pathAssign(as)
		}
		if len(cmd.Args) > 0 {
			a.call(resolveWords(cmd.Args), s, cmd)
		}
	case *syntax.DeclClause:
		for _, as := range cmd.Args {
			a.pathAssign(as)
		}
		if declPrints(cmd) {
			a.exposes(theEnvironment)
		}
	}
}

// netDevice reports whether a redirection target is bash's /dev/tcp or /dev/udp, a socket.
func netDevice(t arg) bool {
	p := canonical(t.text)
	return t.static && (strings.HasPrefix(p, "/dev/tcp/") || strings.HasPrefix(p, "/dev/udp/"))
}

// writesFile reports whether a redirection opens its word as a file for writing; >&2 and
// >&- only juggle descriptors.
func writesFile(r *syntax.Redirect) bool {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
		return r.Word != nil
	case syntax.DplOut:
		if r.Word == nil {
			return false
		}
		t := resolveWord(r.Word).text
		return t != "-" && strings.Trim(t, "0123456789-") != ""
	}
	return false
}

func resolveWords(words []*syntax.Word) []arg {
	args := make([]arg, len(words))
	for i, w := range words {
		args[i] = resolveWord(w)
	}
	return args
}

// call judges one simple command; s is its statement (for heredocs) when it has one.
func (a *analyzer) call(args []arg, s *syntax.Stmt, n syntax.Node) {
	args = a.substituted(args)
	c, elevated, ok := unwrap(args)
	if elevated != "" {
		a.flag(finding{SeverityHigh, "runs with elevated privileges (" + elevated + ")"}, n)
	}
	if !ok {
		return
	}
	for _, x := range args {
		if x.split {
			code, _ := joinArgs(args)
			a.nested(code)
			break
		}
	}
	if !c.head.static {
		a.flag(finding{SeverityMedium, "runs a program only known at run time"}, n)
		return
	}
	a.nestedCode(c, s, n)
	a.noteFolderCode(c, n)
	if r := lookupRule(c.name); r != nil {
		here := r(c)
		if a.cwd != "" {
			c.cwd = a.cwd
			a.flag(a.afterCd(r(c), here), n)
		} else {
			a.flag(here, n)
		}
	}
	a.reads(c, n)
	if talksToNetwork(c) {
		// A proxy set anywhere in the command (http_proxy=…, export ALL_PROXY=…) sends even
		// localhost elsewhere.
		if loopbackOnly(c) && !strings.Contains(strings.ToLower(a.src), "proxy") {
			a.local = true
		} else {
			a.network = true
		}
		a.exfiltration()
	}
}

// afterCd names the directory a cd moved to when that is what makes f differ from here, the
// same words judged in the workspace: the card for cd / && rm -rf * must not read as if
// rm -rf * alone deletes the root filesystem.
func (a *analyzer) afterCd(f, here finding) finding {
	if f == here || f.sev == SeverityNone || !leftWorkspace(a.cwd) {
		return f
	}
	dir := a.cwd
	if rest, ok := strings.CutPrefix(dir, homeDir); ok {
		dir = "~" + rest
	}
	f.reason += " (after cd " + dir + ")"
	return f
}

// pipeline judges a whole pipeline at once, because a | b is only dangerous for what a
// feeds b: a download or decoded blob piped into a shell runs code nobody has read.
func (a *analyzer) pipeline(b *syntax.BinaryCmd) {
	if a.pipes == nil {
		a.pipes = map[*syntax.BinaryCmd]bool{}
	}
	stages := a.flatten(b, nil)
	downloaded, decoded := false, false
	for i, st := range stages {
		if i > 0 {
			a.xargsRun(stages, i, b)
		}
		if c, ok := stageCommand(st); ok && i > 0 && readsStdin(c) {
			switch {
			case downloaded:
				a.flag(finding{SeverityCritical, "pipes a download into " + c.name}, b)
			case decoded:
				a.flag(finding{SeverityHigh, "pipes decoded data into " + c.name}, b)
			default:
				a.pipedCode(stages[i-1], c, b)
			}
		}
		downloaded = downloaded || runsAny(st, downloaders)
		decoded = decoded || runsAny(st, decoders)
	}
}

func (a *analyzer) flatten(b *syntax.BinaryCmd, stages []*syntax.Stmt) []*syntax.Stmt {
	a.pipes[b] = true
	for _, side := range []*syntax.Stmt{b.X, b.Y} {
		if inner, ok := side.Cmd.(*syntax.BinaryCmd); ok && isPipe(inner) {
			stages = a.flatten(inner, stages)
		} else {
			stages = append(stages, side)
		}
	}
	return stages
}

// pipedCode judges what an interpreter reads from the previous stage: the text of echo or
// of a heredoc given to cat is read as the code it is; anything else is opaque.
func (a *analyzer) pipedCode(prev *syntax.Stmt, c command, n syntax.Node) {
	if code, ok := stageText(prev); ok {
		if spec, isInline := inlineSpec(c.name); isInline {
			a.inlineCode(spec.lang, code, n)
			return
		}
		if shells[c.name] && code.static {
			a.nested(code.text)
			return
		}
	}
	a.flag(finding{SeverityMedium, "runs piped input as code with " + c.name}, n)
}

// stageText is the text a pipeline stage writes when it is written out in the command:
// echo or printf's arguments, or the heredoc of a bare cat.
func stageText(st *syntax.Stmt) (arg, bool) {
	p, ok := stageCommand(st)
	switch {
	case !ok:
		return arg{}, false
	case p.name == "echo" || p.name == "printf":
		code, static := joinArgs(p.args)
		return arg{text: code, static: static}, true
	case p.name == "cat" && len(p.args) == 0:
		for _, r := range st.Redirs {
			switch {
			case (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil:
				return resolveWord(r.Hdoc), true
			case r.Op == syntax.WordHdoc && r.Word != nil:
				return resolveWord(r.Word), true
			}
		}
	}
	return arg{}, false
}

// stageCommand is the program a pipeline stage runs, when it is a simple command.
func stageCommand(st *syntax.Stmt) (command, bool) {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return command{}, false
	}
	c, _, ok := unwrap(resolveWords(call.Args))
	return c, ok && c.head.static
}

// runsAny reports whether any command within n runs one of the programs.
func runsAny(n syntax.Node, programs map[string]bool) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok && len(call.Args) > 0 {
			c, _, ok := unwrap(resolveWords(call.Args))
			found = found || ok && programs[c.name]
		}
		return !found
	})
	return found
}

// funcDecl spots fork bombs under any name: a function that pipes into or backgrounds a
// call to itself multiplies processes until the machine stops.
func (a *analyzer) funcDecl(f *syntax.FuncDecl) {
	if f.Name == nil || f.Body == nil {
		return
	}
	name := f.Name.Value
	bomb := false
	syntax.Walk(f.Body, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			bomb = bomb || n.Background && callsName(n, name)
		case *syntax.BinaryCmd:
			bomb = bomb || isPipe(n) && (callsName(n.X, name) || callsName(n.Y, name))
		}
		return !bomb
	})
	if bomb {
		a.flag(finding{SeverityCritical, "defines a fork bomb"}, f)
	}
}

func callsName(s *syntax.Stmt, name string) bool {
	call, ok := s.Cmd.(*syntax.CallExpr)
	return ok && len(call.Args) > 0 && resolveWord(call.Args[0]).text == name
}

func joinArgs(args []arg) (string, bool) {
	static := true
	for _, x := range args {
		static = static && x.static
	}
	return strings.Join(texts(args), " "), static
}
