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
	opts.Mode = app.ModeDesktop
	a, err := app.New(context.Background(), opts)
	if err != nil {
		return err
	}
	return wails.Run(&options.App{
		Title:            "Gantry",
		Width:            1280,
		Height:           820,
		MinWidth:         860,
		MinHeight:        540,
		AssetServer:      &assetserver.Options{Assets: assets},
		BackgroundColour: options.NewRGB(30, 31, 34),
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
