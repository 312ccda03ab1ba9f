package terminal

import (
	"bytes"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// A session keeps what a terminal keeps between commands: the folder (dir.go) and the exported
// variables, so that `export`, `source .venv/bin/activate` and `nvm use` carry over to the next
// command. Each command's shell writes its exported variables when it exits (recordState); what
// it changed from the environment it started with becomes the session's, and the next command
// starts with it. Shell functions and aliases are not kept: a kept function named like a
// command would make a later command do something else than the approval card showed.
//
// In a folder the person has not trusted, nothing kept may make a later command run the
// folder's code without its own approval: variables that make shells, loaders, git and
// interpreters load code are not carried over, nor any whose value names a place inside the
// folder, and PATH keeps only its entries outside it. The session still remembers them, so
// they apply once the folder is trusted.

// shellState is what the session's commands changed: exported variables set, and unset.
type shellState struct {
	set   map[string]string
	unset map[string]bool
}

// shellOwn are variables the shell sets for itself; they are not the commands' doing.
var shellOwn = map[string]bool{"PWD": true, "OLDPWD": true, "SHLVL": true, "_": true}

// codeLoaders are variables that make a shell, the dynamic loader, git or an interpreter run
// code or programs they name, whatever the command: BASH_ENV is sourced by every `bash -c`.
var codeLoaders = map[string]bool{
	"BASH_ENV": true, "ENV": true, "SHELLOPTS": true, "BASHOPTS": true, "PROMPT_COMMAND": true,
	"NODE_OPTIONS": true, "NODE_PATH": true, "PYTHONPATH": true, "PYTHONSTARTUP": true, "PYTHONHOME": true,
	"PERL5LIB": true, "PERL5OPT": true, "PERLLIB": true, "RUBYOPT": true, "RUBYLIB": true,
	"JAVA_TOOL_OPTIONS": true, "JDK_JAVA_OPTIONS": true, "_JAVA_OPTIONS": true, "CLASSPATH": true,
	"LUA_INIT": true, "LUA_PATH": true, "LUA_CPATH": true,
	"PAGER": true, "MANPAGER": true, "EDITOR": true, "VISUAL": true, "BROWSER": true, "SHELL": true,
}

func loadsCode(name string) bool {
	return codeLoaders[name] || strings.HasPrefix(name, "GIT_") || strings.HasPrefix(name, "LD_") ||
		strings.HasPrefix(name, "DYLD_") || strings.HasPrefix(name, "npm_config_")
}

// apply returns env with the state's changes. In an untrusted folder (the workspace at roots)
// the changes that could run the folder's code are left out.
func (st *shellState) apply(env []string, untrusted bool, roots ...string) []string {
	if len(st.set) == 0 && len(st.unset) == 0 {
		return env
	}
	out := make([]string, 0, len(env)+len(st.set))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if _, changed := st.set[name]; changed && keptFor(name, st.set[name], untrusted, roots) || st.unset[name] {
			continue
		}
		out = append(out, kv)
	}
	for _, name := range slices.Sorted(maps.Keys(st.set)) {
		value := st.set[name]
		if name == "PATH" && untrusted {
			value = pathOutside(value, roots)
		}
		if keptFor(name, value, untrusted, roots) {
			out = append(out, name+"="+value)
		}
	}
	return out
}

// keptFor reports whether a kept variable applies to a command: always in a trusted folder;
// in an untrusted one unless it loads code or names a place inside the folder (PATH is
// filtered instead).
func keptFor(name, value string, untrusted bool, roots []string) bool {
	if !untrusted {
		return true
	}
	if loadsCode(name) {
		return false
	}
	return name == "PATH" || !namesInside(value, roots)
}

// namesInside reports whether value mentions a path inside one of roots.
func namesInside(value string, roots []string) bool {
	for _, r := range roots {
		if r != "" && r != "/" && strings.Contains(value, r) {
			return true
		}
	}
	return false
}

// pathOutside is a PATH without its entries inside roots, and without relative entries (".",
// "bin"), which find programs in whatever folder a command runs in: the workspace.
func pathOutside(path string, roots []string) string {
	var keep []string
	for _, dir := range filepath.SplitList(path) {
		if filepath.IsAbs(dir) && !namesInside(dir+"/", withSlash(roots)) {
			keep = append(keep, dir)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

func withSlash(roots []string) []string {
	out := make([]string, len(roots))
	for i, r := range roots {
		out[i] = strings.TrimSuffix(r, "/") + "/"
	}
	return out
}

// learn takes what a command's shell exported as it exited (NAME=VALUE entries, each ending
// in NUL) against the environment it started with, and keeps the differences. It returns the
// names that changed, sorted. The variables given to the command alone (Options.Env) are one
// unit, git's numbered config: when the command changed one, it keeps them all as it left them,
// since a value it set to what it already was (GIT_CONFIG_KEY_0) is part of what it meant.
func (st *shellState) learn(started, given []string, dump []byte) []string {
	before := map[string]string{}
	for _, kv := range started {
		name, value, _ := strings.Cut(kv, "=")
		before[name] = value
	}
	after := map[string]string{}
	for _, entry := range bytes.Split(dump, []byte{0}) {
		name, value, ok := strings.Cut(string(entry), "=")
		if ok && isIdentifier(name) && !shellOwn[name] {
			after[name] = value
		}
	}
	if st.set == nil {
		st.set, st.unset = map[string]string{}, map[string]bool{}
	}
	var changed []string
	for name, value := range after {
		if old, ok := before[name]; !ok || old != value {
			st.set[name] = value
			delete(st.unset, name)
			changed = append(changed, name)
		}
	}
	if slices.ContainsFunc(given, func(kv string) bool { name, _, _ := strings.Cut(kv, "="); return slices.Contains(changed, name) }) {
		for _, kv := range given {
			name, _, _ := strings.Cut(kv, "=")
			if value, ok := after[name]; ok && !slices.Contains(changed, name) {
				st.set[name] = value
				delete(st.unset, name)
				changed = append(changed, name)
			}
		}
	}
	for name := range before {
		// Bash imports only names that are identifiers; others pass through untouched.
		if _, still := after[name]; !still && isIdentifier(name) && !shellOwn[name] {
			delete(st.set, name)
			st.unset[name] = true
			changed = append(changed, name)
		}
	}
	slices.Sort(changed)
	return changed
}

func isIdentifier(name string) bool {
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// stateNote tells the model which variables the next commands keep, and, in an untrusted
// folder, which they do not.
func stateNote(changed []string, st *shellState, untrusted bool, roots []string) []string {
	if len(changed) == 0 {
		return nil
	}
	var kept, dropped []string
	for _, name := range changed {
		value, set := st.set[name]
		switch {
		case !untrusted || !set:
			kept = append(kept, name)
		case name == "PATH":
			kept = append(kept, name)
			if pathOutside(value, roots) != value {
				dropped = append(dropped, "PATH's entries inside the folder")
			}
		case !keptFor(name, value, true, roots):
			dropped = append(dropped, name)
		default:
			kept = append(kept, name)
		}
	}
	var notes []string
	if len(kept) > 0 {
		notes = append(notes, fmt.Sprintf("[the next commands keep these exported variables as this one left them: %s]", someNames(kept)))
	}
	if len(dropped) > 0 {
		notes = append(notes, fmt.Sprintf("[not carried over to the next commands, because the folder is not trusted and they could run its code: %s]", someNames(dropped)))
	}
	return notes
}

// someNames lists up to eight names.
func someNames(names []string) string {
	if len(names) <= 8 {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:8], ", ") + fmt.Sprintf(" and %d more", len(names)-8)
}
