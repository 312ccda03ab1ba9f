package app

import (
	"os"
	"path/filepath"
	"sync"

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
	toolsDir  string                   // Gantry's own tools folder (<data dir>/tools)
	overrides func() map[string]string // the person's choices in Settings
	changed   func(id, state string)   // a server started or stopped

	mu       sync.Mutex
	managers map[string]*lsp.Manager
}

func newCodeServers(dataDir string, overrides func() map[string]string, changed func(id, state string)) *codeServers {
	return &codeServers{toolsDir: filepath.Join(dataDir, "tools"), overrides: overrides, changed: changed, managers: map[string]*lsp.Manager{}}
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

// For is root's manager.
func (c *codeServers) For(root string) *lsp.Manager {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m, ok := c.managers[root]; ok {
		return m
	}
	m := lsp.NewManager(lsp.Options{
		Root: root, ToolsDirs: ToolsDirs(filepath.Dir(c.toolsDir)), Overrides: c.overrides(), Changed: c.changed,
	})
	c.managers[root] = m
	return m
}

// Close stops root's servers.
func (c *codeServers) Close(root string) {
	c.mu.Lock()
	m := c.managers[root]
	delete(c.managers, root)
	c.mu.Unlock()
	if m != nil {
		m.Close()
	}
}

// CloseAll stops every server (the app quits, or the person chose other programs: they start
// again, the new way, on their next use).
func (c *codeServers) CloseAll() {
	c.mu.Lock()
	managers := c.managers
	c.managers = map[string]*lsp.Manager{}
	c.mu.Unlock()
	var wg sync.WaitGroup
	for _, m := range managers {
		wg.Go(m.Close)
	}
	wg.Wait()
}
