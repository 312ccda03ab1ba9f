package tools

import (
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Close names for a path that does not exist, so the model can correct a typo in one step.

// similarPaths suggests existing paths close to rel, which does not exist: the first missing name
// is compared with its siblings (a typo, another case, another extension), and the rest of rel is
// kept when it exists under a suggested folder ("scr/main.go" → "src/main.go").
func similarPaths(root, rel string) []string {
	parts := strings.Split(rel, "/")
	i := 0
	for ; i < len(parts)-1; i++ {
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(strings.Join(parts[:i+1], "/"))))
		if err != nil || !fi.IsDir() {
			break
		}
	}
	parent := strings.Join(parts[:i], "/")
	rest := strings.Join(parts[i+1:], "/")
	var out []string
	for _, c := range similarNames(filepath.Join(root, filepath.FromSlash(parent)), parts[i], rest != "") {
		p := path.Join(parent, c)
		if rest != "" {
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p), filepath.FromSlash(rest))); err != nil {
				continue
			}
			p = path.Join(p, rest)
		}
		out = append(out, p)
	}
	return out
}

// similarNames returns up to five names in dir that look like name, best first.
func similarNames(dir, name string, dirsOnly bool) []string {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	entries, _ := f.ReadDir(10000) // a folder of more is not one a typo is worth a long look in
	want := strings.ToLower(name)
	wantStem := strings.TrimSuffix(want, path.Ext(want))
	type candidate struct {
		name  string
		score int
	}
	var found []candidate
	for _, e := range entries {
		if e.Name() == ".git" || dirsOnly && !e.IsDir() {
			continue
		}
		got := strings.ToLower(e.Name())
		d := nameDistance(want, got)
		if d <= max(1, len(want)/4) || strings.TrimSuffix(got, path.Ext(got)) == wantStem ||
			len(wantStem) >= 3 && strings.HasPrefix(got, wantStem) {
			found = append(found, candidate{e.Name(), d})
		}
	}
	sort.Slice(found, func(a, b int) bool {
		if found[a].score != found[b].score {
			return found[a].score < found[b].score
		}
		return found[a].name < found[b].name
	})
	var out []string
	for _, c := range found[:min(len(found), 5)] {
		out = append(out, c.name)
	}
	return out
}

// nameDistance counts the single-character insertions, deletions, substitutions and swaps of
// neighbours that turn a into b ("mian" → "main" is one).
func nameDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
