//go:build !desktop

package main

import (
	"errors"
	"io/fs"

	"gantry/app"
)

// Builds without the desktop tag (browser mode, tests, no GTK) have no window to open.
func runDesktop(fs.FS, app.Options) error {
	return errors.New("this build has no desktop window (built without -tags desktop); use `gantry serve`, or build with `make build`")
}
