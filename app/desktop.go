//go:build desktop

package app

import (
	"context"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"gantry/internal/events"
)

// EventChannel is the single Wails event name all Gantry events are posted under, so the
// frontend receives them in emission order (mirrored in frontend/src/lib/bridge.ts).
const EventChannel = "gantry:event"

// wailsFrontend posts events to the window and shows native dialogs. ctx must be the one Wails
// passed to OnStartup: the runtime crashes on any other.
type wailsFrontend struct{ ctx context.Context }

func (f wailsFrontend) Post(ev events.Event) { runtime.EventsEmit(f.ctx, EventChannel, ev) }

func (f wailsFrontend) ChooseDirectory(_ context.Context, title string) (string, error) {
	return runtime.OpenDirectoryDialog(f.ctx, runtime.OpenDialogOptions{Title: title, CanCreateDirectories: true})
}

func (f wailsFrontend) SetTitle(title string) { runtime.WindowSetTitle(f.ctx, title) }

// StartDesktop is called from Wails' OnStartup with the window's context.
func (a *App) StartDesktop(wailsCtx context.Context) {
	TraceStartup("OnStartup")
	f := wailsFrontend{ctx: wailsCtx}
	a.Start(wailsCtx, f, f)
}

// DesktopDOMReady is called from Wails' OnDomReady, when the webview surely exists.
func (a *App) DesktopDOMReady(context.Context) {
	TraceStartup("DOM ready")
	guardNavigation()
}
