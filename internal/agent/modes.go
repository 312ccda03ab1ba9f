package agent

import (
	"context"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"gantry/internal/tools"
)

// ModeTools is the registry a run in mode may call. Agent mode gets all of them. The read-only
// modes get only tools that change nothing, so a write tool named in text is refused like an
// unknown one; review mode also keeps run_terminal_command, narrowed to read-only git commands
// (SPEC §3: a review starts from git status and git diff).
func ModeTools(mode Mode, all *tools.Registry) (*tools.Registry, error) {
	if !mode.ReadOnly() {
		return all, nil
	}
	return all.Select(func(t tools.Tool) (tools.Tool, bool) {
		switch {
		case t.Kind().ReadOnly():
			return t, true
		case mode == ModeReview && t.Name() == reviewCommandToolName:
			return reviewGitTool{inner: t}, true
		}
		return nil, false
	})
}

const reviewCommandToolName = "run_terminal_command"

// reviewGitTool is run_terminal_command as review mode has it: the command is checked before
// the approval and the shell ever see it, so a command that could write never runs.
type reviewGitTool struct{ inner tools.Tool }

func (t reviewGitTool) Name() string          { return t.inner.Name() }
func (t reviewGitTool) Kind() tools.Kind      { return t.inner.Kind() }
func (t reviewGitTool) Params() *tools.Schema { return t.inner.Params() }

func (t reviewGitTool) Description() string {
	return "Run one read-only git command in the workspace: " + reviewGitAllowed +
		`, e.g. "git diff --stat" or "git log -5 --oneline". Nothing else runs here: no other programs, pipes, redirections, chains or --output.` +
		"\n\nReturns the output and the exit code."
}

const reviewGitAllowed = "git status, git diff, git log, git show or git blame"

func (t reviewGitTool) Execute(ctx context.Context, args map[string]any, out tools.Output) (tools.Result, error) {
	cmd, _ := args["command"].(string)
	if why := reviewGitRefusal(cmd); why != "" {
		return tools.Fail(tools.ErrDenied,
			"Not run: %s. In review mode only read-only git commands run: %s, as one plain command "+
				"(no pipes, redirections, chains, variables or --output). Example: git diff --stat", why, reviewGitAllowed), nil
	}
	return t.inner.Execute(ctx, args, out)
}

// reviewGitSubcommands are the git commands that only read the repository.
var reviewGitSubcommands = map[string]bool{"status": true, "diff": true, "log": true, "show": true, "blame": true}

// reviewGitForbidden are long options of those commands that write a file, run a program or
// read outside the repository. Git accepts unambiguous abbreviations (--out=f), so any option
// that is a prefix of one of these is refused too.
var reviewGitForbidden = []string{"--output", "--ext-diff", "--no-index", "--exec", "--open-files-in-pager"}

// reviewGitRefusal says why command is not a read-only git command, or "" when it is one. It
// accepts a single simple command of literal words: `git [--no-pager] <subcommand> [args]`.
func reviewGitRefusal(command string) string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
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
		s, ok := reviewLiteral(w)
		if !ok {
			return fmt.Sprintf("%q is not a plain word (no variables, substitutions or globs)", reviewSource(command, w))
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
	if len(rest) == 0 || !reviewGitSubcommands[rest[0]] {
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
		if why := reviewGitOption(a); why != "" {
			return why
		}
	}
	return ""
}

func reviewGitOption(a string) string {
	if strings.HasPrefix(a, "-o") {
		return fmt.Sprintf("option %s may write a file", a)
	}
	if !strings.HasPrefix(a, "--") || len(a) < 4 {
		return ""
	}
	name, _, _ := strings.Cut(a, "=")
	for _, bad := range reviewGitForbidden {
		if strings.HasPrefix(bad, name) {
			return fmt.Sprintf("option %s (%s) may write a file, run a program or read outside the repository", a, bad)
		}
	}
	return ""
}

// reviewLiteral is w's value when it is made of plain text and quotes only, which bash passes
// to git unchanged.
func reviewLiteral(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if !reviewPlainLit(p.Value) {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok || strings.Contains(lit.Value, `\`) {
					return "", false
				}
				b.WriteString(lit.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// reviewPlainLit reports whether bash leaves an unquoted word as it is: no globs (a file named
// "--output=x" would become an option), no escapes, no tilde or brace expansion. HEAD~2 and
// HEAD@{1} stay allowed.
func reviewPlainLit(v string) bool {
	if strings.ContainsAny(v, "*?[\\") || strings.HasPrefix(v, "~") {
		return false
	}
	return !strings.Contains(v, "{") || !strings.Contains(v, ",") && !strings.Contains(v, "..")
}

func reviewSource(src string, w *syntax.Word) string {
	start, end := int(w.Pos().Offset()), int(w.End().Offset())
	if start < 0 || end > len(src) || start > end {
		return "a word"
	}
	return src[start:end]
}

// planLabel introduces an approved plan in the first message of the agent run that carries it
// out, as user-provided context: small models otherwise re-plan instead of acting.
const planLabel = "APPROVED PLAN (from plan mode; the user approved it — carry it out step by step, do not plan again):"

// withPlan puts the approved plan, when there is one, before the person's message.
func withPlan(plan, content string) string {
	plan = strings.TrimSpace(plan)
	if plan == "" {
		return content
	}
	if strings.TrimSpace(content) == "" {
		return planLabel + "\n" + plan
	}
	return planLabel + "\n" + plan + "\n\n" + content
}
