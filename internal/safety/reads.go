package safety

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// readSpec says which arguments of a program are files it reads.
type readSpec struct {
	opts options
	// pattern: the first operand is a pattern, script or filter, not a file…
	pattern bool
	// …unless one of these flags gives it (grep -e, awk -f).
	patternFlags string
	// sources: every operand but the last, which is the destination (cp, scp).
	sources bool
	// recursive reports whether directories are read with everything below them.
	recursive func(args []arg) bool
}

func always([]arg) bool { return true }

func recursiveOrArchive(args []arg) bool {
	return recursiveFlag(args) || hasShortFlag(args, 'a') || hasLongFlag(args, "archive")
}

var grepSpec = readSpec{
	opts: options{short: "efABCmdD", long: []string{
		"regexp", "file", "after-context", "before-context", "context", "max-count",
		"directories", "devices", "include", "exclude", "exclude-dir", "label",
	}},
	pattern: true, patternFlags: "ef",
	recursive: func(args []arg) bool { return recursiveFlag(args) },
}

var searchSpec = readSpec{
	opts: options{short: "efgtTABCmjMrE", long: []string{
		"regexp", "file", "glob", "iglob", "type", "type-not", "after-context", "before-context",
		"context", "max-count", "threads", "max-columns", "replace", "encoding", "ignore-file",
	}},
	pattern: true, patternFlags: "ef", recursive: always,
}

var awkSpec = readSpec{opts: options{short: "fvF"}, pattern: true, patternFlags: "f"}

// readers show, copy, pack or send the files they are given: a secret named there leaves
// its file.
var readers = map[string]readSpec{
	"cat": {}, "tac": {}, "nl": {}, "more": {}, "less": {}, "most": {}, "bat": {}, "batcat": {},
	"head": {opts: options{short: "nc"}}, "tail": {opts: options{short: "ncs", long: []string{"pid", "sleep-interval"}}},
	"od": {}, "xxd": {}, "hexdump": {}, "hd": {}, "strings": {},
	"base64": {}, "base32": {}, "basenc": {}, "uuencode": {},
	"sort": {opts: options{short: "ktTSo"}}, "uniq": {}, "cut": {opts: options{short: "dfbc"}},
	"paste": {opts: options{short: "d"}}, "join": {}, "column": {}, "fold": {}, "fmt": {}, "pr": {},
	"expand": {}, "iconv": {opts: options{short: "ft"}}, "diff": {}, "cmp": {}, "comm": {},
	"grep": grepSpec, "egrep": grepSpec, "fgrep": grepSpec, "zgrep": grepSpec,
	"rg": searchSpec, "ag": searchSpec, "ack": searchSpec,
	"awk": awkSpec, "gawk": awkSpec, "mawk": awkSpec, "nawk": awkSpec,
	"sed": {opts: options{short: "ef", long: []string{"expression", "file"}}, pattern: true, patternFlags: "ef"},
	"jq":  {opts: options{long: []string{"arg", "argjson", "slurpfile", "rawfile"}}, pattern: true},
	"yq":  {pattern: true},
	"vi":  {}, "vim": {}, "nvim": {}, "nano": {}, "emacs": {}, "code": {}, "open": {}, "xdg-open": {},
	"sqlite3": {}, "openssl": {},
	"cp":      {sources: true, recursive: recursiveOrArchive},
	"mv":      {sources: true, recursive: always},
	"ln":      {sources: true},
	"install": {sources: true},
	"scp":     {opts: options{short: "cFiJloPS"}, sources: true, recursive: recursiveFlag},
	"rsync": {opts: options{short: "eBfTM", long: []string{
		"rsh", "filter", "temp-dir", "exclude", "include", "exclude-from", "include-from",
		"files-from", "log-file", "partial-dir", "compare-dest", "link-dest", "copy-dest",
		"backup-dir", "chmod", "chown", "port", "password-file", "out-format", "timeout",
		"bwlimit", "rsync-path", "max-size", "min-size", "suffix",
	}}, sources: true, recursive: recursiveOrArchive},
	"tar": {opts: options{short: "fCbTX", long: []string{"file", "directory", "exclude"}}, recursive: always},
	"zip": {opts: options{short: "bxi"}, recursive: func(args []arg) bool { return hasShortFlag(args, 'r') }},
	"7z":  {recursive: always}, "7za": {recursive: always},
	"gzip": {}, "bzip2": {}, "xz": {}, "zstd": {}, "zcat": {},
	"gpg": {opts: options{short: "ruo", long: []string{"recipient", "local-user", "output", "homedir"}}},
}

// notReading programs only look at names or metadata, or already have a rule of their own
// about the paths they touch; a secret path in their arguments is not read.
var notReading = map[string]bool{
	"echo": true, "printf": true, "ls": true, "exa": true, "eza": true, "tree": true, "stat": true,
	"test": true, "[": true, "[[": true, "file": true, "du": true, "df": true, "wc": true,
	"md5sum": true, "sha1sum": true, "sha256sum": true, "sha512sum": true, "shasum": true,
	"which": true, "type": true, "realpath": true, "readlink": true, "basename": true,
	"dirname": true, "mkdir": true, "rmdir": true, "touch": true, "truncate": true, "tee": true,
	"rm": true, "unlink": true, "shred": true, "chmod": true, "chown": true, "chgrp": true,
	"find": true, "git": true, "export": true, "unset": true, "popd": true,
	// ssh tools exist to use keys (ssh -i ~/.ssh/key) without showing them
	"ssh": true, "sftp": true, "ssh-add": true, "ssh-keygen": true, "ssh-copy-id": true,
	"ssh-agent": true,
}

// secretCommands print credentials without naming a file.
var secretCommands = map[string]func(ops []string, args []arg) string{
	"gh": func(ops []string, _ []arg) string {
		if len(ops) > 1 && ops[0] == "auth" && ops[1] == "token" {
			return "your GitHub token"
		}
		return ""
	},
	"gcloud": func(ops []string, _ []arg) string {
		for _, o := range ops {
			if strings.HasPrefix(o, "print-access-token") || o == "print-identity-token" {
				return "your Google Cloud access token"
			}
		}
		return ""
	},
	"aws": func(ops []string, _ []arg) string {
		if len(ops) > 1 && ops[0] == "configure" && (ops[1] == "get" || ops[1] == "export-credentials") {
			return "your AWS credentials"
		}
		return ""
	},
	"az": func(ops []string, _ []arg) string {
		if len(ops) > 1 && ops[0] == "account" && ops[1] == "get-access-token" {
			return "your Azure access token"
		}
		return ""
	},
	"kubectl": func(ops []string, args []arg) string {
		if len(ops) > 1 && ops[0] == "config" && ops[1] == "view" && hasLongFlag(args, "raw") {
			return "your Kubernetes credentials"
		}
		return ""
	},
	"gpg": func(_ []string, args []arg) string {
		if hasLongFlag(args, "export-secret-keys") || hasLongFlag(args, "export-secret-subkeys") {
			return "your GnuPG private keys"
		}
		return ""
	},
	"security": func(ops []string, args []arg) string {
		if len(ops) > 0 && (ops[0] == "dump-keychain" || strings.HasPrefix(ops[0], "find-") &&
			strings.HasSuffix(ops[0], "-password") && (hasShortFlag(args, 'w') || hasShortFlag(args, 'g'))) {
			return "your keychain passwords"
		}
		return ""
	},
	"git": func(ops []string, _ []arg) string {
		if len(ops) > 1 && ops[0] == "credential" && ops[1] == "fill" {
			return "your saved Git passwords"
		}
		return ""
	},
}

// reads judges what c reads: secrets at least high, other files outside the workspace
// medium. It also follows cd, so that cd ~ && cat .ssh/id_rsa reads what it says.
func (a *analyzer) reads(c command, n syntax.Node) {
	if c.name == "cd" || c.name == "pushd" {
		a.changeDir(c)
		return
	}
	if printsEnvironment(c) {
		a.exposes(theEnvironment)
	}
	if f, ok := secretCommands[c.name]; ok {
		if what := f(texts(operands(c.args)), c.args); what != "" {
			a.readsSecret(what, finding{SeverityHigh, "reveals " + what}, n)
		}
	}
	if spec, ok := readers[c.name]; ok {
		recursive := spec.recursive != nil && spec.recursive(c.args)
		for _, p := range spec.paths(c.args) {
			a.readPath(p, recursive, n)
		}
		return
	}
	switch {
	case c.name == "dd":
		for _, x := range c.args {
			if v, ok := strings.CutPrefix(x.text, "if="); ok {
				a.readPath(arg{text: v, static: x.static}, false, n)
			}
		}
	case c.name == "curl" || c.name == "wget":
		for _, p := range uploads(c) {
			a.readPath(p, false, n)
		}
	case c.name == "http" || c.name == "https" || c.name == "xh":
		_, items := httpieItems(c)
		for _, it := range items {
			if _, file, ok := strings.Cut(it.text, "@"); ok {
				a.readPath(arg{text: file, static: it.static}, false, n)
			}
		}
	case !notReading[c.name]:
		a.passesSecret(c, n)
	}
}

// paths returns the arguments that name files read.
func (s readSpec) paths(args []arg) []arg {
	ops := s.opts.operands(args)
	if strings.Contains(s.patternFlags, "f") {
		if file, ok := optionValue(args, "-f", "--file"); ok {
			ops = append(ops, file) // grep -f, awk -f, sed -f read their patterns from a file
		}
	}
	if s.pattern && len(ops) > 0 && !s.patternGiven(args) {
		ops = ops[1:]
	}
	if s.sources && len(ops) > 1 {
		ops = ops[:len(ops)-1]
	}
	return ops
}

func (s readSpec) patternGiven(args []arg) bool {
	if s.patternFlags == "" {
		return false
	}
	for i := 0; i < len(s.patternFlags); i++ {
		if hasShortFlag(args, s.patternFlags[i]) {
			return true
		}
	}
	return hasLongFlag(args, "regexp") || hasLongFlag(args, "file") || hasLongFlag(args, "expression")
}

// readPath rates reading one path: a secret is high (and remembered, so that sending it out
// in the same command is critical); anything else outside the workspace is medium.
func (a *analyzer) readPath(p arg, recursive bool, n syntax.Node) {
	t := judgeRead(p, a.cwd, recursive)
	if t.exposed != "" {
		a.exposes(t.exposed)
	}
	switch {
	case t.secret != "":
		a.readsSecret(t.secret, finding{SeverityHigh, "reads " + t.secret}, n)
	case t.outside:
		a.flag(finding{SeverityMedium, "reads files outside the project"}, n)
	}
}

// passesSecret rates a program that is not a known reader but is handed a secret path
// (python3 upload.py ~/.aws/credentials, docker run -v ~/.ssh:/root/.ssh): what it does
// with it is unknown, so the path counts as read.
func (a *analyzer) passesSecret(c command, n syntax.Node) {
	for _, x := range c.args {
		if strings.ContainsAny(x.text, " \t\n") {
			continue // a message or a script, not a path
		}
		for _, part := range strings.FieldsFunc(x.text, func(r rune) bool { return r == ':' || r == '=' || r == ',' }) {
			if t := judgeRead(arg{text: part, static: x.static}, a.cwd, false); t.secret != "" {
				a.readsSecret(t.secret, finding{SeverityHigh, "gives " + c.name + " " + t.secret}, n)
				return
			}
		}
	}
}

// changeDir follows cd, so relative paths after it are judged where they point. A target
// known only at run time leaves the last known directory: that is usually the project.
func (a *analyzer) changeDir(c command) {
	ops := operands(c.args)
	if len(ops) == 0 {
		a.cwd = homeDir // a bare cd goes home
		return
	}
	t := ops[0]
	if !t.static || t.text == "-" {
		return
	}
	p := t.text
	if a.cwd != "" && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~") {
		p = path.Join(a.cwd, p)
	}
	p = canonical(p)
	if p == "." {
		p = ""
	}
	a.cwd = p
}

// uploads returns the files curl or wget sends: -d @file, -F field=@file, -T file,
// --post-file=file.
func uploads(c command) []arg {
	var out []arg
	for i, x := range c.args {
		name, value, attached := strings.Cut(x.text, "=")
		if !attached {
			if i+1 == len(c.args) {
				continue
			}
			value = c.args[i+1].text
		}
		ref := arg{static: x.static && (attached || c.args[i+1].static)}
		switch {
		case !attached && (x.text == "-T" || x.text == "--upload-file"),
			name == "--post-file" || name == "--body-file":
			ref.text = value
		case !attached && (x.text == "-d" || x.text == "-F" || isDataFlag(x.text)),
			attached && isDataFlag(name):
			_, file, ok := strings.Cut(value, "@")
			if !ok {
				_, file, ok = strings.Cut(value, "<")
			}
			if !ok {
				continue
			}
			ref.text = file
		default:
			continue
		}
		out = append(out, ref)
	}
	return out
}

func isDataFlag(t string) bool {
	return strings.HasPrefix(t, "--data") || t == "--json" || t == "--form" || t == "--form-string"
}
