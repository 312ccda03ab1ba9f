package app

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"

	"gantry/internal/config"
	"gantry/internal/events"
	"gantry/internal/llm/fakeollama"
)

// testServer runs browser mode for real on a loopback port, with settings pointing at a fake
// Ollama, and returns its base URL and token.
type testServer struct {
	base  string
	token string
	app   *App
	dirs  struct{ data, config string }
}

func startServer(t *testing.T, ollamaHost string) *testServer {
	t.Helper()
	return startServerAssets(t, ollamaHost, fstest.MapFS{
		"index.html": {Data: []byte("<!doctype html><title>Gantry</title>")}, "assets/app.js": {Data: []byte("1")},
	})
}

func startServerAssets(t *testing.T, ollamaHost string, assets fstest.MapFS) *testServer {
	t.Helper()
	ts := &testServer{}
	ts.dirs.data, ts.dirs.config = t.TempDir(), t.TempDir()
	settingsPath := filepath.Join(ts.dirs.config, "settings.json")
	require.NoError(t, config.Open(settingsPath).Save(config.Settings{OllamaHost: ollamaHost}))

	ctx, cancel := context.WithCancel(context.Background())
	a, err := New(ctx, Options{DataDir: ts.dirs.data, SettingsPath: settingsPath, Mode: ModeBrowser, Version: "test"})
	require.NoError(t, err)
	ts.app = a
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- a.Serve(ctx, ServeOptions{Listen: "127.0.0.1:0", Assets: assets, Ready: func(u string) { ready <- u }})
	}()
	select {
	case u := <-ready:
		parsed, err := url.Parse(u)
		require.NoError(t, err)
		ts.token = parsed.Query().Get("token")
		ts.base = "http://" + parsed.Host
	case err := <-done:
		t.Fatalf("serve failed: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
		require.NoError(t, a.Shutdown())
	})
	return ts
}

func (ts *testServer) call(t *testing.T, method string, args ...any) (int, []byte) {
	t.Helper()
	if args == nil {
		args = []any{}
	}
	body, err := json.Marshal(args)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, ts.base+"/rpc/"+method, strings.NewReader(string(body)))
	require.NoError(t, err)
	req.Header.Set(tokenHeader, ts.token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, out
}

func TestServeRefusesNonLoopback(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", "192.168.1.5:80", ":8080", "example.com:80", "nonsense"} {
		require.Error(t, requireLoopback(addr), addr)
	}
	for _, addr := range []string{"127.0.0.1:0", "[::1]:9", "localhost:1"} {
		require.NoError(t, requireLoopback(addr), addr)
	}
}

func TestTokenIsRequired(t *testing.T) {
	t.Parallel()
	ts := startServer(t, "127.0.0.1:1")

	res, err := http.Get(ts.base + "/")
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusUnauthorized, res.StatusCode)

	res, err = http.Post(ts.base+"/rpc/AppService/Info", "application/json", strings.NewReader("[]"))
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusUnauthorized, res.StatusCode, "no header")

	req, _ := http.NewRequest(http.MethodPost, ts.base+"/rpc/AppService/Info", strings.NewReader("[]"))
	req.Header.Set(tokenHeader, ts.token+"x")
	res, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusUnauthorized, res.StatusCode, "wrong token")

	res, err = http.Get(ts.base + "/events")
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusUnauthorized, res.StatusCode)
}

func TestPageWithTokenSetsCookieForAssets(t *testing.T) {
	t.Parallel()
	ts := startServer(t, "127.0.0.1:1")
	res, err := http.Get(ts.base + "/?token=" + ts.token)
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Contains(t, string(body), "<title>Gantry</title>")
	require.Contains(t, res.Header.Get("Content-Security-Policy"), "script-src 'self'")
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == tokenCookie {
			cookie = c
		}
	}
	require.NotNil(t, cookie)
	require.True(t, cookie.HttpOnly)
	require.Equal(t, http.SameSiteStrictMode, cookie.SameSite)

	require.Equal(t, "no-store", res.Header.Get("Cache-Control"), "the page names the assets of this build")

	req, _ := http.NewRequest(http.MethodGet, ts.base+"/assets/app.js", nil)
	req.AddCookie(cookie)
	res, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "private, max-age=31536000, immutable", res.Header.Get("Cache-Control"), "named by their content, assets are kept")

	// A name that is not an asset gets the page, which is never kept.
	req, _ = http.NewRequest(http.MethodGet, ts.base+"/assets/gone-1234.js", nil)
	req.AddCookie(cookie)
	res, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	require.Contains(t, string(body), "<title>Gantry</title>")
	require.Equal(t, "no-store", res.Header.Get("Cache-Control"))

	// The cookie alone never authorises a call: other sites cannot set the header.
	req, _ = http.NewRequest(http.MethodPost, ts.base+"/rpc/AppService/Info", strings.NewReader("[]"))
	req.AddCookie(cookie)
	res, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusUnauthorized, res.StatusCode)
}

func TestForeignHostHeaderIsRefused(t *testing.T) {
	t.Parallel()
	ts := startServer(t, "127.0.0.1:1")
	req, _ := http.NewRequest(http.MethodGet, ts.base+"/?token="+ts.token, nil)
	req.Host = "evil.example:" + strings.Split(ts.base, ":")[2]
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusForbidden, res.StatusCode)
}

func TestRPCCallsBoundMethodsAndReportsErrors(t *testing.T) {
	t.Parallel()
	ts := startServer(t, "127.0.0.1:1")

	status, body := ts.call(t, "AppService/Info")
	require.Equal(t, http.StatusOK, status)
	var info AppInfo
	require.NoError(t, json.Unmarshal(body, &info))
	require.Equal(t, ModeBrowser, info.Mode)

	status, body = ts.call(t, "WorkspaceService/Open", filepath.Join(t.TempDir(), "nope"))
	require.Equal(t, http.StatusInternalServerError, status)
	require.Contains(t, string(body), "does not exist")

	status, _ = ts.call(t, "WorkspaceService/Nope")
	require.Equal(t, http.StatusNotFound, status)

	status, body = ts.call(t, "WorkspaceService/Open", 1, 2)
	require.Equal(t, http.StatusInternalServerError, status)
	require.Contains(t, string(body), "takes 1 arguments")

	status, body = ts.call(t, "WorkspaceService/ChooseFolder")
	require.Equal(t, http.StatusInternalServerError, status)
	require.Contains(t, string(body), "type the folder path")
}

func TestOpenRecentRemoveAndListDir(t *testing.T) {
	t.Parallel()
	ts := startServer(t, "127.0.0.1:1")
	proj := filepath.Join(t.TempDir(), "myproj")
	require.NoError(t, os.MkdirAll(filepath.Join(proj, "src"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(proj, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(proj, ".gitignore"), []byte("*.log\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(proj, "debug.log"), []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(proj, "main.go"), []byte("package main"), 0o644))

	status, body := ts.call(t, "WorkspaceService/OpenDropped", []string{proj})
	require.Equal(t, http.StatusOK, status, string(body))
	require.Contains(t, string(body), `"name":"myproj"`)

	status, body = ts.call(t, "WorkspaceService/ListDir", "")
	require.Equal(t, http.StatusOK, status, string(body))
	var listing struct {
		Entries []struct {
			Name  string `json:"name"`
			IsDir bool   `json:"isDir"`
		} `json:"entries"`
	}
	require.NoError(t, json.Unmarshal(body, &listing))
	var names []string
	for _, e := range listing.Entries {
		names = append(names, e.Name)
	}
	require.Equal(t, []string{"src", ".gitignore", "main.go"}, names)

	status, body = ts.call(t, "WorkspaceService/OpenDropped", []string{filepath.Join(proj, "main.go")})
	require.Equal(t, http.StatusInternalServerError, status)
	require.Contains(t, string(body), "is a file")

	other := filepath.Join(t.TempDir(), "gone")
	require.NoError(t, os.Mkdir(other, 0o755))
	status, _ = ts.call(t, "WorkspaceService/Open", other)
	require.Equal(t, http.StatusOK, status)
	require.NoError(t, os.Remove(other))

	status, body = ts.call(t, "WorkspaceService/Recent")
	require.Equal(t, http.StatusOK, status)
	var recent []RecentProject
	require.NoError(t, json.Unmarshal(body, &recent))
	require.Len(t, recent, 2)
	require.Equal(t, other, recent[0].Path, "newest first")
	require.True(t, recent[0].Missing)
	require.False(t, recent[1].Missing)

	status, _ = ts.call(t, "WorkspaceService/Remove", recent[0].ID)
	require.Equal(t, http.StatusOK, status)
	_, body = ts.call(t, "WorkspaceService/Recent")
	require.NoError(t, json.Unmarshal(body, &recent))
	require.Len(t, recent, 1)
}

// sseReader reads "data:" payloads from the event stream.
func openEvents(t *testing.T, ts *testServer) <-chan map[string]any {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, ts.base+"/events?token="+ts.token, nil)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	res, err := http.DefaultClient.Do(req.WithContext(ctx))
	require.NoError(t, err)
	require.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	// The server subscribes before it writes its opening comment: once that is read, no event
	// emitted afterwards can be missed.
	sc := bufio.NewScanner(res.Body)
	require.True(t, sc.Scan(), "the stream opens with a comment")
	require.Equal(t, ": connected", sc.Text())
	out := make(chan map[string]any, 100)
	go func() {
		defer res.Body.Close()
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var ev map[string]any
				if json.Unmarshal([]byte(data), &ev) == nil {
					out <- ev
				}
			}
		}
	}()
	return out
}

func next(t *testing.T, ch <-chan map[string]any, typ string) map[string]any {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev := <-ch:
			if ev["type"] == typ {
				return ev
			}
		case <-deadline:
			t.Fatalf("no %s event", typ)
		}
	}
}

func TestEventsArriveInOrderOverSSE(t *testing.T) {
	t.Parallel()
	ts := startServer(t, "127.0.0.1:1")
	evs := openEvents(t, ts)
	for i := 0; i < 20; i++ {
		_, err := ts.app.emitter.Emit(context.Background(), events.Scope{}, "recentChanged", map[string]int{"i": i})
		require.NoError(t, err)
	}
	var lastSeq float64
	for i := 0; i < 20; i++ {
		ev := next(t, evs, "recentChanged")
		require.Greater(t, ev["seq"].(float64), lastSeq)
		lastSeq = ev["seq"].(float64)
		require.EqualValues(t, i, ev["payload"].(map[string]any)["i"])
	}
}

func TestOllamaStatusRecoversWhenServerStarts(t *testing.T) {
	t.Parallel()
	// Reserve a port, free it, and point Gantry at it while nothing listens.
	probe := fakeollama.New(fakeollama.Script{})
	require.NoError(t, probe.Start("127.0.0.1:0"))
	addr := strings.TrimPrefix(probe.URL(), "http://")
	require.NoError(t, probe.Close())

	ts := startServer(t, addr)
	evs := openEvents(t, ts)

	status, body := ts.call(t, "OllamaService/Refresh")
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, string(body), `"reachable":false`)

	fake := fakeollama.New(fakeollama.Script{Models: []fakeollama.Model{{Name: "qwen3:4b", Arch: "qwen3", ContextLength: 40960, Capabilities: []string{"completion", "tools"}}}})
	require.NoError(t, fake.Start(addr))
	t.Cleanup(func() { fake.Close() })

	for {
		ev := next(t, evs, "ollamaStatus")
		p := ev["payload"].(map[string]any)
		if p["reachable"] == true {
			require.Equal(t, "qwen3:4b", p["models"].([]any)[0].(map[string]any)["name"])
			break
		}
	}
}
