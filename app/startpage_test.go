package app

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"gantry/internal/config"
)

// getPage fetches the page the way the browser does first, with the token in the URL.
func getPage(t *testing.T, ts *testServer) string {
	t.Helper()
	res, err := http.Get(ts.base + "/?token=" + ts.token)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"))
	return string(body)
}

func TestStartPageTellsTheFirstFrameThemeAndProject(t *testing.T) {
	t.Parallel()
	ts := startServerWithPage(t, `<!doctype html><html lang="en"><head><title>Gantry</title></head></html>`)

	require.Contains(t, getPage(t, ts), `<html data-project="none" lang="en">`, "system theme: no data-theme")

	cur := ts.app.settings.Get()
	cur.Theme = config.ThemeDark
	require.NoError(t, ts.app.settings.Save(cur))
	proj := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(proj, "a.txt"), []byte("a"), 0o644))
	status, body := ts.call(t, "WorkspaceService/Open", proj)
	require.Equal(t, http.StatusOK, status, string(body))
	require.Contains(t, getPage(t, ts), `<html data-project="open" data-theme="dark" lang="en">`)

	// Other files are served as they are.
	res, err := http.Get(ts.base + "/assets/app.js?token=" + ts.token)
	require.NoError(t, err)
	js, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, "1", string(js))
}

func startServerWithPage(t *testing.T, page string) *testServer {
	t.Helper()
	return startServerAssets(t, "127.0.0.1:1", fstest.MapFS{
		"index.html": {Data: []byte(page)}, "assets/app.js": {Data: []byte("1")},
	})
}

func TestPinnedThemeDecidesTheWindowColour(t *testing.T) {
	t.Parallel()
	a := newTestApp(t)
	asked := false
	system := func() bool { asked = true; return true }
	for theme, dark := range map[string]bool{config.ThemeLight: false, config.ThemeDark: true, " Dark ": true} {
		cur := a.settings.Get()
		cur.Theme = theme
		require.NoError(t, a.settings.Save(cur))
		require.Equal(t, dark, a.StartsDark(system), theme)
	}
	require.False(t, asked, "a pinned theme needs no question to the desktop")
	cur := a.settings.Get()
	cur.Theme = config.ThemeSystem
	require.NoError(t, a.settings.Save(cur))
	require.True(t, a.StartsDark(system))
	require.True(t, asked)
	page := string(a.startPage([]byte(`<html lang="en">`)))
	require.Contains(t, page, `data-theme="dark"`, "the first frame follows the desktop the window asked")
}

func TestSystemPrefersDark(t *testing.T) {
	t.Parallel()
	env := func(theme string) func(string) string {
		return func(k string) string {
			if k == "GTK_THEME" {
				return theme
			}
			return ""
		}
	}
	gnome := func(scheme, theme string) func(string) string {
		return func(k string) string {
			return map[string]string{"color-scheme": scheme, "gtk-theme": theme}[k]
		}
	}
	cases := []struct {
		name  string
		env   string
		gnome func(string) string
		ini   string
		dark  bool
	}{
		{"nothing known is light", "", nil, "", false},
		{"GTK_THEME with the dark variant", "Adwaita:dark", nil, "", true},
		{"GTK_THEME naming a dark theme", "Yaru-dark", nil, "", true},
		{"GTK_THEME light wins over GNOME's dark", "Adwaita", gnome("'prefer-dark'\n", ""), "", false},
		{"GNOME colour scheme", "", gnome("'prefer-dark'\n", "'Adwaita'\n"), "", true},
		{"GNOME default scheme", "", gnome("'default'\n", "'Adwaita'\n"), "", false},
		{"GNOME dark GTK theme", "", gnome("'default'\n", "'Adwaita-dark'\n"), "", true},
		{"settings.ini prefers dark", "", nil, "[Settings]\ngtk-application-prefer-dark-theme = true\n", true},
		{"settings.ini prefers dark as 1", "", nil, "[Settings]\ngtk-application-prefer-dark-theme=1\n", true},
		{"settings.ini dark theme name", "", nil, "[Settings]\ngtk-theme-name=Breeze-Dark\n", true},
		{"settings.ini light", "", nil, "[Settings]\ngtk-application-prefer-dark-theme=false\ngtk-theme-name=Adwaita\n", false},
	}
	for _, c := range cases {
		require.Equal(t, c.dark, systemPrefersDark(env(c.env), c.gnome, c.ini), c.name)
	}
}

func TestWindowColourMatchesThePage(t *testing.T) {
	t.Parallel()
	css, err := os.ReadFile("../frontend/src/app.css")
	require.NoError(t, err)
	r, g, b := WindowColour(false)
	light := [3]uint8{r, g, b}
	r, g, b = WindowColour(true)
	dark := [3]uint8{r, g, b}
	// app.css: --bg: light-dark(#ffffff, #18181b);
	want := "--bg: light-dark(" + hexColour(light) + ", " + hexColour(dark) + ");"
	require.Contains(t, string(css), want, "the window's colours before the page paints must be the page's --bg")
}

func hexColour(c [3]uint8) string {
	const digits = "0123456789abcdef"
	out := []byte{'#'}
	for _, v := range c {
		out = append(out, digits[v>>4], digits[v&15])
	}
	return string(out)
}

// newTestApp is an App that was never started, on its own database and settings.
func newTestApp(t *testing.T) *App {
	t.Helper()
	a, err := New(t.Context(), Options{DataDir: t.TempDir(), SettingsPath: filepath.Join(t.TempDir(), "settings.json"), Mode: ModeDesktop})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, a.Shutdown()) })
	return a
}
