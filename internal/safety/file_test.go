package safety

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDefaultFileRules(t *testing.T) {
	t.Parallel()
	rules := DefaultFileRules()
	for _, r := range rules {
		require.False(t, r.AutoApprove, r.Pattern)
	}
	asks := []string{
		".env", "config/.env", ".env.local", "apps/web/.env.production", ".envrc",
		"server.pem", "certs/tls.key", "certs/tls.crt", "store.p12", "store.pfx",
		"id_rsa", "keys/id_rsa.pub", "id_ed25519", "deploy/id_ed25519.pub",
		".git/config", ".git/hooks/pre-commit", "vendor/lib/.git/HEAD", ".ssh/authorized_keys",
		"home/.ssh/config",
		"package-lock.json", "web/package-lock.json", "yarn.lock", "pnpm-lock.yaml", "go.sum",
		"Cargo.lock", "poetry.lock", "Gemfile.lock", "composer.lock", "uv.lock",
		".github/workflows/ci.yml", ".github/workflows/nested/x.yaml", ".gitlab-ci.yml",
		".circleci/config.yml", "Jenkinsfile", "azure-pipelines.yml",
		"data.sqlite", "db/app.sqlite3", "local.db",
	}
	for _, p := range asks {
		require.False(t, FileAutoApprove(rules, p), p)
	}
	writes := []string{
		"main.go", "src/app.ts", "README.md", "environment.go", "env/config.go", ".envoy.yaml",
		"go.mod", "package.json", "docs/keys.md", ".github/CODEOWNERS", ".gitignore",
		"sub/.github/workflows/ci.yml", "Cargo.toml", "database.go", "my.env",
	}
	for _, p := range writes {
		require.True(t, FileAutoApprove(rules, p), p)
	}
}

func TestDefaultFileRulesIsFresh(t *testing.T) {
	t.Parallel()
	a := DefaultFileRules()
	a[0].AutoApprove = true
	require.False(t, DefaultFileRules()[0].AutoApprove)
}

func TestFileAutoApproveOutsideRoot(t *testing.T) {
	t.Parallel()
	for _, p := range []string{
		"../secret.txt", "..", "a/../../b", "/etc/passwd", "/home/me/x.go", `\\server\share`,
		"C:/Users/x", `C:\Users\x`,
	} {
		require.False(t, FileAutoApprove(nil, p), p)
		require.False(t, FileAutoApprove([]FileRule{{Pattern: "**", AutoApprove: true}}, p), p)
	}
	require.True(t, FileAutoApprove(nil, "a/../b.go"))
}

func TestFileAutoApproveLastMatchWins(t *testing.T) {
	t.Parallel()
	rules := append(DefaultFileRules(), FileRule{Pattern: ".env.example", AutoApprove: true})
	require.True(t, FileAutoApprove(rules, ".env.example"))
	require.True(t, FileAutoApprove(rules, "svc/.env.example"))
	require.False(t, FileAutoApprove(rules, ".env.local"))

	rule, ok := FileRuleFor(rules, "svc/.env.example")
	require.True(t, ok)
	require.Equal(t, FileRule{Pattern: ".env.example", AutoApprove: true}, rule)

	rule, ok = FileRuleFor(rules, "svc/.env.local")
	require.True(t, ok)
	require.Equal(t, ".env.*", rule.Pattern)

	_, ok = FileRuleFor(rules, "main.go")
	require.False(t, ok)

	// A later broad rule overrides an earlier narrow one, and a later ask overrides it back.
	rules = []FileRule{
		{Pattern: "secrets/**", AutoApprove: false},
		{Pattern: "**/*.txt", AutoApprove: true},
		{Pattern: "secrets/keep/*.txt", AutoApprove: false},
	}
	require.True(t, FileAutoApprove(rules, "secrets/notes.txt"))
	require.False(t, FileAutoApprove(rules, "secrets/keep/a.txt"))
	require.False(t, FileAutoApprove(rules, "secrets/a.bin"))
}

func TestFileRulePatterns(t *testing.T) {
	t.Parallel()
	cases := []struct {
		pattern, path string
		match         bool
	}{
		{".env", ".env", true},
		{".env", "a/b/.env", true},
		{"/.env", ".env", true},
		{"/.env", "a/.env", false},
		{"config/*.yml", "config/a.yml", true},
		{"config/*.yml", "x/config/a.yml", false},
		{"**/config/*.yml", "x/config/a.yml", true},
		{"docs/**", "docs/a/b/c.md", true},
		{"*.PEM", "x.pem", false},
		{"[", "[", false},
	}
	for _, tc := range cases {
		_, ok := FileRuleFor([]FileRule{{Pattern: tc.pattern}}, tc.path)
		require.Equal(t, tc.match, ok, "%s vs %s", tc.pattern, tc.path)
	}
}
