//go:build !(desktop && linux)

package app

// resolveFontStack: only WebKitGTK (the Linux window) pays for a stack's missing names; elsewhere
// the stacks stay as they are.
func resolveFontStack([]string) string { return "" }
