package approval

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"gantry/internal/safety"

	"github.com/bmatcuk/doublestar/v4"
)

// RuleScope says where an "always allow" rule holds.
type RuleScope string

const (
	ScopeProject RuleScope = "project" // only in the workspace it was made in
	ScopeUser    RuleScope = "user"    // in every workspace
)

// Rule is an "always allow" a person gave from an approval card. It never covers a critical
// command: the gate asks for those before it looks at rules.
type Rule struct {
	// Kind is what the rule allows. It is a kind, not a tool name, because write_file and
	// edit_file go through the same approval and a rule for a file should hold for both.
	Kind Kind `json:"kind"`
	// CommandPrefix allows a simple command whose words start with these ("npm test" allows
	// "npm test -- --watch"); for a compound command it is the whole command, allowed only as is.
	CommandPrefix string `json:"commandPrefix,omitempty"`
	// PathGlob allows edits of workspace-relative paths it matches (doublestar, anchored).
	PathGlob string `json:"pathGlob,omitempty"`
	// Severity is the worst danger tier a command rule allows: the one of the command it was
	// made from, so allowing "git push" does not allow "git push --force".
	Severity safety.Severity `json:"severity,omitempty"`
	// Server and Tool allow one tool of an MCP server (the server's name for it). A user rule
	// holds for the person's own servers only, a project rule for that project's servers too.
	Server    string    `json:"server,omitempty"`
	Tool      string    `json:"tool,omitempty"`
	Scope     RuleScope `json:"scope"`
	Workspace string    `json:"workspace,omitempty"` // absolute root, for project rules
}

// RuleStore keeps the "always allow" rules. The app implements it over its settings, so the
// rules are shown and removable there; FileRuleStore and MemoryRuleStore serve headless runs
// and tests. Implementations are safe for concurrent use.
type RuleStore interface {
	Rules() []Rule
	// AddRule stores r; storing a rule that is already there is not an error.
	AddRule(r Rule) error
}

func (r Rule) validate() error {
	switch r.Kind {
	case KindCommand:
		if strings.TrimSpace(r.CommandPrefix) == "" || r.PathGlob != "" {
			return errors.New("a command rule needs a command prefix and no path")
		}
		if r.Severity.Rank() >= safety.SeverityCritical.Rank() {
			return fmt.Errorf("a command rule cannot allow severity %q", r.Severity)
		}
	case KindEdit:
		if r.PathGlob == "" || r.CommandPrefix != "" || r.Severity != "" || !doublestar.ValidatePattern(r.PathGlob) {
			return fmt.Errorf("an edit rule needs a valid path pattern and no command (got %q)", r.PathGlob)
		}
	case KindMCP:
		if strings.TrimSpace(r.Server) == "" || strings.TrimSpace(r.Tool) == "" || r.CommandPrefix != "" || r.PathGlob != "" || r.Severity != "" {
			return errors.New("an MCP rule needs a server and a tool, and no command or path")
		}
	default:
		return fmt.Errorf("unknown rule kind %q", r.Kind)
	}
	switch r.Scope {
	case ScopeUser:
		if r.Workspace != "" {
			return errors.New("a user rule holds in every workspace and names none")
		}
	case ScopeProject:
		if !filepath.IsAbs(r.Workspace) {
			return fmt.Errorf("a project rule needs the workspace's absolute path (got %q)", r.Workspace)
		}
	default:
		return fmt.Errorf("unknown rule scope %q", r.Scope)
	}
	return nil
}

// allows reports whether r covers req in workspace.
func (r Rule) allows(req Request, workspace string) bool {
	if r.Kind != req.Kind || (r.Scope == ScopeProject && r.Workspace != filepath.Clean(workspace)) {
		return false
	}
	switch r.Kind {
	case KindCommand:
		return req.Severity.Rank() <= r.Severity.Rank() && commandMatches(r.CommandPrefix, req.Command)
	case KindEdit:
		ok, err := doublestar.Match(r.PathGlob, path.Clean(req.Path))
		return ok && err == nil
	case KindMCP:
		fromSettings := req.ServerSource == mcpFromSettings
		return r.Server == req.Server && r.Tool == req.Tool && (r.Scope == ScopeProject || fromSettings)
	}
	return false
}

// mcpFromSettings is the ServerSource of the person's own MCP servers (mcp.SourceSettings).
const mcpFromSettings = "settings"

// ruleFor makes the rule an "always allow" of req stores: the command's leading words, or the
// file's own path.
func ruleFor(req Request, scope RuleScope, workspace string) Rule {
	r := Rule{Kind: req.Kind, Scope: scope}
	if scope == ScopeProject {
		r.Workspace = filepath.Clean(workspace)
	}
	switch req.Kind {
	case KindCommand:
		r.CommandPrefix, r.Severity = commandPrefix(req.Command), req.Severity
	case KindMCP:
		r.Server, r.Tool = req.Server, req.Tool
	default:
		r.PathGlob = escapeGlob(path.Clean(req.Path))
	}
	return r
}

// shellSyntax are the characters that let one command line run more than one thing, or run
// something other than its leading words say; a prefix rule must never match past them ("npm
// test" must not allow "npm test && rm -rf ~").
const shellSyntax = ";&|<>`$(){}\\\n\r"

// maxPrefixWords keeps a prefix rule about the program and its subcommand ("npm run build").
const maxPrefixWords = 3

func simpleCommand(cmd string) bool { return !strings.ContainsAny(cmd, shellSyntax) }

// commandPrefix keeps the leading words of a simple command up to the first that looks like an
// argument (a flag, a path, a value, a quoted string). A compound command, or one whose program
// runs other code given as arguments, is kept whole.
func commandPrefix(cmd string) string {
	words := strings.Fields(cmd)
	if !simpleCommand(cmd) || len(words) == 0 || runsOtherCode[path.Base(words[0])] {
		return strings.Join(words, " ")
	}
	n := 1
	for n < len(words) && n < maxPrefixWords && plainWord(words[n]) {
		n++
	}
	return strings.Join(words[:min(n, len(words))], " ")
}

// plainWord is a subcommand-like word: letters, digits, - and _, not starting with - or a digit.
func plainWord(w string) bool {
	if w == "" || w[0] == '-' || ('0' <= w[0] && w[0] <= '9') {
		return false
	}
	for _, c := range w {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// runsOtherCode are programs whose arguments are another command or a script: "always allow
// bash" from "bash build.sh" must not allow "bash -c 'anything'". They are named by base name,
// so /bin/bash is one too.
var runsOtherCode = map[string]bool{
	"sudo": true, "doas": true, "env": true, "xargs": true, "nohup": true, "time": true,
	"nice": true, "timeout": true, "stdbuf": true, "ionice": true, "setsid": true, "exec": true,
	"builtin": true, "command": true, "eval": true, "source": true, ".": true,
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "fish": true, "ssh": true,
	"python": true, "python3": true, "node": true, "perl": true, "ruby": true, "php": true,
	"npx": true, "find": true, "awk": true,
}

func commandMatches(prefix, cmd string) bool {
	words := strings.Fields(cmd)
	if !simpleCommand(cmd) || len(words) == 0 || runsOtherCode[path.Base(words[0])] {
		return strings.Join(words, " ") == prefix
	}
	// Words are compared from the first, so "npm test" does not match "FOO=1 npm test".
	want := strings.Fields(prefix)
	return len(words) >= len(want) && slices.Equal(words[:len(want)], want)
}

// escapeGlob makes a path match only itself as a doublestar pattern.
func escapeGlob(p string) string {
	var b strings.Builder
	for _, c := range p {
		if strings.ContainsRune(`*?[]{}\`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// MemoryRuleStore keeps rules for the life of the process; its zero value is ready to use.
// FileRuleStore is one that also saves every change.
type MemoryRuleStore struct {
	mu    sync.Mutex
	rules []Rule
	save  func([]Rule) error // nil: memory only
}

func (s *MemoryRuleStore) Rules() []Rule {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.rules)
}

func (s *MemoryRuleStore) AddRule(r Rule) error {
	if err := r.validate(); err != nil {
		return fmt.Errorf("not storing the rule: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if slices.Contains(s.rules, r) {
		return nil
	}
	return s.replaceLocked(append(slices.Clone(s.rules), r))
}

// RemoveRule deletes r (Settings lists the rules with a remove button); removing a rule that is
// not there is not an error.
func (s *MemoryRuleStore) RemoveRule(r Rule) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.Index(s.rules, r)
	if i < 0 {
		return nil
	}
	return s.replaceLocked(slices.Delete(slices.Clone(s.rules), i, i+1))
}

// replaceLocked makes next the rules once it is saved, so a failed save changes nothing.
func (s *MemoryRuleStore) replaceLocked(next []Rule) error {
	if s.save != nil {
		if err := s.save(next); err != nil {
			return err
		}
	}
	s.rules = next
	return nil
}
