package app

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestWorkspaceChangesArriveOverSSE(t *testing.T) {
	t.Parallel()
	ts := startServer(t, "127.0.0.1:1")
	proj := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(proj, ".gitignore"), []byte("*.log\n"), 0o644))
	evs := openEvents(t, ts)

	status, body := ts.call(t, "WorkspaceService/Open", proj)
	require.Equal(t, http.StatusOK, status, string(body))
	require.Eventually(t, ts.app.Workspace.watching, 5*time.Second, 10*time.Millisecond)

	require.NoError(t, os.WriteFile(filepath.Join(proj, "skipped.log"), []byte("x"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(proj, "src", "pkg"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(proj, "src", "pkg", "main.go"), []byte("package main"), 0o644))

	seen := map[string]bool{}
	for !seen["src/pkg/main.go"] {
		ev := next(t, evs, "workspaceChanged")
		require.Empty(t, ev["sessionId"], "an app-wide event")
		p := ev["payload"].(map[string]any)
		require.Equal(t, proj, p["root"])
		require.Equal(t, false, p["more"])
		for _, x := range p["paths"].([]any) {
			seen[x.(string)] = true
		}
		require.NotNil(t, p["dirs"])
	}
	require.False(t, seen["skipped.log"], "ignored files are not reported")

	ts.call(t, "WorkspaceService/Close")
	require.False(t, ts.app.Workspace.watching())
}

func TestCapListMarksMore(t *testing.T) {
	t.Parallel()
	long := make([]string, maxChangedEntries+5)
	got, more := capList(long, false)
	require.Len(t, got, maxChangedEntries)
	require.True(t, more)
	got, more = capList(nil, false)
	require.Equal(t, []string{}, got)
	require.False(t, more)
}
