package app

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gantry/internal/approval"
	"gantry/internal/config"
	"gantry/internal/llm"
	"gantry/internal/lsp"
	"gantry/internal/safety"
	"gantry/internal/terminal"
	"gantry/internal/tools"
	"gantry/internal/trust"
)

// SettingsView is what the Settings screen shows (mirrored in frontend/src/lib/types.ts).
type SettingsView struct {
	Settings      config.Settings `json:"settings"`
	Path          string          `json:"path"`
	Problem       string          `json:"problem"`
	EffectiveHost string          `json:"effectiveHost"`
	EnvHost       string          `json:"envHost"`
	// DefaultFileRules are the built-in sensitive-file rules, which Settings.FileRules null means.
	DefaultFileRules []config.FileRule `json:"defaultFileRules"`
	// DefaultTerminalTimeout is the seconds a command gets when TerminalTimeout is 0.
	DefaultTerminalTimeout int `json:"defaultTerminalTimeout"`
	// Sandbox says whether commands can run in the sandbox here, and if not, why and how to
	// fix it (looked up once per process).
	Sandbox terminal.SandboxSupport `json:"sandbox"`
}

// ToolInfo is a tool as the Settings screen lists it (tools.About).
type ToolInfo struct {
	Name    string     `json:"name"`
	Label   string     `json:"label"`   // a few words
	Summary string     `json:"summary"` // one line for a person, not the model's description
	Kind    tools.Kind `json:"kind"`
}

// SettingsService reads and saves settings and the "always allow" rules.
type SettingsService struct {
	store     *config.Store
	rules     *approval.FileRuleStore
	folders   *trust.FileStore
	ollama    *OllamaService
	chat      *ChatService
	code      *codeServers
	mcp       *mcpServers
	workspace *WorkspaceService
}

// Get returns the settings and how they resolve.
func (s *SettingsService) Get() SettingsView {
	cur := s.store.Get()
	view := SettingsView{
		Settings: cur, Path: s.store.Path(), Problem: s.store.Problem(), EnvHost: os.Getenv("OLLAMA_HOST"),
		DefaultFileRules: configRules(safety.DefaultFileRules()), DefaultTerminalTimeout: int(terminal.DefaultTimeout.Seconds()),
		Sandbox: terminal.SandboxAvailable(),
	}
	if u, err := llm.ResolveHost(cur.OllamaHost); err == nil {
		view.EffectiveHost = u.String()
	}
	return view
}

// Save validates and stores the settings, then re-checks Ollama in case the host changed.
func (s *SettingsService) Save(next config.Settings) (SettingsView, error) {
	if err := next.Validate(); err != nil {
		return SettingsView{}, err
	}
	if _, err := llm.ResolveHost(next.OllamaHost); err != nil {
		return SettingsView{}, err
	}
	if next.Sandbox && !s.store.Get().Sandbox {
		// Turning it on where it cannot work would stop every command; one already on (bwrap
		// removed since) stays on, so saving other fields does not quietly drop it.
		if support := terminal.SandboxAvailable(); !support.Available {
			return SettingsView{}, fmt.Errorf("commands cannot run in a sandbox here: %s", support.Reason)
		}
	}
	known := builtinTools()
	for _, name := range next.DisabledTools {
		if !slices.ContainsFunc(known, func(t ToolInfo) bool { return t.Name == strings.TrimSpace(name) }) {
			return SettingsView{}, fmt.Errorf("there is no tool named %q to turn off", name)
		}
	}
	// MCP and language servers change through their own methods only: the screen's copy of them
	// may be older.
	next.MCPServers = s.store.Get().MCPServers
	next.LanguageServers = s.store.Get().LanguageServers
	if err := s.store.Save(next); err != nil {
		return SettingsView{}, err
	}
	s.ollama.wake()
	s.chat.settingsSaved(s.store.Get())
	return s.Get(), nil
}

// Tools lists the built-in tools in the order the model sees them, for the on/off switches.
func (s *SettingsService) Tools() []ToolInfo { return builtinTools() }

// Rules are the stored "always allow" rules, in the order they were given.
func (s *SettingsService) Rules() []approval.Rule {
	rules := s.rules.Rules()
	if rules == nil {
		rules = []approval.Rule{}
	}
	return rules
}

// RemoveRule deletes an "always allow" rule; the next approval it would have covered asks again.
func (s *SettingsService) RemoveRule(r approval.Rule) ([]approval.Rule, error) {
	if err := s.rules.RemoveRule(r); err != nil {
		return nil, err
	}
	return s.Rules(), nil
}

// RulesProblem says why the rules file could not be used at start, or "".
func (s *SettingsService) RulesProblem() string { return s.rules.Problem() }

// TrustedFolders are the folders trusted to run their own code, in the order they were trusted.
func (s *SettingsService) TrustedFolders() []trust.Folder {
	folders := s.folders.Folders()
	if folders == nil {
		folders = []trust.Folder{}
	}
	return folders
}

// TrustFolder trusts a folder to run its own programs (Settings' "Trust this folder" for the
// open project).
func (s *SettingsService) TrustFolder(path string) ([]trust.Folder, error) {
	if err := s.folders.Trust(path); err != nil {
		return nil, err
	}
	return s.TrustedFolders(), nil
}

// RevokeTrust takes a folder's trust back: its programs ask again before they run.
func (s *SettingsService) RevokeTrust(path string) ([]trust.Folder, error) {
	if err := s.folders.Revoke(path); err != nil {
		return nil, err
	}
	return s.TrustedFolders(), nil
}

// TrustProblem says why the trusted folders file could not be used at start, or "".
func (s *SettingsService) TrustProblem() string { return s.folders.Problem() }

// toolInfo is a tool's row in Settings, from what the tool says of itself.
func toolInfo(t tools.Tool) ToolInfo {
	about := tools.AboutOf(t)
	return ToolInfo{Name: t.Name(), Label: about.Label, Summary: about.Summary, Kind: t.Kind()}
}

func builtinTools() []ToolInfo {
	var out []ToolInfo
	// The tools are only described here, never run, so they need no real workspace.
	for _, t := range tools.Builtins(&tools.Env{}, terminal.NewSession(os.TempDir())) {
		out = append(out, toolInfo(t))
	}
	return out
}

func configRules(rules []safety.FileRule) []config.FileRule {
	out := make([]config.FileRule, len(rules))
	for i, r := range rules {
		out[i] = config.FileRule{Pattern: r.Pattern, Action: config.FileAsk}
		if r.AutoApprove {
			out[i].Action = config.FileAllow
		}
	}
	return out
}

// CodeIntelligenceView is Settings → Code intelligence: each language's server and where it
// stands for the open project (mirrored in frontend/src/lib/types.ts).
type CodeIntelligenceView struct {
	ToolsDir string       `json:"toolsDir"` // where the install commands put the servers
	Project  string       `json:"project"`  // the open project, "" when none
	Servers  []lsp.Status `json:"servers"`
}

// CodeIntelligence reports the language servers: found, running (with memory), failed, or not
// installed (with the command that installs them).
func (s *SettingsService) CodeIntelligence() CodeIntelligenceView {
	view := CodeIntelligenceView{ToolsDir: s.code.toolsDir}
	root := os.TempDir()
	if ws := s.workspace.Current(); ws != nil {
		root, view.Project = ws.Path, ws.Path
	}
	var m *lsp.Manager
	if view.Project != "" {
		m = s.code.For(root)
	} else {
		// Nothing open: what would run, without starting anything.
		m = lsp.NewManager(lsp.Options{Root: root, ToolsDirs: ToolsDirs(filepath.Dir(s.code.toolsDir)), Overrides: s.store.Get().LanguageServers})
		defer m.Close()
	}
	view.Servers = m.Statuses(view.ToolsDir)
	return view
}

// SetLanguageServer makes program the server for a language ("" goes back to the one Gantry
// finds). The running servers stop; each starts again, the new way, when next needed.
func (s *SettingsService) SetLanguageServer(id, program string) (CodeIntelligenceView, error) {
	if !slices.ContainsFunc(lsp.Specs(), func(spec lsp.Spec) bool { return spec.ID == id }) {
		return CodeIntelligenceView{}, fmt.Errorf("there is no language %q", id)
	}
	program = strings.TrimSpace(program)
	if program != "" {
		fi, err := os.Stat(program)
		switch {
		case !filepath.IsAbs(program):
			return CodeIntelligenceView{}, fmt.Errorf("give the full path of the program, like /usr/local/bin/gopls")
		case err != nil:
			return CodeIntelligenceView{}, fmt.Errorf("%s cannot be used: %w", program, err)
		case fi.IsDir() || fi.Mode()&0o111 == 0:
			return CodeIntelligenceView{}, fmt.Errorf("%s is not a program that can run", program)
		}
	}
	next := s.store.Get()
	servers := maps.Clone(next.LanguageServers)
	if servers == nil {
		servers = map[string]string{}
	}
	servers[id] = program
	next.LanguageServers = servers
	if err := s.store.Save(next); err != nil {
		return CodeIntelligenceView{}, err
	}
	s.code.CloseAll()
	return s.CodeIntelligence(), nil
}
