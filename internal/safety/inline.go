package safety

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// codeSpec says how an interpreter takes a program on its command line.
type codeSpec struct {
	lang string
	code string // short flags whose value is the program: python -c, perl -e
	// value: short flags taking another value, attached or as the next word (node -r mod).
	value string
	// rest: short flags that take the rest of their cluster as a value, never the next word
	// (perl -i.bak, -Mstrict), so -lne still finds e.
	rest     string
	stop     string   // short flags after which there is no inline program (python -m mod)
	longCode []string // long flags whose value is the program: node --eval
}

var (
	pythonSpec = codeSpec{lang: "Python", code: "c", value: "WX", stop: "m"}
	nodeSpec   = codeSpec{lang: "JavaScript", code: "ep", value: "rC", longCode: []string{"eval", "print"}}
	perlSpec   = codeSpec{lang: "Perl", code: "eE", rest: "iIMmxFl0"}
	rubySpec   = codeSpec{lang: "Ruby", code: "e", value: "rIC"}
	phpSpec    = codeSpec{lang: "PHP", code: "rBRE", value: "cdz", stop: "f"}
	luaSpec    = codeSpec{lang: "Lua", code: "e", value: "l"}
	rSpec      = codeSpec{lang: "R", code: "e"}
	appleSpec  = codeSpec{lang: "AppleScript", code: "e", value: "ls"}
)

// inlineInterpreters are the programs whose inline code is looked into; versioned names
// (python3.12) fall back to the plain one.
var inlineInterpreters = map[string]codeSpec{
	"python": pythonSpec, "pypy": pythonSpec, "node": nodeSpec, "nodejs": nodeSpec, "bun": nodeSpec,
	"perl": perlSpec, "ruby": rubySpec, "php": phpSpec, "lua": luaSpec, "luajit": luaSpec,
	"rscript": rSpec, "osascript": appleSpec,
}

func inlineSpec(name string) (codeSpec, bool) {
	if s, ok := inlineInterpreters[name]; ok {
		return s, true
	}
	s, ok := inlineInterpreters[strings.TrimRight(name, "0123456789.")]
	return s, ok
}

// inlinePrograms returns the code given on the command line, in order (perl -e may repeat).
func (s codeSpec) inlinePrograms(args []arg) []arg {
	var out []arg
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" || !isFlag(t) {
			return out // a script file: the words after it are its arguments
		}
		if long, ok := strings.CutPrefix(t, "--"); ok {
			name, value, attached := strings.Cut(long, "=")
			if !contains(s.longCode, name) {
				continue
			}
			if attached {
				out = append(out, arg{text: value, static: args[i].static})
			} else if i+1 < len(args) {
				i++
				out = append(out, args[i])
			}
			continue
		}
	cluster:
		for j := 1; j < len(t); j++ {
			letter, attached := t[j], t[j+1:]
			switch {
			case strings.IndexByte(s.stop, letter) >= 0:
				return out
			case strings.IndexByte(s.code, letter) >= 0:
				if attached != "" {
					out = append(out, arg{text: attached, static: args[i].static})
				} else if i+1 < len(args) {
					i++
					out = append(out, args[i])
				}
				break cluster
			case strings.IndexByte(s.value, letter) >= 0:
				if attached == "" {
					i++
				}
				break cluster
			case strings.IndexByte(s.rest, letter) >= 0:
				if letter == 'l' || letter == '0' {
					for j+1 < len(t) && t[j+1] >= '0' && t[j+1] <= '7' {
						j++ // perl -l and -0 take octal digits, then more flags
					}
					continue
				}
				break cluster
			}
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// interpreter follows inline code: python -c, node -e, perl -e, ruby -e, php -r, deno eval,
// osascript -e, pwsh -Command, and a heredoc or here-string fed to one of them.
func (a *analyzer) interpreter(c command, s *syntax.Stmt, n syntax.Node) {
	if c.name == "deno" {
		if ops := operands(c.args); len(ops) > 1 && ops[0].text == "eval" {
			a.inlineCode("JavaScript", ops[1], n)
		}
		return
	}
	if c.name == "pwsh" || c.name == "powershell" {
		a.powershell(c, n)
		return
	}
	spec, ok := inlineSpec(c.name)
	if !ok {
		return
	}
	progs := spec.inlinePrograms(c.args)
	if len(progs) > 0 {
		code := progs[0]
		for _, p := range progs[1:] {
			code.text += "\n" + p.text
			code.static = code.static && p.static
		}
		a.inlineCode(spec.lang, code, n)
		return
	}
	if s == nil || !readsStdin(c) && c.name != "osascript" {
		return
	}
	for _, r := range s.Redirs {
		switch {
		case (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil:
			a.inlineCode(spec.lang, resolveWord(r.Hdoc), n)
		case r.Op == syntax.WordHdoc && r.Word != nil:
			a.inlineCode(spec.lang, resolveWord(r.Word), n)
		}
	}
}

// powershell takes -Command like a shell's -c; -EncodedCommand hides its code in base64,
// which is how droppers run PowerShell.
func (a *analyzer) powershell(c command, n syntax.Node) {
	for i, x := range c.args {
		flag := strings.ToLower(strings.TrimLeft(x.text, "-/"))
		if !strings.HasPrefix(x.text, "-") {
			return
		}
		switch {
		case flag == "c" || flag == "command":
			if i+1 < len(c.args) {
				code, static := joinArgs(c.args[i+1:])
				a.inlineCode("PowerShell", arg{text: code, static: static}, n)
			}
			return
		case len(flag) >= 1 && strings.HasPrefix("encodedcommand", flag) || flag == "ec":
			a.flag(finding{SeverityHigh, "runs PowerShell code hidden in base64"}, n)
			return
		case flag == "f" || flag == "file":
			return
		}
	}
}

// codeRisk is something inline code does that is worth more than a glance.
type codeRisk struct {
	what    string   // completes "inline Python code …"
	tokens  []string // any of these in the code; a leading letter must start a word
	fold    bool     // match ignoring case
	network bool
}

var codeRisks = []codeRisk{
	{what: "deletes files", tokens: []string{
		"rmtree", "os.remove", "unlink(", "rmdir(", "removedirs", "send2trash", "fs.rm",
		"rmSync", "unlinkSync", "rimraf", "rm_rf", "rm_r", "FileUtils.rm", "File.delete", "Dir.delete",
		"Remove-Item", "file.remove(", "Deno.remove", "delete file", "delete folder",
	}},
	{what: "starts other programs", tokens: []string{
		"os.system", "subprocess", "popen", "os.exec", "os.spawn", "pty.spawn", "getoutput",
		"child_process", "execSync", "spawnSync", "execFile", "Bun.spawn", "Deno.Command",
		"Deno.run", "system(", "system2(", "exec(", "spawn(", "fork(", "proc_open",
		"shell_exec", "passthru", "pcntl_exec", "Open3", "%x(", "%x{", "qx(", "qx{", "qx/",
		"do shell script", "Start-Process", "os.execute",
	}},
	{what: "opens network connections", network: true, fold: true, tokens: []string{
		"socket", "websocket", "urllib", "urlopen", "requests.", "import requests", "from requests",
		"http.client", "httplib", "httpx", "aiohttp", "ftplib", "smtplib", "telnetlib",
		"paramiko", "fetch(", "xmlhttprequest", "http.request", "https.request", "http.get(",
		"https.get(", "net.connect", "createconnection", "tls.connect", "dgram", "axios",
		"lwp::", "http::tiny", "net::http", "open-uri", "curl_", "fsockopen", "deno.connect",
		"require('http", `require("http`, "require('net'", `require("net"`, "node:http",
		"node:net", "node:dgram", "invoke-webrequest", "invoke-restmethod", "webclient", "download.file(", "url.openstream",
	}},
	{what: "decodes and runs hidden code", tokens: []string{
		"b64decode", "base64", "decompress", "fromhex", "atob(", "fromCharCode", "unpack(",
		"FromBase64String",
	}},
}

// codeOnlyExec is the "starts other programs" list without exec(.
var codeOnlyExec = func() []string {
	var out []string
	for _, t := range codeRisks[1].tokens {
		if t != "exec(" {
			out = append(out, t)
		}
	}
	return out
}()

// evaluators run code built at run time; with a decoder in the same program they run what
// nobody can read.
var evaluators = []string{"exec(", "eval(", "Function(", "Invoke-Expression", "iex ", "instance_eval"}

// writers change files; with a path outside the project in the same program they write
// there.
var writers = []string{
	"write_text", "write_bytes", "writeFile", "appendFile", "createWriteStream",
	"file_put_contents", "File.write", "Set-Content", "Out-File", "Add-Content", "shutil.copy",
	"shutil.move", "os.rename", "os.replace", "renameSync", "copyFile", "symlink", "chmod(",
	"chown(", "mkdir(", "makedirs(", "mkdirSync",
}

// maxShellLiterals bounds how many strings of a program that starts other programs are
// read as shell commands.
const maxShellLiterals = 16

// inlineCode rates a program given on the command line: at least medium, since it can do
// anything its interpreter can; high when it plainly deletes, writes outside the project,
// starts programs, touches secrets or the network; and the strings it hands to a shell are
// judged like any command (os.system("rm -rf /") is critical).
func (a *analyzer) inlineCode(lang string, code arg, n syntax.Node) {
	label := "runs inline " + lang + " code"
	if !code.static {
		a.runsDownload([]arg{code}, n)
	}
	src := code.text
	lower := strings.ToLower(src)
	lits := literals(src, lang)
	spawns := false
	for _, r := range codeRisks {
		text, tokens := src, r.tokens
		if r.fold {
			text = lower
		}
		if r.what == "starts other programs" && (lang == "Python" || lang == "JavaScript") {
			tokens = codeOnlyExec // exec() runs Python or JavaScript here, not a program
		}
		if !anyToken(text, tokens) {
			continue
		}
		switch {
		case r.what == "decodes and runs hidden code":
			if !anyToken(src, evaluators) {
				continue
			}
		case r.what == "starts other programs":
			spawns = true
		}
		f := finding{SeverityHigh, label + " that " + r.what}
		if r.network {
			a.usesNetwork(f, n)
		} else {
			a.flag(f, n)
		}
	}
	if !spawns && startsPrograms(src, lang, lits) {
		spawns = true
		a.flag(finding{SeverityHigh, label + " that starts other programs"}, n)
	}
	if what := secretInCode(src); what != "" {
		a.readsSecret(what, finding{SeverityHigh, label + " that reads " + what}, n)
	}
	if writesOutside(src, lits) {
		a.flag(finding{SeverityHigh, label + " that writes files outside the project"}, n)
	}
	if spawns {
		for i, l := range shellCandidates(lits) {
			if i == maxShellLiterals {
				break
			}
			a.nested(l)
		}
	}
	a.flag(finding{SeverityMedium, label}, n)
}

// anyToken reports whether text holds one of tokens; a token that starts with a letter
// must start a word there, so "filesystem(" is not "system(".
func anyToken(text string, tokens []string) bool {
	for _, tok := range tokens {
		for from := 0; ; {
			i := strings.Index(text[from:], tok)
			if i < 0 {
				break
			}
			i += from
			if i == 0 || !isWordByte(tok[0]) || !isWordByte(text[i-1]) {
				return true
			}
			from = i + 1
		}
	}
	return false
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// maxLiterals bounds the string literals collected from one program.
const maxLiterals = 256

// literal is a quoted string in a program, whether only a comma (a list, an argument list)
// separates it from the previous one, and whether the language runs it as a shell command
// by itself (Perl's and Ruby's backticks, qx{}, %x{}).
type literal struct {
	text    string
	listed  bool
	command bool
}

// literals collects the quoted strings of a program (see quoteAt for what quotes).
func literals(src, lang string) []literal {
	var out []literal
	last := -1
	for i := 0; i < len(src) && len(out) < maxLiterals; i++ {
		q, ok := quoteAt(src, i, lang)
		if !ok {
			continue
		}
		var b strings.Builder
		j, depth := q.body, 0
		for ; j < len(src); j++ {
			c := src[j]
			if c == '\\' && j+1 < len(src) {
				j++
				b.WriteByte(src[j])
				continue
			}
			if q.open != 0 && c == q.open {
				depth++ // qx{ {} } closes at the brace that matches
			} else if c == q.close {
				if depth == 0 {
					break
				}
				depth--
			}
			b.WriteByte(c)
		}
		listed := last >= 0 && strings.Trim(src[last:i], " \t\n,") == "" && strings.Contains(src[last:i], ",")
		out = append(out, literal{text: b.String(), listed: listed, command: q.command})
		i, last = j, j+1
	}
	return out
}

// shellCandidates are the strings a program that starts programs may hand to a shell: each
// literal, and each run of listed literals joined (subprocess.run(["rm", "-rf", "/"])),
// followed by the members of the run that hold a whole command (["sh", "-c", "rm -rf /"]),
// which joining would split into words.
func shellCandidates(lits []literal) []string {
	var out []string
	for i := 0; i < len(lits); i++ {
		j := i + 1
		for j < len(lits) && lits[j].listed {
			j++
		}
		words := make([]string, 0, j-i)
		for _, l := range lits[i:j] {
			// Perl's and Ruby's pipe opens mark the command with a | at either end.
			words = append(words, strings.Trim(l.text, "| "))
		}
		out = append(out, strings.Join(words, " "))
		if j > i+1 {
			for _, l := range lits[i:j] {
				if strings.ContainsAny(l.text, " \t\n") {
					out = append(out, l.text)
				}
			}
			i = j - 1
		}
	}
	return out
}

// writesOutside reports whether a program writes (a write call, open with a write mode, or
// Perl's open to ">path") and names a path outside the project.
func writesOutside(src string, lits []literal) bool {
	writes := anyToken(src, writers)
	outside := false
	for _, l := range lits {
		t := l.text
		if strings.HasPrefix(t, ">") || strings.HasPrefix(t, "+<") {
			if p := strings.TrimSpace(strings.TrimLeft(t, "+<>")); outsidePath(p) {
				return true
			}
		}
		if isWriteMode(t) && (anyToken(src, []string{"open(", "fopen(", "File.open", "io.open"})) {
			writes = true
		}
		outside = outside || outsidePath(t)
	}
	return writes && outside
}

func outsidePath(t string) bool {
	if t == "" || strings.ContainsAny(t, " \t\n") {
		return false
	}
	if !strings.HasPrefix(t, "/") && !strings.HasPrefix(t, "~") && !strings.HasPrefix(t, "..") {
		return false
	}
	p := canonical(t)
	if dev, ok := strings.CutPrefix(p, "/dev/"); ok {
		return classifyDevice(dev).sev != SeverityNone
	}
	return p != "." && (strings.HasPrefix(p, "/") || p == ".." || strings.HasPrefix(p, "../"))
}

// isWriteMode reports whether a literal is an fopen-style mode that writes: "w", "ab", "r+".
func isWriteMode(t string) bool {
	return t != "" && len(t) <= 3 && strings.Trim(t, "rwxabt+") == "" && strings.ContainsAny(t, "wax+")
}

// secretMarkers are the parts of secret paths that programs spell out, whichever way they
// join them to the home directory (os.path.join(home, ".ssh"), "$ENV{HOME}/.aws").
var secretMarkers = func() []secretPlace {
	out := []secretPlace{
		{[]string{"/etc/shadow"}, "the system's password hashes"},
		{[]string{"/etc/sudoers"}, "the sudo configuration"},
		{[]string{"environ"}, "the environment of a process (it may hold tokens)"},
	}
	for _, p := range homeSecrets {
		out = append(out, secretPlace{[]string{strings.Join(p.parts, "/")}, p.what})
	}
	for name, what := range keyFiles {
		out = append(out, secretPlace{[]string{name}, what})
	}
	return out
}()

// secretInCode names a secret a program mentions, or "".
func secretInCode(src string) string {
	for _, m := range secretMarkers {
		tok := m.parts[0]
		for from := 0; ; {
			i := strings.Index(src[from:], tok)
			if i < 0 {
				break
			}
			i += from
			end := i + len(tok)
			before := i == 0 || !isWordByte(src[i-1]) && src[i-1] != '-' && src[i-1] != '.'
			after := end == len(src) || !isWordByte(src[end]) && src[end] != '-' && src[end] != '.'
			if before && after && !(tok == "environ" && !strings.Contains(src[max(0, i-24):i], "proc")) {
				return m.what
			}
			from = i + 1
		}
	}
	return ""
}
