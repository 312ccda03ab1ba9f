package safety

import (
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// FileRule says whether files matching Pattern may be written without asking.
//
// Patterns are doublestar globs matched case-sensitively against the workspace-relative
// slash path: ** spans directories, and a pattern with no slash matches the base name at
// any depth, like .gitignore (".env" matches "config/.env"). A pattern with a slash, leading
// ones included ("/.env"), is anchored at the workspace root; start it with **/ to float it.
// A malformed pattern matches nothing.
type FileRule struct {
	Pattern     string
	AutoApprove bool // true: may be written without asking; false: ask (sensitive)
}

// DefaultFileRules asks before writing secrets, repository internals, lock files, CI
// configuration and databases: edits there leak credentials, corrupt history, change what
// gets installed or run on CI, or destroy data, and are hard to review in a diff. A fresh
// slice is returned, so callers may append their own rules, which then win.
func DefaultFileRules() []FileRule {
	patterns := []string{
		// secrets and keys
		".env", ".env.*", ".envrc", ".netrc", ".npmrc", ".pypirc",
		"*.pem", "*.key", "*.crt", "*.cer", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.ppk",
		"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
		"**/.ssh/**",
		// repository internals
		"**/.git/**",
		// lock files
		"package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock",
		"bun.lockb", "go.sum", "Cargo.lock", "poetry.lock", "Pipfile.lock", "uv.lock",
		"Gemfile.lock", "composer.lock",
		// CI configuration
		".github/workflows/**", ".gitlab-ci.yml", ".circleci/**", "Jenkinsfile",
		"azure-pipelines.yml", ".travis.yml", "bitbucket-pipelines.yml",
		// databases
		"*.sqlite", "*.sqlite3", "*.db",
	}
	rules := make([]FileRule, len(patterns))
	for i, p := range patterns {
		rules[i] = FileRule{Pattern: p}
	}
	return rules
}

// FileRuleFor returns the rule that decides relPath, the last one that matches, so the
// approval card can say why it asks.
func FileRuleFor(rules []FileRule, relPath string) (FileRule, bool) {
	p := path.Clean(relPath)
	for i := len(rules) - 1; i >= 0; i-- {
		if matchFile(rules[i].Pattern, p) {
			return rules[i], true
		}
	}
	return FileRule{}, false
}

func matchFile(pattern, p string) bool {
	if !strings.Contains(pattern, "/") {
		p = path.Base(p)
	}
	ok, err := doublestar.Match(strings.TrimPrefix(pattern, "/"), p)
	return ok && err == nil
}

// FileAutoApprove reports whether relPath may be written without asking: the last matching
// rule decides, and a path no rule matches is not sensitive. Paths that leave the workspace
// always ask; resolving them is the caller's job, but they must never slip through here.
func FileAutoApprove(rules []FileRule, relPath string) bool {
	if outsideRoot(relPath) {
		return false
	}
	rule, ok := FileRuleFor(rules, relPath)
	return !ok || rule.AutoApprove
}

func outsideRoot(relPath string) bool {
	p := path.Clean(relPath)
	return p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") ||
		strings.HasPrefix(relPath, `\`) || hasDriveLetter(p)
}

// hasDriveLetter catches Windows absolute paths such as C:/Users or C:\Users.
func hasDriveLetter(p string) bool {
	return len(p) >= 2 && p[1] == ':' &&
		('a' <= p[0] && p[0] <= 'z' || 'A' <= p[0] && p[0] <= 'Z')
}
