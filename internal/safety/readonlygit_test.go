package safety

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReadOnlyGitRefusal(t *testing.T) {
	t.Parallel()
	allowed := []string{
		"git status", "git status --short", "git diff", "git diff --stat", "git diff --cached -- main.go",
		"git log -5 --oneline", "git log --format='%h %s'", "git show HEAD~1", "git show HEAD@{1}",
		"git blame -L 1,10 main.go", "git --no-pager diff", `git diff -- "a b.go"`, "git diff main..feature",
		"git diff -- --output=x", "git diff --output-indicator-new=+",
	}
	for _, c := range allowed {
		require.Empty(t, ReadOnlyGitRefusal(c), c)
	}
	refused := map[string]string{
		"git diff --output=x":               "--output",
		"git diff --output x":               "--output",
		"git diff --out=x":                  "--output",
		"git log -o x":                      "-o",
		"git diff --no-index a /etc/passwd": "--no-index",
		"git diff --ext-diff":               "--ext-diff",
		"git status | cat":                  "pipes",
		"git status > x":                    "redirections",
		"git status && rm -rf x":            "chains",
		"git status; ls":                    "exactly one",
		"git status &":                      "background",
		"(git status)":                      "subshells",
		"git commit -m x":                   "git commit is not",
		"git push":                          "git push is not",
		"git":                               "git is not",
		"git -c core.pager=sh status":       "git -c is not",
		"rm -rf .":                          "not a git command",
		"GIT_PAGER=x git log":               "sets variables",
		"git diff $(echo x)":                "not a plain word",
		"git diff $HOME":                    "not a plain word",
		"git diff *":                        "not a plain word",
		"git diff ~/x":                      "not a plain word",
		"git show {a,b}":                    "not a plain word",
		"git diff 'unclosed":                "could not be parsed",
	}
	for c, want := range refused {
		require.Contains(t, ReadOnlyGitRefusal(c), want, c)
	}
}

func TestReadOnlyGitPhrase(t *testing.T) {
	require.Equal(t, "git status, git diff, git log, git show or git blame", ReadOnlyGitPhrase())
}
