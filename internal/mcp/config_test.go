package mcp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestToolNamesAreWhatEveryModelAccepts(t *testing.T) {
	t.Parallel()
	require.Equal(t, "mcp__github__create_issue", ToolName("github", "create_issue"))
	require.Equal(t, "mcp__my_db__run_query", ToolName("my-db", "run.query"))
	require.Equal(t, "mcp__x__x", ToolName("ü", "—"))
	require.Equal(t, "mcp__a_b__c", ToolName("a__b", "c"), "a part never holds the separator")
	long := ToolName("server", strings.Repeat("very_long_tool_name_", 5))
	require.Len(t, long, maxNameLen)
	require.NotEqual(t, long, ToolName("server", strings.Repeat("very_long_tool_name_", 5)+"2"))
	require.Regexp(t, `^[A-Za-z0-9_]+$`, long)
}

func TestServersAreReadEntryByEntry(t *testing.T) {
	t.Parallel()
	cfgs, err := ParseServers(json.RawMessage(`{
		"files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], "autoApprove": ["x"]},
		"remote": {"url": "https://mcp.example.com/mcp?key=secret", "headers": {"Authorization": "Bearer x"}},
		"legacy": {"type": "sse", "url": "http://localhost:9/sse"},
		"bad": {"command": ["npx"]},
		"neither": {},
		"wrongtype": {"type": "websocket", "url": "ws://x"},
		"slow": {"command": "x", "timeout": 99999}}`), SourceSettings)
	require.NoError(t, err)
	byName := map[string]Config{}
	for _, c := range cfgs {
		byName[c.Name] = c
	}
	require.NoError(t, byName["files"].Err, "fields other clients add are ignored")
	require.Equal(t, TransportStdio, byName["files"].Transport())
	require.Equal(t, "https://mcp.example.com/mcp", byName["remote"].Target(), "a key in the query is not shown")
	require.Equal(t, TransportHTTP, byName["remote"].Transport())
	require.Equal(t, TransportSSE, byName["legacy"].Transport())
	require.EqualError(t, byName["bad"].Err, `"command" must be a string`)
	require.ErrorContains(t, byName["neither"].Err, `give "command"`)
	require.ErrorContains(t, byName["wrongtype"].Err, "must be stdio, http or sse")
	require.ErrorContains(t, byName["slow"].Err, "timeout")

	_, err = ParseServers(json.RawMessage(`["files"]`), SourceSettings)
	require.ErrorContains(t, err, `"mcpServers" must be an object`)
	none, err := ParseServers(nil, SourceSettings)
	require.NoError(t, err)
	require.Empty(t, none)
}

func TestPastedServersInEveryShapeREADMEsShow(t *testing.T) {
	t.Parallel()
	entry := `{"command": "npx", "args": ["-y", "x"]}`
	for _, text := range []string{
		`{"mcpServers": {"x": ` + entry + `}}`,
		`{"servers": {"x": ` + entry + `}}`,
		`{"x": ` + entry + `}`,
		`"x": ` + entry,
		`"x": ` + entry + `,`,
	} {
		got, err := ParsePaste(text)
		require.NoError(t, err, text)
		require.Len(t, got, 1)
		require.Contains(t, got, "x")
	}
	_, err := ParsePaste(entry)
	require.ErrorContains(t, err, "give the server a name")
	_, err = ParsePaste(`{"x": {"url": "ftp://a"}}`)
	require.ErrorContains(t, err, `server "x": "url"`)
	_, err = ParsePaste(`not json`)
	require.ErrorContains(t, err, "not valid JSON")
	_, err = ParsePaste(``)
	require.ErrorContains(t, err, "paste a server's JSON")
}

func TestSwitchesEditAnEntryKeepingWhatThePersonWrote(t *testing.T) {
	t.Parallel()
	raw := json.RawMessage(`{"x": {"command": "npx", "autoApprove": ["a"]}}`)
	raw, err := EditEntry(raw, "x", SetToolEnabled("write", false))
	require.NoError(t, err)
	raw, err = EditEntry(raw, "x", SetServerEnabled(false))
	require.NoError(t, err)
	require.JSONEq(t, `{"x": {"command": "npx", "autoApprove": ["a"], "disabledTools": ["write"], "disabled": true}}`, string(raw))
	raw, err = EditEntry(raw, "x", SetToolEnabled("write", true))
	require.NoError(t, err)
	raw, err = EditEntry(raw, "x", SetServerEnabled(true))
	require.NoError(t, err)
	require.JSONEq(t, `{"x": {"command": "npx", "autoApprove": ["a"]}}`, string(raw))
	_, err = EditEntry(raw, "y", SetServerEnabled(true))
	require.ErrorContains(t, err, `no MCP server named "y"`)
}

func TestVariablesAreExpandedAndMissingOnesNamed(t *testing.T) {
	t.Setenv("GANTRY_TEST_TOKEN", "abc")
	c := Config{Command: "srv", Args: []string{"${workspaceFolder}/data", "$HOME"}, Headers: map[string]string{"A": "Bearer ${GANTRY_TEST_TOKEN}"}}
	x, err := c.expanded("/proj")
	require.NoError(t, err)
	require.Equal(t, []string{"/proj/data", "$HOME"}, x.Args)
	require.Equal(t, "Bearer abc", x.Headers["A"])
	_, err = Config{Command: "srv", Env: map[string]string{"K": "${GANTRY_TEST_UNSET_VAR}"}}.expanded("/proj")
	require.EqualError(t, err, "it uses ${GANTRY_TEST_UNSET_VAR}, which is not set in Gantry's environment")
}

func TestTheFailureLogKeepsTheNewest(t *testing.T) {
	t.Parallel()
	l := OpenFailureLog(filepath.Join(t.TempDir(), "mcp-failures.jsonl"))
	for i := range 2*failuresKept + 5 {
		require.NoError(t, l.Add(Failure{Server: "s", Tool: fmt.Sprint(i), Kind: FailureTool}))
	}
	all, err := l.List()
	require.NoError(t, err)
	require.Len(t, all, failuresKept)
	require.Equal(t, fmt.Sprint(2*failuresKept+4), all[0].Tool, "newest first")
	data, err := os.ReadFile(l.path)
	require.NoError(t, err)
	require.Less(t, strings.Count(string(data), "\n"), 2*failuresKept, "the file was trimmed")

	// A torn line costs that line only.
	f, err := os.OpenFile(l.path, os.O_APPEND|os.O_WRONLY, 0o600)
	require.NoError(t, err)
	_, err = f.WriteString(`{"server": "s", "to`)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	all, err = l.List()
	require.NoError(t, err)
	require.Len(t, all, failuresKept)
	// …and not the entry written after it either.
	require.NoError(t, l.Add(Failure{Server: "s", Tool: "after the tear", Kind: FailureTool}))
	all, err = l.List()
	require.NoError(t, err)
	require.Equal(t, "after the tear", all[0].Tool)

	require.NoError(t, l.Clear())
	all, err = l.List()
	require.NoError(t, err)
	require.Empty(t, all)
}
