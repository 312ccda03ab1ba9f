package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"gantry/internal/fsutil"
)

// Source says where a server's entry is kept.
type Source string

const (
	// SourceSettings is settings.json's mcpServers: the person's own servers, in every project.
	SourceSettings Source = "settings"
	// SourceProject is the project's own file (ProjectFile), used only in a trusted folder: a
	// folder must not be able to start programs of its choosing on its own say.
	SourceProject Source = "project"
)

// ProjectFile is where a project keeps its servers, relative to its root, in the same format
// as settings.json: {"mcpServers": {…}}.
const ProjectFile = ".gantry/mcp.json"

// Transports a server is reached over.
const (
	TransportStdio = "stdio" // a command Gantry starts, speaking over its stdin and stdout
	TransportHTTP  = "http"  // streamable HTTP at a URL
	TransportSSE   = "sse"   // the older HTTP+SSE transport at a URL
)

// DefaultTimeout is how long a call may go without an answer or a progress report.
const DefaultTimeout = 60 * time.Second

// maxTimeout bounds a server's timeout setting: a call nobody can wait for is a hung call.
const maxTimeout = 3600

// Config is one server as the person wrote it, in the format other clients use: a command
// with args and env, or a url with headers. Fields other clients add ("autoApprove", …) are
// ignored, so an entry pasted from elsewhere works as it is.
type Config struct {
	Name   string `json:"-"`
	Source Source `json:"-"`

	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// Cwd is where the command runs; relative to the project for a project's server. Empty: the
	// project's folder for a project's server, the home folder for the person's own (a folder
	// not yet trusted must not decide what `npx` finds).
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`

	// Disabled keeps the server from starting; DisabledTools are its tools the model is not
	// offered (by the server's names for them). Settings' switches write these.
	Disabled      bool     `json:"disabled,omitempty"`
	DisabledTools []string `json:"disabledTools,omitempty"`
	// Timeout is the seconds a call may go without an answer or progress; 0 is DefaultTimeout.
	Timeout float64 `json:"timeout,omitempty"`

	// Err says why the entry cannot be used; the server is listed with it and never started.
	Err error `json:"-"`
}

// Transport is how the server is reached: TransportStdio, TransportHTTP or TransportSSE.
func (c Config) Transport() string {
	switch strings.ToLower(strings.TrimSpace(c.Type)) {
	case "sse":
		return TransportSSE
	case "http", "streamable-http", "streamablehttp", "streamable_http":
		return TransportHTTP
	case "stdio":
		return TransportStdio
	}
	if c.URL != "" {
		return TransportHTTP
	}
	return TransportStdio
}

// CallTimeout is how long a call may go without an answer or progress.
func (c Config) CallTimeout() time.Duration {
	if c.Timeout <= 0 {
		return DefaultTimeout
	}
	return time.Duration(c.Timeout * float64(time.Second))
}

// ToolEnabled reports whether the person left the server's tool on.
func (c Config) ToolEnabled(tool string) bool { return !slices.Contains(c.DisabledTools, tool) }

// Target is how a person recognises the server: its command line, or its URL without the
// query (which may hold a key). Environment values are never shown.
func (c Config) Target() string {
	if c.Transport() == TransportStdio {
		return strings.Join(append([]string{c.Command}, c.Args...), " ")
	}
	u, err := url.Parse(c.URL)
	if err != nil {
		return c.URL
	}
	u.RawQuery, u.User, u.Fragment = "", nil, ""
	return u.String()
}

// ParseServers reads an mcpServers object. A broken entry does not spoil the others: it comes
// back with Err set. The error is for a value that is not an object at all. Servers are sorted
// by name.
func ParseServers(raw json.RawMessage, source Source) ([]Config, error) {
	entries, err := entriesOf(raw)
	if err != nil {
		return nil, err
	}
	out := make([]Config, 0, len(entries))
	for name, entry := range entries {
		c, err := parseEntry(name, entry)
		c.Name, c.Source, c.Err = name, source, err
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Config) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// entriesOf splits an mcpServers object into its entries; null or nothing is no servers.
func entriesOf(raw json.RawMessage) (map[string]json.RawMessage, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return map[string]json.RawMessage{}, nil
	}
	var entries map[string]json.RawMessage
	if trimmed[0] != '{' || json.Unmarshal(trimmed, &entries) != nil {
		return nil, errors.New(`"mcpServers" must be an object of servers by name, like {"files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/path"]}}`)
	}
	return entries, nil
}

func parseEntry(name string, raw json.RawMessage) (Config, error) {
	var c Config
	if strings.TrimSpace(name) == "" {
		return c, errors.New("the server has no name")
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return c, fmt.Errorf("%q must be %s", typeErr.Field, jsonKind(typeErr.Type.Kind().String()))
		}
		return c, fmt.Errorf("the entry must be an object with \"command\" or \"url\" (%v)", err)
	}
	return c, c.validate()
}

func jsonKind(goKind string) string {
	switch goKind {
	case "slice":
		return "a list of strings"
	case "map":
		return "an object of strings"
	case "bool":
		return "true or false"
	case "float64":
		return "a number"
	}
	return "a string"
}

func (c Config) validate() error {
	command, address := strings.TrimSpace(c.Command) != "", strings.TrimSpace(c.URL) != ""
	switch {
	case command && address:
		return errors.New(`give either "command" (a program Gantry starts) or "url" (a server already running), not both`)
	case !command && !address:
		return errors.New(`give "command" (a program Gantry starts) or "url" (a server already running)`)
	}
	switch strings.ToLower(strings.TrimSpace(c.Type)) {
	case "", "stdio", "http", "streamable-http", "streamablehttp", "streamable_http", "sse":
	default:
		return fmt.Errorf(`"type" %q must be stdio, http or sse`, c.Type)
	}
	if command && c.Transport() != TransportStdio {
		return fmt.Errorf(`"type" %q needs a "url", not a "command"`, c.Type)
	}
	if address {
		if c.Transport() == TransportStdio {
			return errors.New(`"type" stdio needs a "command", not a "url"`)
		}
		u, err := url.Parse(expandVars(c.URL, "", nil))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf(`"url" %q must be an http:// or https:// address`, c.URL)
		}
	}
	if c.Timeout < 0 || c.Timeout > maxTimeout {
		return fmt.Errorf(`"timeout" must be between 1 and %d seconds`, maxTimeout)
	}
	return nil
}

// ParsePaste reads servers a person pasted into Settings, in any of the shapes READMEs show:
// {"mcpServers": {…}}, VS Code's {"servers": {…}}, the entries themselves {"name": {…}}, or one
// entry without its braces ("name": {…}). Each must be usable.
func ParsePaste(text string) (map[string]json.RawMessage, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, errors.New("paste a server's JSON, like {\"files\": {\"command\": \"npx\", \"args\": [\"-y\", \"@modelcontextprotocol/server-filesystem\", \"/path\"]}}")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &top); err != nil {
		if json.Unmarshal([]byte("{"+strings.TrimSuffix(text, ",")+"}"), &top) != nil {
			return nil, fmt.Errorf("this is not valid JSON: %v", err)
		}
	}
	for _, key := range []string{"mcpServers", "servers"} {
		if inner, ok := top[key]; ok && len(top) == 1 {
			entries, err := entriesOf(inner)
			if err != nil {
				return nil, err
			}
			top = entries
		}
	}
	if _, ok := top["command"]; ok {
		return nil, errors.New(`give the server a name: {"myserver": {"command": …}}`)
	}
	if _, ok := top["url"]; ok {
		return nil, errors.New(`give the server a name: {"myserver": {"url": …}}`)
	}
	if len(top) == 0 {
		return nil, errors.New("there is no server in it")
	}
	for name, entry := range top {
		if _, err := parseEntry(name, entry); err != nil {
			return nil, fmt.Errorf("server %q: %w", name, err)
		}
	}
	return top, nil
}

// SetEntry returns the mcpServers object raw with name's entry replaced by entry, or removed
// when entry is nil.
func SetEntry(raw json.RawMessage, name string, entry json.RawMessage) (json.RawMessage, error) {
	entries, err := entriesOf(raw)
	if err != nil {
		return nil, err
	}
	if entry == nil {
		delete(entries, name)
	} else {
		entries[name] = entry
	}
	if len(entries) == 0 {
		return nil, nil
	}
	return json.Marshal(entries)
}

// EditEntry changes one field-set of name's entry through edit, keeping every other field as
// the person wrote it (fields Gantry does not know included).
func EditEntry(raw json.RawMessage, name string, edit func(fields map[string]any)) (json.RawMessage, error) {
	entries, err := entriesOf(raw)
	if err != nil {
		return nil, err
	}
	entry, ok := entries[name]
	if !ok {
		return nil, fmt.Errorf("there is no MCP server named %q", name)
	}
	var fields map[string]any
	if err := json.Unmarshal(entry, &fields); err != nil {
		return nil, fmt.Errorf("server %q cannot be changed: its entry is not an object", name)
	}
	edit(fields)
	changed, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	return SetEntry(raw, name, changed)
}

// SetToolEnabled is the edit that turns one of a server's tools on or off.
func SetToolEnabled(tool string, on bool) func(map[string]any) {
	return func(fields map[string]any) {
		var off []string
		if list, ok := fields["disabledTools"].([]any); ok {
			for _, v := range list {
				if s, ok := v.(string); ok && s != tool {
					off = append(off, s)
				}
			}
		}
		if !on {
			off = append(off, tool)
		}
		slices.Sort(off)
		if len(off) == 0 {
			delete(fields, "disabledTools")
			return
		}
		fields["disabledTools"] = off
	}
}

// SetServerEnabled is the edit that turns a server on or off.
func SetServerEnabled(on bool) func(map[string]any) {
	return func(fields map[string]any) {
		if on {
			delete(fields, "disabled")
		} else {
			fields["disabled"] = true
		}
	}
}

// readProjectFile reads root's ProjectFile: its mcpServers, or nil when there is no file.
func readProjectFile(root string) (json.RawMessage, error) {
	data, err := os.ReadFile(filepath.Join(root, ProjectFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s cannot be read: %w", ProjectFile, err)
	}
	var f struct {
		MCPServers json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON: %v", ProjectFile, err)
	}
	if f.MCPServers == nil {
		return nil, fmt.Errorf(`%s has no "mcpServers" object`, ProjectFile)
	}
	return f.MCPServers, nil
}

var varRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// workspaceVar is the variable that names the open project, as VS Code spells it.
const workspaceVar = "workspaceFolder"

// expandVars replaces ${NAME} with the environment's value and ${workspaceFolder} with root,
// adding the names that are not set to missing. $NAME without braces stays as written: it may
// be meant literally.
func expandVars(s, root string, missing *[]string) string {
	return varRef.ReplaceAllStringFunc(s, func(ref string) string {
		name := ref[2 : len(ref)-1]
		if name == workspaceVar {
			return root
		}
		v, ok := os.LookupEnv(name)
		if !ok && missing != nil && !slices.Contains(*missing, name) {
			*missing = append(*missing, name)
		}
		return v
	})
}

// expanded is c with its variables replaced, ready to start, or an error naming the variables
// that are not set.
func (c Config) expanded(root string) (Config, error) {
	var missing []string
	x := func(s string) string { return expandVars(s, root, &missing) }
	out := c
	out.Command, out.Cwd, out.URL = x(c.Command), x(c.Cwd), x(c.URL)
	out.Args = make([]string, len(c.Args))
	for i, a := range c.Args {
		out.Args[i] = x(a)
	}
	out.Env, out.Headers = map[string]string{}, map[string]string{}
	for k, v := range c.Env {
		out.Env[k] = x(v)
	}
	for k, v := range c.Headers {
		out.Headers[k] = x(v)
	}
	if len(missing) > 0 {
		return out, fmt.Errorf("it uses ${%s}, which is not set in Gantry's environment", strings.Join(missing, "}, ${"))
	}
	return out, nil
}

// same reports whether two entries start the same server.
func (c Config) same(o Config) bool {
	a, _ := json.Marshal(c)
	b, _ := json.Marshal(o)
	return c.Name == o.Name && c.Source == o.Source && bytes.Equal(a, b) && errText(c.Err) == errText(o.Err)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// EditProjectFile changes the mcpServers of root's ProjectFile through edit (Settings' switches
// for a trusted project's servers), keeping the rest of the file.
func EditProjectFile(root string, edit func(json.RawMessage) (json.RawMessage, error)) error {
	path := filepath.Join(root, ProjectFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s cannot be read: %w", ProjectFile, err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return fmt.Errorf("%s is not valid JSON: %v", ProjectFile, err)
	}
	servers, err := edit(top["mcpServers"])
	if err != nil {
		return err
	}
	top["mcpServers"] = servers
	if servers == nil {
		top["mcpServers"] = json.RawMessage("{}")
	}
	out, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFile(path, append(out, '\n'))
}
