package safety

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Paths that reach a program through a pipe or $(…) instead of its own words: in
// find ~ -name '*.pem' | xargs cat and cat $(find ~ -name '*.pem') the files cat reads are
// the ones find lists. listed says what such a listing can name, so the program is judged as
// if it had been given those paths; "{}" in them stands for anything below (as in find -exec).

// listed returns the paths a pipeline stage or $(…) prints when it is a program that lists
// files (find, ls, locate, fd, git ls-files, rg --files) or echo/printf of paths. ok is false
// for anything else, whose output is unknown.
func (a *analyzer) listed(st *syntax.Stmt) (paths []arg, ok bool) {
	c, ok := stageCommand(st)
	if !ok {
		return nil, false
	}
	// below is what a listing of dir can name: anything under it, or a file called name
	// (judged as if directly inside, so find /etc -name '*.conf' is not /etc/shadow).
	below := func(dir arg, name string) arg {
		dir = atDir(a.cwd, dir)
		if name == "" {
			name = "{}"
		}
		return arg{text: path.Join(dir.text, name), static: dir.static}
	}
	// under is below for each of dirs, the current folder when there are none.
	under := func(dirs []arg, name string) []arg {
		if len(dirs) == 0 {
			dirs = []arg{{text: ".", static: true}}
		}
		out := make([]arg, len(dirs))
		for i, d := range dirs {
			out[i] = below(d, name)
		}
		return out
	}
	switch c.name {
	case "find":
		roots := findRoots(c.args)
		names := findNames(c.args)
		if len(roots)*max(1, len(names)) > maxListed {
			return nil, false
		}
		for _, r := range roots {
			if len(names) == 0 {
				paths = append(paths, below(r, ""))
			}
			for _, name := range names {
				paths = append(paths, below(r, name))
			}
		}
		return paths, true
	case "ls", "tree":
		return under(operands(c.args), ""), true
	case "fd", "fdfind":
		ops := operands(c.args)
		name := ""
		if len(ops) > 0 {
			name, ops = ops[0].text, ops[1:]
		}
		return under(ops, name), true
	case "locate", "plocate", "mlocate":
		// Anywhere on the machine.
		for _, p := range operands(c.args) {
			paths = append(paths, below(arg{text: "/", static: true}, path.Base(p.text)))
		}
		return paths, true
	case "git":
		if ops := operands(c.args); len(ops) > 0 && ops[0].text == "ls-files" {
			return under(nil, ""), true
		}
	case "rg":
		if hasLongFlag(c.args, "files") {
			return under(searchSpec.opts.operands(c.args), ""), true // every operand is a path
		}
	case "echo", "printf":
		for _, w := range c.args {
			if isFlag(w.text) {
				continue
			}
			for _, f := range strings.Fields(w.text) {
				paths = append(paths, atDir(a.cwd, arg{text: f, static: w.static}))
			}
		}
		return paths, true
	}
	return nil, false
}

// findRoots are find's starting points (the words before the first expression, after the
// options -H -L -P -D -O), "." if none.
func findRoots(args []arg) []arg {
	for len(args) > 0 {
		t := args[0].text
		if t == "-H" || t == "-L" || t == "-P" || strings.HasPrefix(t, "-O") {
			args = args[1:]
		} else if t == "-D" && len(args) > 1 {
			args = args[2:]
		} else {
			break
		}
	}
	var roots []arg
	for _, x := range args {
		if strings.HasPrefix(x.text, "-") || x.text == "(" || x.text == "!" {
			break
		}
		roots = append(roots, x)
	}
	if len(roots) == 0 {
		roots = []arg{{text: ".", static: true}}
	}
	return roots
}

// findNames are the base-name patterns find is told to match (-name, -iname).
func findNames(args []arg) []string {
	var names []string
	for i := 0; i+1 < len(args); i++ {
		if t := args[i].text; t == "-name" || t == "-iname" {
			names = append(names, args[i+1].text)
		}
	}
	return names
}

// maxListed bounds the paths one listing stands for: each is judged as a command of its own.
// A longer listing counts as unknown.
const maxListed = 64

// passThrough are filters that keep a listing a listing: find ~ -name '*.pem' | sort | xargs cat.
var passThrough = map[string]bool{
	"sort": true, "uniq": true, "head": true, "tail": true, "grep": true, "egrep": true,
	"fgrep": true, "rg": true, "cat": true, "tac": true, "shuf": true,
}

// xargsRun judges the program xargs runs (stage i) with the paths an earlier stage lists.
func (a *analyzer) xargsRun(stages []*syntax.Stmt, i int, n syntax.Node) {
	call, ok := stages[i].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) < 2 {
		return
	}
	args := resolveWords(call.Args)
	if !args[0].static || programName(args[0]) != "xargs" {
		return
	}
	src := i - 1
	for src > 0 {
		c, ok := stageCommand(stages[src])
		if !ok || !passThrough[c.name] || c.name == "rg" && hasLongFlag(c.args, "files") {
			break
		}
		src--
	}
	items, ok := a.listed(stages[src])
	if !ok || len(items) == 0 || len(items) > maxListed {
		return
	}
	rest := args[1:]
	inner := wrappers["xargs"].skip(rest)
	if len(inner) == 0 {
		return // xargs alone runs echo
	}
	own := rest[:len(rest)-len(inner)] // xargs' options, not the program's
	replace := ""
	if v, ok := optionValue(own, "-I", "--replace"); ok {
		replace = v.text
	} else if hasShortFlag(own, 'i') || hasLongFlag(own, "replace") {
		replace = "{}"
	}
	for _, item := range items {
		a.call(withItem(inner, item, replace), nil, n)
	}
}

// withItem is the command line xargs builds for one item: the item in place of the
// replacement string, or after the arguments.
func withItem(args []arg, item arg, replace string) []arg {
	out := make([]arg, 0, len(args)+1)
	for _, x := range args {
		if replace != "" && strings.Contains(x.text, replace) {
			x.text = strings.ReplaceAll(x.text, replace, item.text)
			x.static = x.static && item.static
		}
		out = append(out, x)
	}
	if replace == "" {
		out = append(out, item)
	}
	return out
}

// substituted returns args with each word that is exactly one $(…) of a listing replaced by
// the paths it lists: cat $(find ~ -name '*.pem') reads what find finds.
func (a *analyzer) substituted(args []arg) []arg {
	var out []arg
	for i, x := range args {
		var items []arg
		ok := false
		if cs := onlySubst(x.word); cs != nil && len(cs.Stmts) == 1 {
			items, ok = a.listed(cs.Stmts[0])
			ok = ok && len(items) <= maxListed
		}
		if !ok {
			if out != nil {
				out = append(out, x)
			}
			continue
		}
		if out == nil {
			out = append([]arg{}, args[:i]...)
		}
		out = append(out, items...)
	}
	if out == nil {
		return args
	}
	return out
}

// onlySubst is the $(…) a word consists of, quoted or not, or nil.
func onlySubst(w *syntax.Word) *syntax.CmdSubst {
	if w == nil || len(w.Parts) != 1 {
		return nil
	}
	part := w.Parts[0]
	if q, ok := part.(*syntax.DblQuoted); ok && len(q.Parts) == 1 {
		part = q.Parts[0]
	}
	cs, _ := part.(*syntax.CmdSubst)
	return cs
}
