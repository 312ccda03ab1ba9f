package mcptest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	built     string
	buildErr  error
)

// Build compiles cmd/mcp-test-server once per test process and returns the program, for tests
// that run the server as a real process over stdio.
func Build(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcp-test-server")
		if err != nil {
			buildErr = err
			return
		}
		built = filepath.Join(dir, "mcp-test-server")
		out, err := exec.Command("go", "build", "-o", built, "gantry/internal/mcp/mcptest/cmd/mcp-test-server").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("building the test MCP server: %v: %s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}
