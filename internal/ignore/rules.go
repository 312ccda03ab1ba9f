package ignore

import (
	"os"
	"path/filepath"
	"strings"
)

// rule is one pattern line of a .gitignore or exclude file.
type rule struct {
	match    glob   // the pattern with any "!", leading "/" and trailing "/" removed
	base     string // directory of the file the rule came from, relative to the root
	negate   bool
	dirOnly  bool
	basename bool // no slash: the glob is tried against the last path component at any depth
}

// matches reports whether the rule applies to rel, a path inside the rule's base directory.
func (r *rule) matches(rel string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	if r.basename {
		return r.match(rel[strings.LastIndexByte(rel, '/')+1:])
	}
	if r.base != "" {
		rest, ok := strings.CutPrefix(rel, r.base+"/")
		if !ok {
			return false
		}
		rel = rest
	}
	return r.match(rel)
}

// lastMatch returns the rule that decides rel within one file: the last one that matches.
func lastMatch(rules []rule, rel string, isDir bool) *rule {
	for i := len(rules) - 1; i >= 0; i-- {
		if rules[i].matches(rel, isDir) {
			return &rules[i]
		}
	}
	return nil
}

// readGitignore loads the .gitignore of dir (relative to root). Like git since 2.32 it
// refuses a .gitignore that is a symlink, so a link cannot pull rules in from elsewhere.
func readGitignore(root, dir string) []rule {
	name := filepath.Join(root, filepath.FromSlash(dir), ".gitignore")
	if fi, err := os.Lstat(name); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	return readRules(name, dir)
}

// readRules treats an unreadable file like a missing one, as git does: a broken ignore
// file must not make the whole workspace unusable.
func readRules(name, base string) []rule {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil
	}
	return parseRules(string(data), base)
}

func parseRules(content, base string) []rule {
	var rules []rule
	for line := range strings.Lines(strings.TrimPrefix(content, "\ufeff")) {
		line = strings.TrimSuffix(line, "\n")
		if line == "" || line[0] == '#' {
			continue
		}
		if r, ok := parseRule(trimTrailingSpaces(strings.TrimSuffix(line, "\r")), base); ok {
			rules = append(rules, r)
		}
	}
	return rules
}

func parseRule(p, base string) (rule, bool) {
	r := rule{base: base}
	if strings.HasPrefix(p, "!") {
		r.negate = true
		p = p[1:]
	}
	if strings.HasSuffix(p, "/") {
		r.dirOnly = true
		p = p[:len(p)-1]
	}
	r.basename = !strings.Contains(p, "/")
	if !r.basename {
		p = strings.TrimPrefix(p, "/")
	}
	// An empty glob can never match a name, so the line is as good as absent.
	if p == "" {
		return r, false
	}
	r.match = compileGlob(p)
	return r, true
}

// trimTrailingSpaces drops unescaped trailing spaces (only spaces, not tabs), as git does.
func trimTrailingSpaces(s string) string {
	firstSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if firstSpace < 0 {
				firstSpace = i
			}
		case '\\':
			i++
			if i == len(s) {
				return s
			}
			firstSpace = -1
		default:
			firstSpace = -1
		}
	}
	if firstSpace >= 0 {
		return s[:firstSpace]
	}
	return s
}
