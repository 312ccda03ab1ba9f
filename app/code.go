package app

import (
	"os"
	"path/filepath"

	"gantry/internal/lsp"
)

// LanguageServerPayload is the languageServers event: a server started ("running") or stopped
// ("idle").
type LanguageServerPayload struct {
	ID    string `json:"id"`
	State string `json:"state"`
}

// codeServers keeps the language servers of each workspace the app has open: one lsp.Manager
// per folder, made on first use, closed when the folder closes or the app quits (SPEC §6).
type codeServers struct {
	perProject[*lsp.Manager]
	toolsDir string // Gantry's own tools folder (<data dir>/tools)
}

func newCodeServers(dataDir string, overrides func() map[string]string, changed func(id, state string)) *codeServers {
	c := &codeServers{toolsDir: filepath.Join(dataDir, "tools")}
	c.perProject = newPerProject(func(root string) *lsp.Manager {
		return lsp.NewManager(lsp.Options{Root: root, ToolsDirs: ToolsDirs(dataDir), Overrides: overrides(), Changed: changed})
	})
	return c
}

// ToolsDirs are where Gantry looks for servers after PATH: its own tools folder, and
// $GANTRY_TOOLS_DIR (where `make test` installs the ones its tests use).
func ToolsDirs(dataDir string) []string {
	dirs := []string{filepath.Join(dataDir, "tools")}
	if d := os.Getenv("GANTRY_TOOLS_DIR"); d != "" {
		dirs = append(dirs, d)
	}
	return dirs
}
