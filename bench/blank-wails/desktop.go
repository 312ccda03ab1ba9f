//go:build desktop

package main

import (
	"io/fs"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

// run opens the window with Gantry's size and background colour (desktop.go at the repo root).
func run(assets fs.FS) error {
	return wails.Run(&options.App{
		Title:            "Blank",
		Width:            1280,
		Height:           820,
		AssetServer:      &assetserver.Options{Assets: assets},
		BackgroundColour: options.NewRGB(30, 31, 34),
		Linux:            &linux.Options{ProgramName: "blank-wails"},
	})
}
