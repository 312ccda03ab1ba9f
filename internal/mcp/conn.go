package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"gantry/internal/procgroup"
)

// Bounds of the conversation with a server.
const (
	// startTimeout bounds starting a server and its handshake: `npx -y` may first download the
	// package.
	startTimeout = 90 * time.Second
	// stopWait is how long a stdio server gets to exit after its input is closed (the MCP spec's
	// shutdown), before its whole process group is killed.
	stopWait = 2 * time.Second
	// stderrKeep is how much of a server's stderr is kept for Settings and error messages.
	stderrKeep = 8 << 10
)

// sessionOptions pins the protocol to 2025-11-25, the version servers in use speak: with the
// SDK's newer stateless draft (2026-07-28) a call's progress notifications never reached the
// client (go-sdk v1.8.0), and Gantry shows them live.
var sessionOptions = &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"}

// conn is one live session with a server: the SDK's client session and, for a stdio server,
// its process.
type conn struct {
	session *sdk.ClientSession
	cmd     *exec.Cmd          // nil for a server reached over HTTP
	cancel  context.CancelFunc // ends the session's context
	exited  chan struct{}      // closed when the process (or the HTTP session) is gone
	exitErr error
	once    sync.Once
}

// handlers are what a session tells its server's owner as it happens.
type handlers struct {
	toolsChanged func()
	progress     func(token any, progress, total float64, message string)
}

// connect shakes hands over transport. The session lives as long as life (an HTTP+SSE stream is
// bound to the context it was opened with), and the handshake must end within startTimeout.
func connect(life context.Context, client *sdk.Client, transport sdk.Transport) (*sdk.ClientSession, context.CancelFunc, error) {
	ctx, cancel := context.WithCancel(life)
	timer := time.AfterFunc(startTimeout, cancel)
	session, err := client.Connect(ctx, transport, sessionOptions)
	if !timer.Stop() && err == nil {
		_ = session.Close()
		err = fmt.Errorf("no answer to the handshake within %s", startTimeout)
	}
	if err != nil {
		cancel()
		return nil, nil, err
	}
	return session, cancel, nil
}

// dial starts the server cfg describes (already expanded) and completes the handshake; the
// session lives as long as life.
func dial(life context.Context, cfg Config, dir string, stderr io.Writer, h handlers, version string) (*conn, error) {
	client := sdk.NewClient(&sdk.Implementation{Name: "gantry", Title: "Gantry", Version: version}, &sdk.ClientOptions{
		// No roots: a server sees the folders its own configuration names, nothing more.
		Capabilities: &sdk.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			h.toolsChanged()
		},
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			p := req.Params
			h.progress(p.ProgressToken, p.Progress, p.Total, p.Message)
		},
	})
	if cfg.Transport() == TransportStdio {
		return dialStdio(life, client, cfg, dir, stderr)
	}
	httpClient := &http.Client{Transport: headerTransport{headers: cfg.Headers, base: http.DefaultTransport}}
	var transport sdk.Transport = &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: httpClient}
	if cfg.Transport() == TransportSSE {
		transport = &sdk.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: httpClient}
	}
	session, cancel, err := connect(life, client, transport)
	if err != nil {
		return nil, err
	}
	c := &conn{session: session, cancel: cancel, exited: make(chan struct{})}
	go func() {
		c.exitErr = session.Wait()
		close(c.exited)
	}()
	return c, nil
}

func dialStdio(life context.Context, client *sdk.Client, cfg Config, dir string, stderr io.Writer) (*conn, error) {
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	for k, v := range cfg.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	// Its own process group: `npx` starts node, which may start more, and none may outlive a stop.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, startError(cfg, err)
	}
	c := &conn{cmd: cmd, exited: make(chan struct{})}
	go func() {
		c.exitErr = cmd.Wait()
		close(c.exited)
	}()
	c.session, c.cancel, err = connect(life, client, &sdk.IOTransport{Reader: stdout, Writer: stdin})
	if err != nil {
		c.kill()
		if c.exitErr != nil {
			return nil, fmt.Errorf("exited during the handshake (%v)", c.exitErr)
		}
		return nil, err
	}
	return c, nil
}

// startError words a command that could not start at all.
func startError(cfg Config, err error) error {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
		return permanent(fmt.Errorf("%s was not found (is it installed, and on the PATH Gantry sees?)", cfg.Command))
	}
	if errors.Is(err, os.ErrPermission) {
		return permanent(fmt.Errorf("%s cannot be run: permission denied", cfg.Command))
	}
	return permanent(fmt.Errorf("%s cannot be run: %v", cfg.Command, err))
}

// workDir is where a stdio server runs: its cwd (a project's relative to the project), else
// the project for a project's server and the home folder for the person's own.
func workDir(cfg Config, root string) string {
	if cfg.Cwd != "" {
		if filepath.IsAbs(cfg.Cwd) {
			return cfg.Cwd
		}
		return filepath.Join(root, cfg.Cwd)
	}
	if cfg.Source == SourceProject {
		return root
	}
	if home, err := os.UserHomeDir(); err == nil {
		return home
	}
	return os.TempDir()
}

func (c *conn) alive() bool {
	select {
	case <-c.exited:
		return false
	default:
		return true
	}
}

// pid is the stdio server's process id, 0 for a server over HTTP.
func (c *conn) pid() int {
	if c.cmd == nil || c.cmd.Process == nil {
		return 0
	}
	return c.cmd.Process.Pid
}

// close ends the session: a stdio server's input is closed and it gets stopWait to exit, then
// its whole process group is killed; an HTTP session is ended with the server.
func (c *conn) close() {
	c.once.Do(func() {
		if c.session != nil {
			closed := make(chan struct{})
			go func() {
				_ = c.session.Close()
				close(closed)
			}()
			select {
			case <-closed:
			case <-time.After(stopWait):
			}
			c.cancel()
		}
		if c.cmd != nil {
			select {
			case <-c.exited:
			case <-time.After(stopWait):
			}
		}
		c.kill()
	})
}

// kill ends a stdio server's process group and waits until every process of it is gone.
func (c *conn) kill() {
	if c.cmd == nil {
		return
	}
	procgroup.Kill(c.cmd.Process.Pid, stopWait)
	<-c.exited
}

// headerTransport adds the configured headers (an API key, say) to every request.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	return t.base.RoundTrip(req)
}

// permanentError is a failure that trying again cannot mend (no such program, a bad URL).
type permanentError struct{ error }

func (e permanentError) Unwrap() error { return e.error }

func permanent(err error) error { return permanentError{err} }

// transient reports whether err may go away by itself: the connection dropped or was refused, a
// server busy or restarting (HTTP 429, 502, 503, 504).
func transient(err error) bool {
	var p permanentError
	if err == nil || errors.As(err, &p) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var netErr net.Error
	if errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, sdk.ErrSessionMissing) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) || errors.As(err, &netErr) {
		return true
	}
	msg := err.Error()
	for _, status := range []int{http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout} {
		if strings.Contains(msg, http.StatusText(status)) {
			return true
		}
	}
	return false
}
