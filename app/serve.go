package app

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ServeOptions configure browser mode.
type ServeOptions struct {
	Listen string // loopback host:port; port 0 picks a free one
	Assets fs.FS  // the built frontend (index.html at its root)
	Token  string // empty: a random one
	// Ready is called with the address to open (including the token) once the server listens.
	Ready func(url string)
}

// contentSecurityPolicy repeats the policy of index.html as a header, which also covers
// responses that are not the page itself.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; " +
	"form-action 'none'; frame-ancestors 'none'"

const (
	tokenHeader = "X-Gantry-Token"
	tokenCookie = "gantry_token"
)

// Serve runs browser mode until ctx ends: the frontend and the bound services over HTTP, events
// over Server-Sent Events. Only loopback addresses are accepted, and every request needs the
// token, because these services read folders and will run commands.
func (a *App) Serve(ctx context.Context, opts ServeOptions) error {
	if err := requireLoopback(opts.Listen); err != nil {
		return err
	}
	if opts.Token == "" {
		opts.Token = randomToken()
	}
	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", opts.Listen, err)
	}
	h := newHub()
	a.Start(ctx, h, nil)
	srv := &http.Server{
		Handler:           newBrowserHandler(opts, newDispatcher(a.Bindings()), h, ln.Addr().String(), a.StartPage(opts.Assets)),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	if opts.Ready != nil {
		opts.Ready(fmt.Sprintf("http://%s/?token=%s", ln.Addr(), opts.Token))
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdownCtx)
		return nil
	case err := <-errc:
		return err
	}
}

func requireLoopback(listen string) error {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("--listen %q: want host:port, e.g. 127.0.0.1:8765", listen)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("--listen %q: browser mode only listens on loopback (127.0.0.1 or [::1]), because anyone who reaches it can act on your files", listen)
}

func randomToken() string {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b[:])
}

type browserHandler struct {
	opts     ServeOptions
	dispatch *dispatcher
	hub      *hub
	addr     string
	files    http.Handler
}

// page serves index.html itself (App.StartPage); files are served from opts.Assets.
func newBrowserHandler(opts ServeOptions, d *dispatcher, h *hub, addr string, page func(http.Handler) http.Handler) http.Handler {
	return &browserHandler{opts: opts, dispatch: d, hub: h, addr: addr, files: page(http.FileServerFS(opts.Assets))}
}

func (b *browserHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Content-Security-Policy", contentSecurityPolicy)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("Cache-Control", "no-store")

	// A page on another site can make the browser talk to 127.0.0.1 under a name it controls
	// (DNS rebinding); only accept requests addressed to the loopback name we listen on.
	if !b.allowedHost(r.Host) {
		http.Error(w, "forbidden host", http.StatusForbidden)
		return
	}
	switch {
	case strings.HasPrefix(r.URL.Path, "/rpc/"):
		b.serveRPC(w, r)
	case r.URL.Path == "/events":
		b.serveEvents(w, r)
	default:
		b.serveFiles(w, r)
	}
}

func (b *browserHandler) allowedHost(host string) bool {
	h, port, err := net.SplitHostPort(host)
	if err != nil {
		return false
	}
	_, listenPort, _ := net.SplitHostPort(b.addr)
	if port != listenPort {
		return false
	}
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(h, "[]"))
	return ip != nil && ip.IsLoopback()
}

func (b *browserHandler) tokenOK(got string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(b.opts.Token)) == 1
}

func (b *browserHandler) serveFiles(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if q := r.URL.Query().Get("token"); b.tokenOK(q) {
		// The page's own assets are loaded without the query; a strict same-site cookie
		// authenticates them. Calls still need the header, which other sites cannot set.
		http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: b.opts.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	} else if c, err := r.Cookie(tokenCookie); err != nil || !b.tokenOK(c.Value) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, "Gantry: open the address printed by `gantry serve`; it contains the access token.\n")
		return
	}
	if _, err := fs.Stat(b.opts.Assets, strings.TrimPrefix(r.URL.Path, "/")); r.URL.Path != "/" && err != nil {
		// Unknown paths get the app itself, so a reload on any URL works.
		r.URL.Path = "/"
	} else if strings.HasPrefix(r.URL.Path, "/assets/") {
		// Vite names each of these files by a hash of its content, so a name never changes
		// content. Kept, a reloaded page takes its code from the cache, compiled already by
		// V8, instead of fetching and compiling it again (issue 18). The page itself, which
		// names them, is never kept.
		w.Header().Set("Cache-Control", "private, max-age=31536000, immutable")
	}
	b.files.ServeHTTP(w, r)
}

func (b *browserHandler) serveRPC(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeJSONError(w, http.StatusMethodNotAllowed, "calls must be POST")
		return
	}
	if !b.tokenOK(r.Header.Get(tokenHeader)) {
		writeJSONError(w, http.StatusUnauthorized, "missing or wrong access token")
		return
	}
	name := strings.Replace(strings.TrimPrefix(r.URL.Path, "/rpc/"), "/", ".", 1)
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, err.Error())
		return
	}
	result, err := b.dispatch.call(name, body)
	if errors.Is(err, errUnknownMethod) {
		writeJSONError(w, http.StatusNotFound, err.Error())
		return
	}
	if err != nil {
		writeJSONError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(result)
}

func writeJSONError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

func (b *browserHandler) serveEvents(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("token")
	if c, err := r.Cookie(tokenCookie); token == "" && err == nil {
		token = c.Value
	}
	if !b.tokenOK(token) {
		http.Error(w, "missing or wrong access token", http.StatusUnauthorized)
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	c := b.hub.subscribe()
	defer b.hub.unsubscribe(c)
	// A comment line opens the stream at once so the client's onopen fires.
	io.WriteString(w, ": connected\n\n")
	flusher.Flush()
	keepalive := time.NewTicker(15 * time.Second)
	defer keepalive.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-keepalive.C:
			io.WriteString(w, ": keepalive\n\n")
			flusher.Flush()
		case data, ok := <-c:
			if !ok {
				return
			}
			var seq struct {
				Seq int64 `json:"seq"`
			}
			_ = json.Unmarshal(data, &seq)
			fmt.Fprintf(w, "id: %s\ndata: %s\n\n", strconv.FormatInt(seq.Seq, 10), data)
			flusher.Flush()
		}
	}
}
