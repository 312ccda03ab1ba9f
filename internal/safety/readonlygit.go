package safety

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ReadOnlyGit are the git commands that only read the repository.
var ReadOnlyGit = []string{"status", "diff", "log", "show", "blame"}

// ReadOnlyGitPhrase names them for a person or a model: "git status, git diff, … or git blame".
func ReadOnlyGitPhrase() string {
	last := len(ReadOnlyGit) - 1
	return "git " + strings.Join(ReadOnlyGit[:last], ", git ") + " or git " + ReadOnlyGit[last]
}

// readOnlyGitForbidden are long options of those commands that write a file, run a program or
// read outside the repository. Git accepts unambiguous abbreviations (--out=f), so any option
// that is a prefix of one of these is refused too.
var readOnlyGitForbidden = []string{"--output", "--ext-diff", "--no-index", "--exec", "--open-files-in-pager"}

// ReadOnlyGitRefusal says why command is not a read-only git command, or "" when it is one:
// review mode runs these and nothing else (SPEC §3). It accepts a single simple command of
// plain words, `git [--no-pager] <subcommand> [args]`, with the subcommand one of ReadOnlyGit.
func ReadOnlyGitRefusal(command string) string {
	f, err := parse(command)
	if err != nil {
		return "the command could not be parsed"
	}
	if len(f.Stmts) != 1 {
		return "it is not exactly one command"
	}
	st := f.Stmts[0]
	if st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 {
		return "it uses redirections or runs in the background"
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok {
		return "it is not a plain command (pipes, chains and subshells are not allowed)"
	}
	if len(call.Assigns) > 0 {
		return "it sets variables"
	}
	words := make([]string, 0, len(call.Args))
	for _, w := range call.Args {
		s, ok := plainWord(w)
		if !ok {
			return fmt.Sprintf("%q is not a plain word (no variables, substitutions or globs)", wordSource(command, w))
		}
		words = append(words, s)
	}
	if len(words) == 0 || words[0] != "git" {
		return "it is not a git command"
	}
	rest := words[1:]
	if len(rest) > 0 && rest[0] == "--no-pager" {
		rest = rest[1:]
	}
	if len(rest) == 0 || !slices.Contains(ReadOnlyGit, rest[0]) {
		sub := ""
		if len(rest) > 0 {
			sub = " " + rest[0]
		}
		return fmt.Sprintf("git%s is not one of the read-only git commands (options before the subcommand are not allowed either)", sub)
	}
	for _, a := range rest[1:] {
		if a == "--" {
			break
		}
		if why := readOnlyGitOption(a); why != "" {
			return why
		}
	}
	return ""
}

func readOnlyGitOption(a string) string {
	if strings.HasPrefix(a, "-o") {
		return fmt.Sprintf("option %s may write a file", a)
	}
	if !strings.HasPrefix(a, "--") || len(a) < 4 {
		return ""
	}
	name, _, _ := strings.Cut(a, "=")
	for _, bad := range readOnlyGitForbidden {
		if strings.HasPrefix(bad, name) {
			return fmt.Sprintf("option %s (%s) may write a file, run a program or read outside the repository", a, bad)
		}
	}
	return ""
}

// plainWord is w's value when bash passes it to git unchanged: plain text and quotes only, no
// expansion of any kind (resolveWord reads $HOME as ~, which bash would expand here).
func plainWord(w *syntax.Word) (string, bool) {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if !plainLit(p.Value) {
				return "", false
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if lit, ok := q.(*syntax.Lit); !ok || strings.Contains(lit.Value, `\`) {
					return "", false
				}
			}
		default:
			return "", false
		}
	}
	a := resolveWord(w)
	return a.text, a.static
}

// plainLit reports whether bash leaves an unquoted word as it is: no globs (a file named
// "--output=x" would become an option), no escapes, no tilde or brace expansion. HEAD~2 and
// HEAD@{1} stay allowed.
func plainLit(v string) bool {
	if strings.ContainsAny(v, "*?[\\") || strings.HasPrefix(v, "~") {
		return false
	}
	return !strings.Contains(v, "{") || !strings.Contains(v, ",") && !strings.Contains(v, "..")
}

func wordSource(src string, w *syntax.Word) string {
	start, end := int(w.Pos().Offset()), int(w.End().Offset())
	if start < 0 || end > len(src) || start > end {
		return "a word"
	}
	return src[start:end]
}
