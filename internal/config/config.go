// Package config loads and saves Gantry's settings: a small JSON file in the user's config
// directory. A broken file must never stop the app from opening, so Load always returns usable
// settings and reports what went wrong separately.
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"gantry/internal/fsutil"

	"github.com/bmatcuk/doublestar/v4"
)

// Settings are the user's choices. Zero values mean "use the default".
type Settings struct {
	// OllamaHost overrides $OLLAMA_HOST; empty means use the environment or the default.
	OllamaHost string `json:"ollamaHost"`
	// DefaultModel is the model new sessions start with; empty means "ask".
	DefaultModel string `json:"defaultModel"`
	// PermissionMode is how much the agent may do without asking (SPEC §8): ask, default or full.
	PermissionMode string `json:"permissionMode"`
	// AutoApproveCommands runs commands that are not dangerous without asking, in the default mode.
	AutoApproveCommands bool `json:"autoApproveCommands"`
	// NumCtxCap caps the context window sent to Ollama; 0 means the built-in cap.
	NumCtxCap int `json:"numCtxCap"`
	// MaxIterations bounds the model calls of one run; 0 means the mode's own limit.
	MaxIterations int `json:"maxIterations"`
	// ModelRequests is how many model requests Gantry sends Ollama at once, for every session
	// and subagent together; the others wait in line. 0 means one, as Ollama serves them on a
	// small machine (OLLAMA_NUM_PARALLEL).
	ModelRequests int `json:"modelRequests"`
	// AutoApproveSensitiveEdits writes files the file rules call sensitive without asking, in
	// the default mode.
	AutoApproveSensitiveEdits bool `json:"autoApproveSensitiveEdits"`
	// FileRules decide which files are sensitive, last match wins; nil means the built-in list
	// (safety.DefaultFileRules), an empty list means no file is sensitive.
	FileRules []FileRule `json:"fileRules"`
	// DisabledTools are tools the model is not offered; never null in JSON.
	DisabledTools []string `json:"disabledTools"`
	// GitBranch moves each new session onto its own git branch at its first run.
	GitBranch bool `json:"gitBranch"`
	// TerminalTimeout is the seconds a command may run when the model asks for no timeout; 0
	// means the terminal's default (30 s).
	TerminalTimeout int `json:"terminalTimeout"`
	// Sandbox runs commands under bubblewrap (SPEC §7): read-only outside the project, no
	// network unless SandboxNetwork. Off by default, because builds that write elsewhere in the
	// home folder or download dependencies fail in it.
	Sandbox bool `json:"sandbox"`
	// SandboxNetwork lets sandboxed commands use the network.
	SandboxNetwork bool `json:"sandboxNetwork"`
	// Theme is the app's appearance: system, light or dark.
	Theme string `json:"theme"`
	// LanguageServers are programs the person chose instead of the ones Gantry finds, by
	// language ("go", "typescript", "python", "c", "rust"); absolute paths.
	LanguageServers map[string]string `json:"languageServers,omitempty"`
	// MCPServers are the person's MCP servers, {"name": {"command": …} | {"url": …}}, as other
	// clients write them. Kept as written: internal/mcp reads each entry on its own, so a broken
	// one is reported in Settings and never costs the rest of the settings.
	MCPServers json.RawMessage `json:"mcpServers,omitempty"`
}

// FileRule is one sensitive-file rule as settings.json keeps it (safety.FileRule with words
// instead of a bool, so the file reads plainly).
type FileRule struct {
	Pattern string `json:"pattern"` // doublestar glob, .gitignore-like (see safety.FileRule)
	Action  string `json:"action"`  // FileAsk or FileAllow
}

// File rule actions.
const (
	FileAsk   = "ask"
	FileAllow = "allow"
)

// Themes.
const (
	ThemeSystem = "system"
	ThemeLight  = "light"
	ThemeDark   = "dark"
)

// Permission modes, as approval.Mode spells them (config stays free of the approval package).
const (
	PermissionAsk     = "ask"
	PermissionDefault = "default"
	PermissionFull    = "full"
)

// Bounds of the numeric settings. Below MinNumCtx the system prompt and tools alone would not
// fit; above MaxNumCtx no local model has a window; MaxMaxIterations keeps a runaway loop short.
const (
	MinNumCtx        = 2048
	MaxNumCtx        = 1 << 20
	MaxMaxIterations = 200
	// MaxModelRequests is more than Ollama serves at once on any one machine.
	MaxModelRequests = 16
	// MaxTerminalTimeout matches terminal.MaxTimeout, the cap on any one command.
	MaxTerminalTimeout = 600
	// MaxFileRules keeps the list something a person can still read.
	MaxFileRules = 500
)

// Defaults returns the settings used when there is no file or it cannot be used.
func Defaults() Settings {
	return Settings{PermissionMode: PermissionDefault, Theme: ThemeSystem, DisabledTools: []string{}}
}

// Validate checks values a person typed into the Settings screen.
func (s Settings) Validate() error {
	host := strings.TrimSpace(s.OllamaHost)
	if host != "" {
		if strings.ContainsAny(host, " \t\n") {
			return fmt.Errorf("Ollama host %q must not contain spaces", host)
		}
		probe := host
		if !strings.Contains(probe, "://") {
			probe = "http://" + probe
		}
		u, err := url.Parse(probe)
		if err != nil || u.Host == "" {
			return fmt.Errorf("Ollama host %q is not a valid address (try 127.0.0.1:11434 or http://gpu-box:11434)", host)
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return fmt.Errorf("Ollama host %q must use http or https", host)
		}
	}
	if strings.ContainsAny(s.DefaultModel, " \t\n") {
		return fmt.Errorf("model name %q must not contain spaces", s.DefaultModel)
	}
	switch strings.ToLower(strings.TrimSpace(s.PermissionMode)) {
	case "", PermissionAsk, PermissionDefault, PermissionFull:
	default:
		return fmt.Errorf("permission mode %q must be ask, default or full", s.PermissionMode)
	}
	if s.NumCtxCap != 0 && (s.NumCtxCap < MinNumCtx || s.NumCtxCap > MaxNumCtx) {
		return fmt.Errorf("context length %d must be between %d and %d (or 0 for the default)", s.NumCtxCap, MinNumCtx, MaxNumCtx)
	}
	if s.MaxIterations < 0 || s.MaxIterations > MaxMaxIterations {
		return fmt.Errorf("step limit %d must be between 1 and %d (or 0 for the default)", s.MaxIterations, MaxMaxIterations)
	}
	if s.ModelRequests < 0 || s.ModelRequests > MaxModelRequests {
		return fmt.Errorf("model requests at once %d must be between 1 and %d (or 0 for the default)", s.ModelRequests, MaxModelRequests)
	}
	if s.TerminalTimeout < 0 || s.TerminalTimeout > MaxTerminalTimeout {
		return fmt.Errorf("command timeout %d must be between 1 and %d seconds (or 0 for the default)", s.TerminalTimeout, MaxTerminalTimeout)
	}
	switch strings.ToLower(strings.TrimSpace(s.Theme)) {
	case "", ThemeSystem, ThemeLight, ThemeDark:
	default:
		return fmt.Errorf("appearance %q must be system, light or dark", s.Theme)
	}
	if len(s.FileRules) > MaxFileRules {
		return fmt.Errorf("%d file rules are too many (at most %d)", len(s.FileRules), MaxFileRules)
	}
	for i, r := range s.FileRules {
		if err := r.validate(); err != nil {
			return fmt.Errorf("file rule %d: %w", i+1, err)
		}
	}
	for _, name := range s.DisabledTools {
		if strings.TrimSpace(name) == "" || strings.ContainsAny(name, " \t\n") {
			return fmt.Errorf("tool name %q is not valid", name)
		}
	}
	for lang, program := range s.LanguageServers {
		if p := strings.TrimSpace(program); p != "" && !filepath.IsAbs(p) {
			return fmt.Errorf("the %s language server %q must be an absolute path", lang, program)
		}
	}
	return nil
}

func (r FileRule) validate() error {
	p := strings.TrimSpace(r.Pattern)
	if p == "" {
		return errors.New("the pattern is empty (try .env or secrets/**)")
	}
	if !doublestar.ValidatePattern(strings.TrimPrefix(p, "/")) {
		return fmt.Errorf("pattern %q is not a valid glob (check its [ ] and { } brackets)", p)
	}
	switch strings.ToLower(strings.TrimSpace(r.Action)) {
	case FileAsk, FileAllow:
	default:
		return fmt.Errorf("pattern %q: the action %q must be ask or allow", p, r.Action)
	}
	return nil
}

func (s Settings) normalized() Settings {
	s.OllamaHost = strings.TrimSpace(s.OllamaHost)
	s.DefaultModel = strings.TrimSpace(s.DefaultModel)
	s.PermissionMode = strings.ToLower(strings.TrimSpace(s.PermissionMode))
	if s.PermissionMode == "" {
		s.PermissionMode = PermissionDefault
	}
	s.Theme = strings.ToLower(strings.TrimSpace(s.Theme))
	if s.Theme == "" {
		s.Theme = ThemeSystem
	}
	servers := map[string]string{}
	for lang, program := range s.LanguageServers {
		if program = strings.TrimSpace(program); program != "" {
			servers[strings.TrimSpace(lang)] = program
		}
	}
	s.LanguageServers = nil
	if len(servers) > 0 {
		s.LanguageServers = servers
	}
	if s.FileRules != nil {
		rules := make([]FileRule, len(s.FileRules))
		for i, r := range s.FileRules {
			rules[i] = FileRule{Pattern: strings.TrimSpace(r.Pattern), Action: strings.ToLower(strings.TrimSpace(r.Action))}
		}
		s.FileRules = rules
	}
	// A set, kept sorted so the file does not change when toggles are flipped back and forth.
	tools := []string{}
	for _, name := range s.DisabledTools {
		if name = strings.TrimSpace(name); !slices.Contains(tools, name) {
			tools = append(tools, name)
		}
	}
	slices.Sort(tools)
	s.DisabledTools = tools
	return s
}

// Store owns the settings file. It is safe for concurrent use.
type Store struct {
	path    string
	mu      sync.Mutex
	current Settings
	problem string
}

// DefaultPath is <user config dir>/gantry/settings.json.
func DefaultPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("finding the user config directory: %w", err)
	}
	return filepath.Join(dir, "gantry", "settings.json"), nil
}

// Open loads the settings at path. It never fails because of the file's content: a corrupt or
// unreadable file is moved aside (kept for the user), defaults are used, and Problem says so.
func Open(path string) *Store {
	s := &Store{path: path}
	s.current, s.problem = load(path)
	return s
}

// Path is where the settings live.
func (s *Store) Path() string { return s.path }

// Get returns the current settings.
func (s *Store) Get() Settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.current
}

// Problem is a message for the user when the file could not be used at start, else "".
func (s *Store) Problem() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.problem
}

// Save validates and writes the settings atomically, then makes them current.
func (s *Store) Save(next Settings) error {
	next = next.normalized()
	if err := next.Validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := writeAtomic(s.path, next); err != nil {
		return err
	}
	s.current = next
	s.problem = ""
	return nil
}

func load(path string) (Settings, string) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Defaults(), ""
	}
	if err != nil {
		kept := keepAside(path)
		return Defaults(), fmt.Sprintf("Could not read the settings file %s (%v). Gantry is using default settings%s.", path, err, kept)
	}
	var loaded Settings
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&loaded); err != nil {
		kept := keepAside(path)
		return Defaults(), fmt.Sprintf("The settings file %s is not valid JSON (%v). Gantry is using default settings%s.", path, err, kept)
	}
	loaded = loaded.normalized()
	if err := loaded.Validate(); err != nil {
		kept := keepAside(path)
		return Defaults(), fmt.Sprintf("The settings file %s has an invalid value: %v. Gantry is using default settings%s.", path, err, kept)
	}
	return loaded, ""
}

// keepAside renames a bad settings file so saving new settings cannot destroy what the user had,
// and returns a phrase naming where it went.
func keepAside(path string) string {
	aside := fmt.Sprintf("%s.broken-%s", path, time.Now().Format("20060102-150405"))
	if err := os.Rename(path, aside); err != nil {
		return fmt.Sprintf("; the file was left in place (%v)", err)
	}
	return fmt.Sprintf("; your old file was kept as %s", aside)
}

func writeAtomic(path string, s Settings) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding settings: %w", err)
	}
	if err := fsutil.WriteFile(path, append(data, '\n')); err != nil {
		return fmt.Errorf("saving settings: %w", err)
	}
	return nil
}
