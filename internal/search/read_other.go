//go:build !unix

package search

import (
	"io"
	"os"
)

// readFile reads a regular file whole into *buf (grown as needed).
func readFile(name string, buf *[]byte) ([]byte, outcome) {
	f, err := os.Open(name)
	if err != nil {
		return nil, unreadable
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, unreadable
	}
	if fi.Size() > maxFileSize {
		return nil, skippedLarge
	}
	data := grow(buf, int(fi.Size()))
	// A file that shrank since Stat is searched as far as it goes.
	n, err := io.ReadFull(f, data)
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, unreadable
	}
	return data[:n], searched
}
