package mcp

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/approval"
	"gantry/internal/events"
	"gantry/internal/tools"
	"gantry/internal/trust"
)

// filesystemServer is @modelcontextprotocol/server-filesystem as scripts/install-deps.sh --test
// installs it ($GANTRY_TOOLS_DIR/mcp, else ~/.cache/gantry/tools/mcp). Without it the test is
// skipped, unless GANTRY_MCP_REQUIRED says the suite must have it (make test).
func filesystemServer(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("GANTRY_TOOLS_DIR")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "gantry", "tools")
	}
	bin := filepath.Join(dir, "mcp", "node_modules", ".bin", "mcp-server-filesystem")
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("GANTRY_MCP_REQUIRED") != "" {
			t.Fatalf("%s is not installed: run scripts/install-deps.sh --test", bin)
		}
		t.Skipf("%s is not installed (scripts/install-deps.sh --test installs it)", bin)
	}
	return bin
}

// cards answers approval cards: each card it sees is recorded and answered with the next
// decision.
type cards struct {
	m    *approval.Manager
	seen chan approval.Card
}

func newCards(t *testing.T, mode approval.Mode) (*cards, *approval.Gate) {
	c := &cards{seen: make(chan approval.Card, 8)}
	c.m = approval.NewManager(func(_ context.Context, _ events.Scope, typ events.Type, payload any) error {
		if typ == events.ApprovalRequested {
			c.seen <- payload.(approval.Card)
		}
		return nil
	}, &approval.MemoryRuleStore{}, trust.Trusting(), approval.Policy{Mode: mode})
	return c, c.m.Gate(approval.GateOptions{Workspace: t.TempDir()})
}

func TestTheNpmFilesystemServer(t *testing.T) {
	t.Parallel()
	bin := filesystemServer(t)
	shared := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(shared, "hello.txt"), []byte("hello from disk\n"), 0o644))
	png, err := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(shared, "dot.png"), png, 0o644))

	f := newFixture(t, nil)
	f.setServers(map[string]any{"files": map[string]any{"command": bin, "args": []string{shared}}})
	c, gate := newCards(t, approval.ModeDefault)
	reg := f.registry(gate)
	st := f.status("files")
	require.Equal(t, StateReady, st.State, st.Detail)
	names := map[string]bool{}
	for _, tl := range st.Tools {
		names[tl.ModelName] = tl.ReadOnly
	}
	require.Contains(t, names, "mcp__files__write_file")
	require.True(t, names["mcp__files__read_text_file"], "annotated read-only")

	// The first call's arguments do not fit: the model gets the parameters, then calls again.
	res := run(t, reg, "mcp__files__read_text_file", map[string]any{"location": "hello.txt"})
	require.Equal(t, tools.ErrInvalidArguments, res.ErrorKind, res.Content)
	require.Contains(t, res.Content, "- path: string")
	res = run(t, reg, "mcp__files__read_text_file", map[string]any{"path": filepath.Join(shared, "hello.txt")})
	require.False(t, res.Failed(), res.Content)
	require.Contains(t, res.Content, "hello from disk")

	res = run(t, reg, "mcp__files__read_media_file", map[string]any{"path": filepath.Join(shared, "dot.png")})
	require.False(t, res.Failed(), res.Content)
	require.Contains(t, res.Content, "[image: image/png, ")
	require.NotContains(t, res.Content, "iVBOR", "an image is summarised, never inlined")

	// Writing asks; the card names server, tool and arguments; "always" stops the asking.
	target := filepath.Join(shared, "note.txt")
	write := map[string]any{"path": target, "content": "written through MCP"}
	done := make(chan tools.Result)
	go func() { done <- run(t, reg, "mcp__files__write_file", write) }()
	card := <-c.seen
	require.Equal(t, "files", card.Server)
	require.Equal(t, "write_file", card.Tool)
	require.Contains(t, card.Arguments, "written through MCP")
	require.NoError(t, c.m.Respond(card.ID, approval.Decision{Allowed: true, Always: true, RuleScope: approval.ScopeUser}))
	require.False(t, (<-done).Failed())
	data, err := os.ReadFile(target)
	require.NoError(t, err)
	require.Equal(t, "written through MCP", string(data))
	write["content"] = "again, unasked"
	res = run(t, reg, "mcp__files__write_file", write)
	require.False(t, res.Failed(), res.Content)
	require.Empty(t, c.seen)

	// Outside the folders it was given, the server refuses: a tool error the model reads.
	res = run(t, reg, "mcp__files__read_text_file", map[string]any{"path": "/etc/hostname"})
	require.Equal(t, tools.ErrFailed, res.ErrorKind)
	require.Contains(t, res.Content, "Access denied")
}
