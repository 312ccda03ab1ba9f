//go:build unix

// The test stops the command with SIGTERM, which Windows cannot send.

package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCommandServesUntilSIGTERM(t *testing.T) {
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not on PATH")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "fake-ollama")
	out, err := exec.CommandContext(t.Context(), goTool, "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, string(out))

	script := filepath.Join(dir, "script.json")
	require.NoError(t, os.WriteFile(script, []byte(`{"version": "9.9.9"}`), 0o600))

	cmd := exec.CommandContext(t.Context(), bin, "--listen", "127.0.0.1:0", "--script", script)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())

	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Regexp(t, `^listening on http://127\.0\.0\.1:\d+\n$`, line)
	base := strings.TrimSpace(strings.TrimPrefix(line, "listening on "))

	resp, err := http.Get(base + "/api/version")
	require.NoError(t, err)
	var v struct{ Version string }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&v))
	require.NoError(t, resp.Body.Close())
	require.Equal(t, "9.9.9", v.Version)

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, cmd.Wait(), "a SIGTERM is a clean exit")
}
