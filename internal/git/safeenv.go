// Package git is Gantry's own use of git: finding a repository, its branch plumbing, and keeping
// git from running code that a repository supplies.
package git

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// configTimeout bounds reading a repository's config; a hung git (a lock, a network share)
// must not hold a command that only wanted git kept safe.
const configTimeout = 5 * time.Second

// Program-valued settings a repository's own config (.git/config, and what it includes) can
// set, and what each is replaced with in a folder the person has not trusted. Hooks and
// fsmonitor are switched off in any case. The replacements keep git working where they can:
// a textconv of `cat` shows the file as it is, and an external diff or a shell alias says why
// it did not run instead of failing with "cannot run".
var (
	// alwaysOff hold for every repository: hooks live in the folder (or a path its config names).
	alwaysOff = [][2]string{
		{"core.hooksPath", "/dev/null"},
		{"core.fsmonitor", "false"},
		{"protocol.ext.allow", "never"}, // ext:: remotes run a command
	}
	// programKeys replace a key by its section and the last part of its name
	// (diff.<driver>.textconv is diff/textconv); "*" is any section.
	programKeys = map[[2]string]string{
		{"diff", "textconv"}: "cat", {"diff", "external"}: notRunDiff, {"diff", "command"}: notRunDiff,
		{"filter", "clean"}: "", {"filter", "smudge"}: "", {"filter", "process"}: "",
		{"merge", "driver"}: "", {"core", "pager"}: "cat", {"pager", "*"}: "cat",
		{"core", "editor"}: "false", {"sequence", "editor"}: "false", {"core", "askpass"}: "",
		{"core", "sshcommand"}: "", {"core", "gitproxy"}: "", {"core", "alternaterefscommand"}: "",
		{"core", "fsmonitor"}: "false", {"core", "hookspath"}: "/dev/null",
		{"credential", "helper"}: "", // an empty value clears the list
		{"gpg", "program"}:       "", {"remote", "uploadpack"}: "", {"remote", "receivepack"}: "",
		{"interactive", "difffilter"}: "", {"sendemail", "smtpserver"}: "",
		{"mergetool", "cmd"}: "false", {"mergetool", "path"}: "false", {"difftool", "cmd"}: "false",
		{"difftool", "path"}: "false", {"browser", "cmd"}: "false", {"browser", "path"}: "false",
		{"man", "cmd"}: "false", {"man", "path"}: "false", {"web", "browser"}: "false",
	}
)

// notRunDiff is what an external diff the repository names is replaced with: a shell snippet
// git runs with the file's path, saying why there is no diff from it.
const notRunDiff = `f() { echo "(the external diff program this repository's git config names was not run for $1: the folder is not trusted; git diff --no-ext-diff shows the plain diff)"; }; f`

// UntrustedEnv returns environment entries that make every git run in dir (and below it)
// run nothing the repository supplies: hooks, fsmonitor, filters, textconv, external diffs,
// pagers, editors, credential helpers, shell aliases. They are git's own command-line config
// (GIT_CONFIG_COUNT), which wins over the repository's. base is the environment they go into,
// so entries already there are kept. A folder that is not a repository gets the settings that
// hold for every repository, so a `git init` or a clone inside it is covered too.
func UntrustedEnv(ctx context.Context, dir string, base []string) []string {
	pairs := append([][2]string(nil), alwaysOff...)
	for _, kv := range repositoryConfig(ctx, dir) {
		if v, ok := neutral(kv[0], kv[1]); ok {
			pairs = append(pairs, [2]string{kv[0], v})
		}
	}
	start := 0
	for _, e := range base {
		if n, ok := strings.CutPrefix(e, "GIT_CONFIG_COUNT="); ok {
			start, _ = strconv.Atoi(n)
		}
	}
	out := make([]string, 0, 2*len(pairs)+1)
	for i, p := range pairs {
		n := strconv.Itoa(start + i)
		out = append(out, "GIT_CONFIG_KEY_"+n+"="+p[0], "GIT_CONFIG_VALUE_"+n+"="+p[1])
	}
	return append(out, "GIT_CONFIG_COUNT="+strconv.Itoa(start+len(pairs)))
}

// neutral is the value that replaces a repository's setting of key, if it names a program.
func neutral(key, value string) (string, bool) {
	lower := strings.ToLower(key)
	if strings.HasPrefix(lower, "alias.") {
		if strings.HasPrefix(strings.TrimSpace(value), "!") {
			return "!echo 'this git alias runs a shell command from the repository config and was not run: the folder is not trusted' >&2; false", true
		}
		return "", false
	}
	if strings.HasPrefix(lower, "submodule.") && strings.HasSuffix(lower, ".update") && strings.HasPrefix(value, "!") {
		return "none", true
	}
	section, _, _ := strings.Cut(lower, ".")
	last := lower[strings.LastIndexByte(lower, '.')+1:]
	if v, ok := programKeys[[2]string{section, last}]; ok {
		return v, true
	}
	v, ok := programKeys[[2]string{section, "*"}]
	return v, ok
}

// repositoryConfig lists the settings dir's repository sets itself (local and worktree scope,
// with the files they include): the ones that came with the folder. Reading config runs
// nothing; on any failure (no repository, no git) there is nothing to list.
func repositoryConfig(ctx context.Context, dir string) [][2]string {
	ctx, cancel := context.WithTimeout(ctx, configTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-C", dir, "-c", "core.fsmonitor=false", "config", "--list", "--show-scope", "--includes", "-z")
	cmd.Env = Environ(os.Environ())
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	var kvs [][2]string
	fields := bytes.Split(out, []byte{0})
	for i := 0; i+1 < len(fields); i += 2 {
		scope := string(fields[i])
		if scope != "local" && scope != "worktree" {
			continue
		}
		key, value, _ := strings.Cut(string(fields[i+1]), "\n")
		kvs = append(kvs, [2]string{key, value})
	}
	return kvs
}

// Environ is env without the variables that point git at another repository than the one
// its working directory is in (inherited from whoever started Gantry), and without prompts.
func Environ(env []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR":
		default:
			out = append(out, kv)
		}
	}
	return append(out, "GIT_TERMINAL_PROMPT=0")
}
