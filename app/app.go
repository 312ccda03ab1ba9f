// Package app is the only package the frontend talks to: it builds the bound services, attaches
// a frontend (the Wails window or the browser-mode server) to the one event emitter, and starts
// and stops background work. Everything below app/ is reachable without a window.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync/atomic"
	"time"

	"gantry/internal/approval"
	"gantry/internal/checkpoint"
	"gantry/internal/config"
	"gantry/internal/events"
	"gantry/internal/store"
	"gantry/internal/terminal"
	"gantry/internal/trust"
)

// Options say where Gantry keeps its files and how it is being shown.
type Options struct {
	DataDir      string // holds gantry.db
	SettingsPath string // settings.json
	Mode         Mode
	Version      string
}

// Mode is how the frontend is shown.
type Mode string

const (
	ModeDesktop Mode = "desktop"
	ModeBrowser Mode = "browser"
)

// Window is what only the desktop frontend has: native dialogs and a title bar.
type Window interface {
	ChooseDirectory(ctx context.Context, title string) (string, error)
	SetTitle(title string)
}

// App holds the services bound to the frontend.
type App struct {
	opts     Options
	db       *store.DB
	settings *config.Store
	emitter  *events.Emitter

	Workspace *WorkspaceService
	Ollama    *OllamaService
	Settings  *SettingsService
	Info      *AppService
	Chat      *ChatService
	Review    *ReviewService

	code *codeServers // the language servers of the open workspaces
	mcp  *mcpServers  // the MCP servers of the open workspaces

	// systemTheme is the desktop's scheme ("light" or "dark") once the window asked for it:
	// the start page marks the first frame with it when Appearance says "system".
	systemTheme atomic.Value
	// windowFonts waits for the desktop window's fonts (SetWindowFonts); nil in a browser.
	windowFonts func() ResolvedFonts

	cancel context.CancelFunc
	done   chan struct{}
}

// New opens the database and settings and builds the services. Settings problems never fail it;
// an unusable database does (there is nothing safe to show without it).
func New(ctx context.Context, opts Options) (*App, error) {
	TraceStartup("app.New")
	db, err := store.Open(ctx, opts.DataDir)
	if err != nil {
		return nil, err
	}
	TraceStartup("database open")
	settings := config.Open(opts.SettingsPath)
	if p := settings.Problem(); p != "" {
		slog.Warn("settings", "problem", p)
	}
	TraceStartup("settings read")
	emitter := events.NewEmitter(db)
	a := &App{opts: opts, db: db, settings: settings, emitter: emitter}
	// What the tool checks found is a fact about model versions, kept with the data.
	a.Ollama = newOllamaService(settings, emitter, openToolChecks(filepath.Join(opts.DataDir, "tool-checks.json")))
	a.Workspace = newWorkspaceService(db, emitter)
	// "Always allow" rules live next to settings.json: both are the person's choices.
	rules := approval.OpenFileRuleStore(RulesPath(opts.SettingsPath))
	if p := rules.Problem(); p != "" {
		slog.Warn("approval rules", "problem", p)
	}
	// So do the folders trusted to run their own code (kept outside any folder, which must not
	// be able to trust itself).
	folders := trust.Open(TrustedFoldersPath(opts.SettingsPath))
	if p := folders.Problem(); p != "" {
		slog.Warn("trusted folders", "problem", p)
	}
	a.code = newCodeServers(opts.DataDir, func() map[string]string { return settings.Get().LanguageServers },
		func(id, state string) {
			// A server's start or stop is news for Settings only; it must not hold the server.
			go func() {
				if _, err := emitter.Emit(context.Background(), events.Scope{}, events.LanguageServers, LanguageServerPayload{ID: id, State: state}); err != nil {
					slog.Warn("language server event", "err", err)
				}
			}()
		})
	a.mcp = newMCPServers(opts.DataDir, opts.Version, settings, folders, emitter)
	a.Workspace.closed = func(root string) {
		a.code.Close(root)
		a.mcp.Close(root)
	}
	a.Chat = newChatService(db, emitter, settings, a.Workspace, rules, folders)
	a.Chat.code, a.Chat.mcp = a.code, a.mcp
	a.Chat.runFailed = a.Ollama.wake
	a.Chat.textTools = a.Ollama.textTools
	a.Review = newReviewService(db)
	a.Settings = &SettingsService{store: settings, rules: rules, folders: folders, ollama: a.Ollama, chat: a.Chat, code: a.code, mcp: a.mcp, workspace: a.Workspace}
	a.Info = &AppService{opts: opts}
	TraceStartup("services built")
	return a, nil
}

// RulesPath is where the "always allow" rules live: next to settings.json.
func RulesPath(settingsPath string) string {
	return filepath.Join(filepath.Dir(settingsPath), "approval-rules.json")
}

// TrustedFoldersPath is where the trusted folders live: next to settings.json.
func TrustedFoldersPath(settingsPath string) string {
	return filepath.Join(filepath.Dir(settingsPath), "trusted-folders.json")
}

// Bindings are the objects whose exported methods the frontend may call, in both modes.
func (a *App) Bindings() []any {
	return []any{a.Workspace, a.Ollama, a.Settings, a.Info, a.Chat, a.Review}
}

// Start attaches the frontend and starts background work; it returns at once.
func (a *App) Start(ctx context.Context, poster events.Poster, window Window) {
	ctx, a.cancel = context.WithCancel(ctx)
	a.done = make(chan struct{})
	TraceStartup("frontend attached")
	a.emitter.Attach(poster)
	a.Workspace.start(ctx, window)
	a.Chat.start(ctx)
	a.Review.start(ctx)
	a.Ollama.start(ctx)
	go func() {
		defer close(a.done)
		// Pruning old app events (and projects' sandbox caches unused for a month) can take a
		// while and nothing on the first screen needs it, so it runs next to the Ollama
		// monitor instead of before the window.
		pruned := make(chan struct{})
		go func() {
			defer close(pruned)
			if err := a.db.PruneAppEvents(ctx, time.Now().Add(-appEventsKept)); err != nil && ctx.Err() == nil {
				slog.Warn("pruning app events", "err", err)
			}
			TraceStartup("app events pruned")
			if _, err := terminal.PruneSandboxCaches(time.Now().Add(-terminal.SandboxCacheKept)); err != nil {
				slog.Warn("pruning sandbox caches", "err", err)
			}
			// Prior versions of files kept for undo, of changes settled while the app was
			// down or cut short: see checkpoint.SweepStash.
			if err := checkpoint.SweepStash(ctx, a.db); err != nil && ctx.Err() == nil {
				slog.Warn("sweeping the checkpoint stash", "err", err)
			}
		}()
		a.Ollama.monitor(ctx)
		<-pruned
	}()
}

// appEventsKept is how long app-wide events (not a session's) stay in the database.
const appEventsKept = 7 * 24 * time.Hour

// Shutdown stops the agent's runs and background work, stores events still waiting in a batch,
// and closes the database.
func (a *App) Shutdown() error {
	a.Chat.shutdown()
	a.Workspace.stopWatching()
	a.code.CloseAll()
	a.mcp.CloseAll()
	if a.cancel != nil {
		a.cancel()
		<-a.done
		// Warm-ups end with the app's context; none outlives the app.
		a.Ollama.warming.Wait()
	}
	// A fresh context: the app's own is cancelled by now, and the last deltas must still land.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.emitter.Close(ctx); err != nil {
		slog.Warn("storing the last events", "err", err)
	}
	if err := a.db.Close(); err != nil {
		return fmt.Errorf("closing database: %w", err)
	}
	return nil
}

// AppInfo describes the running app (mirrored in frontend/src/lib/types.ts).
type AppInfo struct {
	Version string `json:"version"`
	Mode    Mode   `json:"mode"`
	DataDir string `json:"dataDir"`
}

// AppService tells the frontend about the running app.
type AppService struct{ opts Options }

// Info returns version, mode and where data lives.
func (s *AppService) Info() AppInfo {
	return AppInfo{Version: s.opts.Version, Mode: s.opts.Mode, DataDir: s.opts.DataDir}
}
