package app

import (
	"bytes"
	"io/fs"
	"net/http"
	"strings"

	"gantry/internal/config"
)

// StartPage serves index.html with what the page's first frame needs to know: the theme
// (data-theme, as frontend/src/stores/settings.svelte.ts sets it later: the one pinned in Settings
// → Appearance, or the desktop's when the window asked for it; a browser's first frame follows
// its own OS through light-dark() until the page sets it),
// whether a project is open (data-project), and in the desktop window the installed fonts its
// font stacks come to (window_font.go). With those the page paints the right screen in the
// right colours at once, instead of a blank frame, or the OS theme, until its first calls answer.
// Every other request goes to next.
func (a *App) StartPage(assets fs.FS) func(next http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || (r.URL.Path != "/" && r.URL.Path != "/index.html") {
				next.ServeHTTP(w, r)
				return
			}
			page, err := fs.ReadFile(assets, "index.html")
			if err != nil {
				next.ServeHTTP(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store") // it changes with the settings
			_, _ = w.Write(a.startPage(page))
		})
	}
}

func (a *App) startPage(page []byte) []byte {
	attrs := ` data-project="none"`
	if a.Workspace.Current() != nil {
		attrs = ` data-project="open"`
	}
	theme := pinnedTheme(a.settings.Get().Theme)
	if theme == "" {
		theme, _ = a.systemTheme.Load().(string)
	}
	if theme != "" {
		attrs += ` data-theme="` + theme + `"`
	}
	if a.windowFonts != nil {
		attrs += a.windowFonts().style()
	}
	return bytes.Replace(page, []byte("<html"), []byte("<html"+attrs), 1)
}

// pinnedTheme is "light" or "dark" when the setting pins one, else "" (follow the OS).
func pinnedTheme(setting string) string {
	switch t := strings.ToLower(strings.TrimSpace(setting)); t {
	case config.ThemeLight, config.ThemeDark:
		return t
	}
	return ""
}
