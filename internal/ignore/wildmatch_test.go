package ignore

import (
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// globCase is one pattern, as rules.go hands it to compileGlob (without "!", a leading "/"
// or a trailing "/"), against one slash-separated path.
type globCase struct {
	pattern, path string
	want          bool
}

var globCases = []globCase{
	// Plain text.
	{"foo", "foo", true},
	{"foo", "foobar", false},
	{"Foo", "foo", false},
	{"foo/bar", "foo/bar", true},

	// "?" is one byte, never "/".
	{"?at", "cat", true},
	{"?at", "at", false},
	{"a?c", "a/c", false},
	{"?", "é", false},
	{"??", "é", true},
	{"?", "\xff", true},

	// "*" is any run of bytes within one component.
	{"*.log", "app.log", true},
	{"*.log", ".log", true},
	{"*.log", "logs/app.log", false},
	{"*", "x/y", false},
	{"a*b*c", "axxbyyc", true},
	{"*ab", "aaabababab", true},
	{"a/*/c", "a/b/c", true},
	{"a/*/c", "a/b/x/c", false},

	// Bracket classes.
	{"[abc].txt", "b.txt", true},
	{"x[a-c]", "xb", true},
	{"x[!a-c]", "xd", true},
	{"x[!a-c]", "xb", false},
	{"x[^a-c]", "xb", false},
	{"[]]x", "]x", true},
	{"[!]]x", "]x", false},
	{"a[]-]b", "a-b", true},
	{"a[x-]b", "a-b", true},
	{"a[-x]b", "a-b", true},
	{"a[a-c-e]b", "adb", false},
	{"a[a-c-e]b", "a-b", true},
	{"x[z-a]", "xz", true},
	{"x[--0]", "x.", true},
	{"a[/]b", "a/b", false},
	{"a[!x]b", "a/b", false},
	{`x[\]]`, "x]", true},
	{`x[a\-c]`, "xb", false},
	{"x[é]", "xé", false},
	{"x[é][é]", "xé", true},

	// Named classes are ASCII only, and "space" has no vertical tab.
	{"[[:digit:]][[:digit:]]", "42", true},
	{"[[:alpha:]]*", "Zed", true},
	{"[[:upper:][:digit:]]x", "7x", true},
	{"[![:lower:]]x", "Ax", true},
	{"[![:lower:]]x", "ax", false},
	{"[[:space:]]x", "\tx", true},
	{"[[:space:]]x", "\vx", false},
	{"[[:xdigit:]]x", "gx", false},
	{"[[:punct:]]x", "_x", true},
	{"[[:alnum:]]x", "\xe9x", false},
	{"x[[:alpha:]-z]", "x-", true},
	{"x[[:alpha]", "x:", true}, // no ":]", so "[" is a plain member
	{"x[[:]]", "x[]", true},

	// Backslash takes the next byte literally.
	{`\*x`, "*x", true},
	{`\*x`, "ax", false},
	{`x\?`, "x?", true},
	{`\[x]`, "[x]", true},
	{`a\b`, "ab", true},
	{`\\x`, `\x`, true},
	{`\#x`, "#x", true},

	// "**" as a whole component spans directories.
	{"**/foo", "foo", true},
	{"**/foo", "a/b/foo", true},
	{"**/foo", "a/xfoo", false},
	{"foo/**", "foo/a/b", true},
	{"foo/**", "foo", false},
	{"a/**/b", "a/b", true},
	{"a/**/b", "a/x/y/b", true},
	{"a/**/b", "a/xb", false},
	{"a/**/**/b", "a/b", true},
	{"***/b", "a/b", true},
	{"**", "a/b/c", true},
	{"**/b/**", "a/b/c/d", true},
	{`a/**\/b`, "a/x/b", true},
	{`a\/**`, "a/x/y", true},

	// Elsewhere "**" is just "*", except right after the plain text a pattern starts with,
	// where git lets it begin a component.
	{"x**y", "xa/y", false},
	{"a/**b", "a/x/b", false},
	{"a?**/b", "axy/z/b", false},
	{"a**/b", "ax/y/b", true},
	{"a**/b", "ab", true},
	{"a/x**", "a/xy/z", true},

	// Malformed patterns match nothing at all.
	{"a[bc", "a[bc", false},
	{"x[", "x[", false},
	{"x[]", "x]", false},
	{"x[!]", "x]", false},
	{`x[a\]`, "x]", false},
	{"x[[:foo:]]", "xf", false},
	{"x[[::]]", "x:", false},
	{"x[[:alpha:]", "xa", false},
	{`foo\`, "foo", false},
	{`*\`, `x\`, false},
}

func TestGlob(t *testing.T) {
	t.Parallel()
	for _, c := range globCases {
		require.Equal(t, c.want, compileGlob(c.pattern)(c.path), "pattern %q, path %q", c.pattern, c.path)
	}
}

// Every row is put to git too, so a wrong expectation cannot hide behind a matching bug.
// Each pattern gets its own repository whose .gitignore anchors it with "/", so git matches
// it against the whole path as rules.go does, and then re-includes every directory with
// "!*/": git ignores whatever is inside an ignored directory, and only the path itself
// (which does not exist, so is no directory) should decide the answer.
func TestGlobCasesAgreeWithGit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	byPattern := map[string][]globCase{}
	for _, c := range globCases {
		requireGitCanCheck(t, c)
		byPattern[c.pattern] = append(byPattern[c.pattern], c)
	}
	for i, pattern := range slices.Sorted(maps.Keys(byPattern)) {
		t.Run(fmt.Sprintf("%d:%q", i, pattern), func(t *testing.T) {
			t.Parallel()
			root := newRepo(t, map[string]string{".gitignore": "/" + pattern + "\n!*/\n"}, nil)
			var paths []string
			for _, c := range byPattern[pattern] {
				paths = append(paths, c.path)
			}
			byGit := gitIgnored(t, root, paths)
			for _, c := range byPattern[pattern] {
				_, ignored := byGit[c.path]
				require.Equal(t, c.want, ignored, "git disagrees on pattern %q, path %q", c.pattern, c.path)
			}
		})
	}
}

// requireGitCanCheck rejects rows git would read differently from compileGlob, rather than
// quietly leaving them unchecked.
func requireGitCanCheck(t *testing.T, c globCase) {
	t.Helper()
	require.NotEmpty(t, c.path)
	require.False(t, strings.HasPrefix(c.path, ":"), "%q would be pathspec magic", c.path)
	require.False(t, strings.ContainsRune(c.path, 0), "%q", c.path)
	for part := range strings.SplitSeq(c.path, "/") {
		require.NotContains(t, []string{"", ".", "..", ".git"}, part, "git normalizes or skips %q", c.path)
	}
	require.False(t, strings.HasPrefix(c.pattern, "/"), "rules.go strips a leading slash: %q", c.pattern)
	require.False(t, strings.HasSuffix(c.pattern, "/"), "a trailing slash makes %q dir-only", c.pattern)
	require.Equal(t, c.pattern, trimTrailingSpaces(c.pattern), "git would trim %q", c.pattern)
	require.False(t, strings.ContainsAny(c.pattern, "\n\r\x00"), "%q", c.pattern)
}
