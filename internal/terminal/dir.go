package terminal

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutsideRoot is wrapped by Run's error when its cwd argument points outside the workspace.
var ErrOutsideRoot = errors.New("outside the workspace")

// startDir picks where the next command runs: cwd when given, else the session's directory,
// or the root when that directory has been deleted since (the note says so).
func (s *Session) startDir(cwd string) (dir string, notes []string, err error) {
	if cwd != "" {
		dir, err := s.resolve(cwd)
		return dir, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if fi, err := os.Stat(s.cwd); err == nil && fi.IsDir() {
		return s.cwd, nil, nil
	}
	gone := s.cwd
	s.cwd = s.root
	return s.root, []string{fmt.Sprintf("[the working directory %s no longer exists; ran in the workspace root instead]", gone)}, nil
}

// resolve turns a cwd argument (relative to the root, or absolute) into a directory inside the
// workspace. Symlinks are followed before the check, so a link to elsewhere does not count as
// inside; the directory returned is spelled from the root as the person chose it.
func (s *Session) resolve(cwd string) (string, error) {
	p := cwd
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.root, p)
	}
	p = filepath.Clean(p)
	_, underRoot := within(s.root, p)
	_, underReal := within(s.realRoot, p)
	if !underRoot && !underReal {
		return "", fmt.Errorf("cwd %q: %w %s", cwd, ErrOutsideRoot, s.root)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("cwd %q: %w", cwd, err)
	}
	rel, ok := within(s.realRoot, real)
	if !ok {
		return "", fmt.Errorf("cwd %q leads to %s: %w %s", cwd, real, ErrOutsideRoot, s.root)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("cwd %q is not a directory", cwd)
	}
	return filepath.Join(s.root, rel), nil
}

// settle makes the directory the command ended in (as pwd -P printed it; empty when unknown)
// the session's directory, and returns notes telling the model about any change.
func (s *Session) settle(ended string) []string {
	if ended == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rel, ok := within(s.realRoot, ended)
	if !ok {
		s.cwd = s.root
		return []string{fmt.Sprintf("[the command ended in %s, outside the workspace; the working directory is back at the workspace root %s]", ended, s.root)}
	}
	dir := filepath.Join(s.root, rel)
	if dir == s.cwd {
		return nil
	}
	s.cwd = dir
	return []string{fmt.Sprintf("[the working directory is now %s]", dir)}
}

// within returns p relative to base, if p is base or below it.
func within(base, p string) (string, bool) {
	rel, err := filepath.Rel(base, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// recordDir makes the shell write its final directory and, under bash, its exported variables
// to file however it exits (exit, error, end of script). It shares the command's first line so
// that bash's "line N" in error messages stays right. A command that sets its own EXIT trap
// replaces this one; the session then keeps its directory and variables.
//
// The record is the directory, a line break, then (bash) a NUL and every exported variable as
// NAME=VALUE with a NUL after each: names come from compgen -e, read into an array by mapfile
// from a command substitution, which bash waits for, so no process is left behind for the
// stray check below. set +eu first: the command's own options must not stop the record.
//
// In the sandbox the shell also looks for processes still running besides itself and the
// sandbox's init (PID 1 of its own namespace), with builtins only so the look starts none, and
// adds strayMark when it finds one: they are about to die with the namespace, unseen from
// outside.
func recordDir(command, file string, sandboxed bool) string {
	record := "set +eu; pwd -P >| " + shellQuote(file) + " 2>/dev/null"
	if filepath.Base(shellPath()) == "bash" {
		record += "; { printf '\\0'; mapfile -t __gantry_names <<< \"$(compgen -e)\"; for __gantry_n in \"${__gantry_names[@]}\"; do " +
			"[ -n \"$__gantry_n\" ] && printf '%s=%s\\0' \"$__gantry_n\" \"${!__gantry_n}\"; done; } >> " + shellQuote(file) + " 2>/dev/null"
	}
	if sandboxed {
		record += "; for p in /proc/[0-9]*; do case ${p#/proc/} in 1|$$) ;; *) echo " + strayMark +
			" >> " + shellQuote(file) + "; break;; esac; done"
	}
	return "trap " + shellQuote(record) + " EXIT; " + command
}

// strayMark follows the directory in the record when background processes were left running.
const strayMark = "strays"

// record is what a command's shell wrote as it exited.
type record struct {
	dir      string // "" when unknown
	exported []byte // NAME=VALUE entries ending in NUL; nil when the shell wrote none
	strays   bool
}

func parseRecord(b []byte) record {
	dir, rest, _ := bytes.Cut(b, []byte{'\n'})
	r := record{dir: string(dir)}
	if len(rest) > 0 && rest[0] == 0 {
		end := bytes.LastIndexByte(rest, 0)
		r.exported = rest[1 : end+1]
		if end == 0 {
			r.exported = []byte{}
		}
		rest = rest[end+1:]
	}
	r.strays = bytes.Contains(rest, []byte(strayMark))
	return r
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
