//go:build desktop

package main

import (
	"context"
	"io/fs"
	"log/slog"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"

	"gantry/app"
)

func runDesktop(assets fs.FS, opts app.Options) error {
	app.TraceStartup("main")
	opts.Mode = app.ModeDesktop
	// The desktop's light or dark preference is asked while the database opens; it is needed
	// only when Settings → Appearance follows the system.
	systemDark := make(chan bool, 1)
	go func() { systemDark <- app.SystemPrefersDark(context.Background()) }()
	fonts := app.ResolveWindowFonts()
	a, err := app.New(context.Background(), opts)
	if err != nil {
		return err
	}
	a.SetWindowFonts(fonts)
	r, g, b := app.WindowColour(a.StartsDark(func() bool { return <-systemDark }))
	app.TraceStartup("wails.Run")
	return wails.Run(&options.App{
		Title:            "Gantry",
		Width:            1280,
		Height:           820,
		MinWidth:         860,
		MinHeight:        540,
		AssetServer:      &assetserver.Options{Assets: assets, Middleware: a.StartPage(assets)},
		BackgroundColour: options.NewRGB(r, g, b),
		OnStartup:        a.StartDesktop,
		OnDomReady:       a.DesktopDOMReady,
		OnShutdown: func(context.Context) {
			if err := a.Shutdown(); err != nil {
				slog.Error("shutting down", "err", err)
			}
		},
		Bind:        a.Bindings(),
		DragAndDrop: &options.DragAndDrop{EnableFileDrop: true},
		Linux:       &linux.Options{ProgramName: "gantry"},
	})
}
