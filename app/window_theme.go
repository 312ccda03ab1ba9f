package app

import (
	"context"

	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"gantry/internal/config"
)

// WindowColour is the window's background before the page paints: app.css's --bg for the theme,
// so the first frames match the page instead of flashing another colour.
func WindowColour(dark bool) (r, g, b uint8) {
	if dark {
		return 0x18, 0x18, 0x1b
	}
	return 0xff, 0xff, 0xff
}

// StartsDark says whether the window opens dark: the theme pinned in Settings → Appearance, else
// the desktop's preference, which is asked only then (systemDark may be slow to answer).
func (a *App) StartsDark(systemDark func() bool) bool {
	switch pinnedTheme(a.settings.Get().Theme) {
	case "dark":
		return true
	case "light":
		return false
	}
	dark := systemDark()
	a.systemTheme.Store(map[bool]string{true: config.ThemeDark, false: config.ThemeLight}[dark])
	return dark
}

// SystemPrefersDark guesses, before GTK starts, whether WebKitGTK will report
// prefers-color-scheme: dark, from the places it and GTK read: $GTK_THEME ("Adwaita:dark"), the
// GNOME settings (color-scheme, and gtk-theme, which GNOME hands to GTK 3 apps) and GTK's
// settings.ini. Unknown means light. It takes a few milliseconds (two short gsettings runs, only
// when gsettings exists), so callers run it while other start-up work goes on.
func SystemPrefersDark(ctx context.Context) bool {
	return systemPrefersDark(os.Getenv, gsettings(ctx), gtkSettingsINI())
}

func systemPrefersDark(getenv func(string) string, gnome func(key string) string, ini string) bool {
	// GTK_THEME overrides every setting in GTK, so it decides alone.
	if theme := getenv("GTK_THEME"); theme != "" {
		return darkThemeName(theme)
	}
	if gnome != nil {
		if strings.Contains(gnome("color-scheme"), "prefer-dark") || darkThemeName(gnome("gtk-theme")) {
			return true
		}
	}
	for line := range strings.Lines(ini) {
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		value = strings.Trim(strings.TrimSpace(value), `"`)
		switch strings.TrimSpace(key) {
		case "gtk-application-prefer-dark-theme":
			if value == "1" || strings.EqualFold(value, "true") {
				return true
			}
		case "gtk-theme-name":
			if darkThemeName(value) {
				return true
			}
		}
	}
	return false
}

// darkThemeName: "Adwaita:dark", "Adwaita-dark", "'Yaru-dark'", "Breeze-Dark".
func darkThemeName(name string) bool {
	name = strings.ToLower(strings.Trim(strings.TrimSpace(name), `'"`))
	return strings.HasSuffix(name, ":dark") || strings.HasSuffix(name, "-dark")
}

// gsettings returns a reader of org.gnome.desktop.interface keys, or nil without gsettings.
func gsettings(ctx context.Context) func(key string) string {
	bin, err := exec.LookPath("gsettings")
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 150*time.Millisecond)
	// Both keys at once: each run is a process start.
	keys := []string{"color-scheme", "gtk-theme"}
	answers := make([]chan string, len(keys))
	for i, key := range keys {
		answers[i] = make(chan string, 1)
		go func() {
			out, _ := exec.CommandContext(ctx, bin, "get", "org.gnome.desktop.interface", key).Output()
			answers[i] <- string(out)
		}()
	}
	values := map[string]string{}
	for i, key := range keys {
		values[key] = <-answers[i]
	}
	cancel()
	return func(key string) string { return values[key] }
}

// gtkSettingsINI is GTK 3's per-user settings file, or "".
func gtkSettingsINI() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(dir, "gtk-3.0", "settings.ini"))
	if err != nil {
		return ""
	}
	return string(b)
}
