package tools

import (
	"context"
	_ "embed"
	"errors"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"

	"gantry/internal/ignore"
	"gantry/internal/search"
)

//go:embed search_workspace.md
var searchWorkspaceDescription string

const (
	// defaultSearchResults keeps a search's answer a small share of a small model's context.
	defaultSearchResults = 50
	maxSearchResults     = 500
	defaultContextLines  = 2
	// displayLineChars caps one matching line in the UI payload; minified files have lines of
	// megabytes, and the model's copy is already cut by Format.
	displayLineChars = 300
)

type searchWorkspaceParams struct {
	Query           string   `json:"query" jsonschema:"The text to find, or a regex when isRegex is true"`
	IsRegex         bool     `json:"isRegex,omitempty" jsonschema:"Treat query as a regex (RE2): a|b for alternatives, .* for anything, \\bword\\b for whole words"`
	CaseInsensitive bool     `json:"caseInsensitive,omitempty" jsonschema:"Ignore upper/lower case (default false)"`
	Include         []string `json:"include,omitempty" jsonschema:"Only files matching these globs, e.g. [\"**/*.go\"] or [\"src/**\"]"`
	Exclude         []string `json:"exclude,omitempty" jsonschema:"Skip files matching these globs, e.g. [\"**/*_test.go\"]"`
	ContextLines    *int     `json:"contextLines,omitempty" jsonschema:"Lines shown before and after each match, 0-10 (default 2)"`
	MaxResults      int      `json:"maxResults,omitempty" jsonschema:"Most matching lines to return (default 50)"`
	Path            string   `json:"path,omitempty" jsonschema:"Search only this folder or file (default: the whole workspace)"`
}

// SearchDisplay is what the UI shows for a search: matching lines only, grouped by file.
type SearchDisplay struct {
	Kind      string              `json:"kind"` // "matches"
	Query     string              `json:"query"`
	Files     []SearchDisplayFile `json:"files"`
	Total     int                 `json:"total"`
	Truncated bool                `json:"truncated"`
}

type SearchDisplayFile struct {
	Path    string               `json:"path"`
	Matches []SearchDisplayMatch `json:"matches"`
}

type SearchDisplayMatch struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// SearchWorkspace finds text in the workspace's files, skipping what .gitignore excludes.
var searchWorkspaceAbout = About{
	Label: "Search text", Summary: "Search the text of the project's files, like grep.", Core: true,
	Hint: "Unknown location: search_workspace, then read only the files it points to.\n" +
		"Before changing a function or type, search_workspace for its uses.\n" +
		"In a large file, search for the part you need rather than reading it all.\n" +
		`Search for distinctive names, not common words; narrow with include (e.g. ["**/*.go"]); isRegex=true allows patterns like "func (Load|Save)".`,
	View: func(args map[string]any) CallView {
		return CallView{Running: "Searching for " + StringArg(args, "query", 80), Spinner: "Searching…"}
	},
}

func SearchWorkspace(env *Env) Tool {
	return Define("search_workspace", KindSearch, searchWorkspaceDescription, searchWorkspaceAbout,
		func(ctx context.Context, p searchWorkspaceParams, _ Output) (Result, error) {
			opts, failed := searchOptions(env, p)
			if failed != nil {
				return *failed, nil
			}
			m := env.Ignore
			if m == nil {
				m = ignore.New(env.Root)
			}
			res, err := search.Search(ctx, m, opts)
			switch {
			case ctx.Err() != nil:
				return Fail(ErrCancelled, "The search was stopped."), nil
			case err != nil:
				// The search package words every error it returns for the model: a bad regex
				// or glob, a path it will not search.
				return Fail(ErrInvalidArguments, "%v.", strings.TrimSuffix(err.Error(), ".")), nil
			}
			return Result{Content: search.Format(res, opts), Display: searchDisplay(opts.Pattern, res)}, nil
		})
}

func searchOptions(env *Env, p searchWorkspaceParams) (search.Options, *Result) {
	query := p.Query
	if query == "" {
		res := Fail(ErrInvalidArguments, "search_workspace needs a query: the text (or regex, with isRegex=true) to find.")
		return search.Options{}, &res
	}
	contextLines := defaultContextLines
	if p.ContextLines != nil {
		contextLines = min(max(*p.ContextLines, 0), search.MaxContextLines)
	}
	maxResults := defaultSearchResults
	if p.MaxResults > 0 {
		maxResults = min(p.MaxResults, maxSearchResults)
	}
	opts := search.Options{
		Pattern:         query,
		IsRegex:         p.IsRegex,
		CaseInsensitive: p.CaseInsensitive,
		ContextLines:    contextLines,
		MaxResults:      maxResults,
		Include:         splitGlobs(p.Include),
		Exclude:         splitGlobs(p.Exclude),
	}
	if p.Path != "" && p.Path != "." {
		abs, err := ResolveWorkspacePath(env.Root, p.Path)
		if err != nil {
			res := Fail(ErrOutsideWorkspace, "%v.", err)
			return opts, &res
		}
		if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) {
			res := Fail(ErrNotFound, "%s does not exist in the workspace. Leave path out to search everything.", quotePath(p.Path))
			return opts, &res
		}
		opts.Path = abs
	}
	return opts, nil
}

// splitGlobs also accepts the "*.ts, *.tsx" form models write into a single string; commas
// inside braces belong to the glob ("*.{ts,tsx}").
func splitGlobs(globs []string) []string {
	var out []string
	for _, g := range globs {
		depth, start := 0, 0
		for i, c := range g {
			switch c {
			case '{':
				depth++
			case '}':
				depth = max(depth-1, 0)
			case ',':
				if depth == 0 {
					out = appendGlob(out, g[start:i])
					start = i + 1
				}
			}
		}
		out = appendGlob(out, g[start:])
	}
	return out
}

func appendGlob(out []string, g string) []string {
	if g = strings.TrimSpace(g); g != "" {
		out = append(out, g)
	}
	return out
}

func searchDisplay(query string, r search.Result) SearchDisplay {
	d := SearchDisplay{Kind: "matches", Query: query, Files: []SearchDisplayFile{}, Total: r.Matches, Truncated: r.Truncated}
	for _, f := range r.Files {
		df := SearchDisplayFile{Path: f.Path}
		for _, m := range f.Matches {
			df.Matches = append(df.Matches, SearchDisplayMatch{Line: m.Number, Text: shortenLine(m.Text, displayLineChars)})
		}
		d.Files = append(d.Files, df)
	}
	return d
}

// shortenLine shortens s to at most n characters, marking the cut.
func shortenLine(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for range n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…"
}
