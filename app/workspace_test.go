package app

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReadFileForTheViewer(t *testing.T) {
	t.Parallel()
	ts := startServer(t, "127.0.0.1:1")
	proj := filepath.Join(t.TempDir(), "proj")
	outside := filepath.Join(t.TempDir(), "secret.txt")
	require.NoError(t, os.MkdirAll(filepath.Join(proj, "src"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(proj, "src", "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(proj, "logo.png"), []byte("\x89PNG\r\n\x1a\n\x00\x00\x00"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(proj, "latin1.txt"), []byte("caf\xe9\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(proj, "big.txt"), []byte(strings.Repeat("x", viewerMaxBytes+1)), 0o644))
	require.NoError(t, os.WriteFile(outside, []byte("keep out"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(proj, "link.txt")))

	status, body := ts.call(t, "WorkspaceService/ReadFile", "src/main.go")
	require.Equal(t, http.StatusInternalServerError, status, "no project open yet")
	require.Contains(t, string(body), "no project is open")

	status, body = ts.call(t, "WorkspaceService/Open", proj)
	require.Equal(t, http.StatusOK, status, string(body))

	read := func(rel string) (FileContent, string) {
		status, body := ts.call(t, "WorkspaceService/ReadFile", rel)
		if status != http.StatusOK {
			return FileContent{}, string(body)
		}
		var fc FileContent
		require.NoError(t, json.Unmarshal(body, &fc))
		return fc, ""
	}

	fc, errText := read("src/main.go")
	require.Empty(t, errText)
	require.Equal(t, FileContent{Path: "src/main.go", Text: "package main\n\nfunc main() {}\n", Size: 29}, fc)

	fc, errText = read(filepath.Join(proj, "src", "main.go"))
	require.Empty(t, errText, "an absolute path inside the project is fine")
	require.Equal(t, "src/main.go", fc.Path)

	for _, bin := range []string{"logo.png", "latin1.txt"} {
		fc, errText = read(bin)
		require.Empty(t, errText)
		require.True(t, fc.Binary, bin)
		require.Empty(t, fc.Text, bin)
	}

	for rel, want := range map[string]string{
		"../secret.txt": "outside",
		outside:         "outside",
		"link.txt":      "outside",
		"big.txt":       "the viewer shows files up to 2 MB",
		"src":           "is a folder",
		"missing.go":    "does not exist",
	} {
		_, errText = read(rel)
		require.Contains(t, errText, want, rel)
	}
}
