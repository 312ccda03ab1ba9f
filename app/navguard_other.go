//go:build desktop && !linux

package app

// guardNavigation is Linux-only for now: the drop-navigation race it closes was seen in
// WebKitGTK, and Windows and macOS builds are not tested on this project's machines yet.
func guardNavigation() {}
