// Command blank-wails is the yardstick for `make bench`: a Wails v2 window showing a page with
// one line of text, built with the same tags and options as Gantry's window, so the bench can
// say how much of Gantry's start time and memory is Wails and WebKitGTK themselves.
// Build: go build -tags desktop,production,webkit2_41 ./bench/blank-wails
package main

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
)

//go:embed page
var page embed.FS

func main() {
	assets, err := fs.Sub(page, "page")
	if err == nil {
		err = run(assets)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "blank-wails:", err)
		os.Exit(1)
	}
}
