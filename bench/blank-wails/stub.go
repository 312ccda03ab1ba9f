//go:build !desktop

package main

import (
	"errors"
	"io/fs"
)

// Without the desktop tag there is no window to open; go vet and go test still build this.
func run(fs.FS) error {
	return errors.New("build with -tags desktop,production,webkit2_41")
}
