package app

import (
	"strings"
	"time"
)

// The font stacks of frontend/src/app.css (--font-ui and --font-mono); a test keeps them equal.
var (
	uiFontStack   = []string{"system-ui", "-apple-system", "Segoe UI", "Cantarell", "Ubuntu", "sans-serif"}
	monoFontStack = []string{"ui-monospace", "SF Mono", "Cascadia Mono", "JetBrains Mono", "Menlo", "Consolas",
		"DejaVu Sans Mono", "Liberation Mono", "monospace"}
)

// ResolvedFonts are the installed fonts the two stacks come to in the desktop window, "" when
// that is not known for certain.
//
// WebKitGTK looks every name of a stack up again for each size and weight the page uses, and a
// name that is not installed costs it a full fontconfig substitution and an alias check (most of
// the names in both stacks are for other systems). The start page names the font the stack
// comes to first, so each lookup succeeds at once: the same font, found in a fraction of the
// time, before the first frame can paint.
type ResolvedFonts struct{ UI, Mono string }

// fontWait bounds how long the start page waits for the fonts (they are usually found long
// before the page asks); without them it is served as it was, only slower to lay out.
const fontWait = 200 * time.Millisecond

// ResolveWindowFonts starts finding the fonts in the background (at start-up, while the window is
// built) and returns a function that waits for them, at most fontWait per call.
func ResolveWindowFonts() func() ResolvedFonts {
	done := make(chan struct{})
	var fonts ResolvedFonts
	go func() {
		fonts = ResolvedFonts{UI: resolveFontStack(uiFontStack), Mono: resolveFontStack(monoFontStack)}
		close(done)
	}()
	return func() ResolvedFonts {
		select {
		case <-done:
			return fonts
		case <-time.After(fontWait):
			return ResolvedFonts{}
		}
	}
}

// SetWindowFonts gives the start page the desktop window's fonts (ResolveWindowFonts).
func (a *App) SetWindowFonts(fonts func() ResolvedFonts) { a.windowFonts = fonts }

// style is the <html> style attribute that puts the resolved fonts first (app.css reads
// --font-ui-resolved and --font-mono-resolved), or "" when none is known.
func (f ResolvedFonts) style() string {
	var decls []string
	for _, d := range []struct{ name, family string }{{"--font-ui-resolved", f.UI}, {"--font-mono-resolved", f.Mono}} {
		if cssFamilyName(d.family) {
			// The comma ends the name inside the stack: app.css writes var(--font-ui-resolved,) system-ui, ….
			decls = append(decls, d.name+":'"+d.family+"',")
		}
	}
	if len(decls) == 0 {
		return ""
	}
	return ` style="` + strings.Join(decls, ";") + `"`
}

// cssFamilyName: a font family that can go into a quoted CSS string inside an HTML attribute as it
// is (fontconfig names are plain words, but nothing else is worth the risk).
func cssFamilyName(s string) bool {
	if s == "" || len(s) > 100 {
		return false
	}
	for _, r := range s {
		if !(r == ' ' || r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z') {
			return false
		}
	}
	return true
}
