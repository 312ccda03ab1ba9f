// Package lsp runs language servers for a workspace and asks them about code: one server per
// language, started on first use, kept warm, restarted once if it crashes, stopped with the
// workspace (SPEC §6). JSON-RPC framing is github.com/sourcegraph/jsonrpc2 and the protocol types
// are go.lsp.dev/protocol; the few 3.17 types it lacks are in types.go.
package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"gantry/internal/procgroup"

	"github.com/sourcegraph/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Bounds of the conversation with a server. A request the person waits on must end; the
// server's own indexing is waited for up to IndexWait, then the answer says it may be partial.
const (
	RequestTimeout  = 30 * time.Second
	InitTimeout     = 60 * time.Second
	IndexWait       = 20 * time.Second
	shutdownTimeout = 3 * time.Second
	stderrKeep      = 8 << 10
)

var (
	// ErrStopped is a request to a server that has exited.
	ErrStopped = errors.New("the language server stopped")
	// ErrTimeout is a request the server did not answer in time.
	ErrTimeout = errors.New("the language server timed out")
)

// Client is one running language server.
type Client struct {
	spec    Spec
	root    string
	launch  Launch
	cmd     *exec.Cmd
	conn    *jsonrpc2.Conn
	stderr  *procgroup.Tail
	exited  chan struct{} // closed when the process is gone
	exitErr error

	caps    serverCaps
	timeout time.Duration // bounds each request

	mu       sync.Mutex
	docs     map[uri.URI]*openDoc
	diags    map[uri.URI]published
	progress map[string]string // active work-done progress tokens → their titles
	changed  chan struct{}     // closed and replaced whenever diags or progress change
	nextID   uint64
	// ServerTime sums the time requests spent between sending and the answer arriving, so the
	// client's own share can be measured (make bench).
	serverTime time.Duration
}

type openDoc struct {
	version int32
	text    string
}

type published struct {
	version int32 // -1 when the server gave none
	seq     uint64
	items   []protocol.Diagnostic
}

// serverCaps are the capabilities Gantry looks at, read leniently (a capability may be a bool
// or an options object).
type serverCaps struct {
	raw map[string]json.RawMessage
}

func (c serverCaps) has(name string) bool {
	v, ok := c.raw[name]
	return ok && string(v) != "false" && string(v) != "null"
}

// start runs the server and completes the initialize handshake.
func start(ctx context.Context, spec Spec, root string, l Launch) (*Client, error) {
	cmd := exec.Command(l.Program, l.Args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), l.Env...)
	// Its own process group: typescript-language-server starts tsserver processes, and none may
	// outlive a stop.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c := &Client{
		spec: spec, root: root, launch: l, cmd: cmd, stderr: &procgroup.Tail{Limit: stderrKeep},
		exited: make(chan struct{}), docs: map[uri.URI]*openDoc{}, diags: map[uri.URI]published{},
		progress: map[string]string{}, changed: make(chan struct{}),
	}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", spec.Name, err)
	}
	go func() {
		c.exitErr = cmd.Wait()
		close(c.exited)
	}()
	stream := jsonrpc2.NewBufferedStream(pipes{stdout, stdin}, jsonrpc2.VSCodeObjectCodec{})
	c.conn = jsonrpc2.NewConn(context.Background(), stream, jsonrpc2.HandlerWithError(c.handle))
	go func() {
		// A server that exits closes its pipes; one whose pipes close is as good as gone.
		select {
		case <-c.exited:
			_ = c.conn.Close()
		case <-c.conn.DisconnectNotify():
		}
	}()

	ictx, cancel := context.WithTimeout(ctx, InitTimeout)
	defer cancel()
	if err := c.initialize(ictx); err != nil {
		c.kill()
		return nil, fmt.Errorf("%s did not start: %w%s", spec.Name, err, c.stderrNote())
	}
	return c, nil
}

func (c *Client) initialize(ctx context.Context) error {
	root := uri.File(c.root)
	params := map[string]any{
		"processId":  os.Getpid(),
		"clientInfo": map[string]string{"name": "Gantry"},
		"rootUri":    root,
		"rootPath":   c.root,
		"workspaceFolders": []map[string]any{
			{"uri": root, "name": lastElem(c.root)},
		},
		"capabilities": clientCapabilities,
	}
	if c.launch.InitOpts != nil {
		params["initializationOptions"] = c.launch.InitOpts
	}
	var result struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if err := c.call(ctx, "initialize", params, &result); err != nil {
		return err
	}
	c.caps = serverCaps{raw: result.Capabilities}
	if err := c.conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		return err
	}
	if c.launch.Settings != nil {
		return c.conn.Notify(ctx, "workspace/didChangeConfiguration", map[string]any{"settings": c.launch.Settings})
	}
	return nil
}

// clientCapabilities says what Gantry understands: hierarchical symbols, links, markdown hover,
// work-done progress (to know when indexing ends), versioned diagnostics, and the 3.17 type
// hierarchy.
var clientCapabilities = map[string]any{
	"general": map[string]any{"positionEncodings": []string{"utf-16"}},
	"window":  map[string]any{"workDoneProgress": true},
	"workspace": map[string]any{
		"configuration": true, "workspaceFolders": true,
		"symbol": map[string]any{"dynamicRegistration": false},
	},
	"textDocument": map[string]any{
		"synchronization":    map[string]any{"didSave": false, "dynamicRegistration": false},
		"hover":              map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
		"definition":         map[string]any{"linkSupport": true},
		"implementation":     map[string]any{"linkSupport": true},
		"references":         map[string]any{},
		"documentSymbol":     map[string]any{"hierarchicalDocumentSymbolSupport": true},
		"callHierarchy":      map[string]any{},
		"typeHierarchy":      map[string]any{},
		"publishDiagnostics": map[string]any{"versionSupport": true},
		"diagnostic":         map[string]any{},
	},
}

// handle answers what the server asks of the client, and keeps what it tells.
func (c *Client) handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	var params json.RawMessage
	if req.Params != nil {
		params = *req.Params
	}
	switch req.Method {
	case "textDocument/publishDiagnostics":
		var p protocol.PublishDiagnosticsParams
		if json.Unmarshal(params, &p) == nil {
			c.publish(p)
		}
	case "$/progress":
		c.progressed(params)
	case "window/workDoneProgress/create", "client/registerCapability", "client/unregisterCapability",
		"window/showMessageRequest", "window/showDocument":
		return nil, nil
	case "workspace/configuration":
		return c.configuration(params), nil
	case "workspace/workspaceFolders":
		return []map[string]any{{"uri": uri.File(c.root), "name": lastElem(c.root)}}, nil
	case "workspace/applyEdit":
		// Gantry changes files through its own tools, with approval and checkpoints.
		return map[string]any{"applied": false, "failureReason": "Gantry does not apply edits from language servers"}, nil
	}
	if req.Notif {
		return nil, nil
	}
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "Gantry does not handle " + req.Method}
}

// configuration answers each requested section from the launch's settings (null when unset).
func (c *Client) configuration(params json.RawMessage) []any {
	var p struct {
		Items []struct {
			Section string `json:"section"`
		} `json:"items"`
	}
	_ = json.Unmarshal(params, &p)
	out := make([]any, len(p.Items))
	for i, it := range p.Items {
		out[i] = lookupSection(c.launch.Settings, it.Section)
	}
	return out
}

// lookupSection finds "python.analysis" in {"python": {"analysis": …}}.
func lookupSection(settings map[string]any, section string) any {
	var cur any = settings
	if section == "" {
		return cur
	}
	for part := range strings.SplitSeq(section, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[part]
	}
	return cur
}

func (c *Client) publish(p protocol.PublishDiagnosticsParams) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	version := int32(-1)
	if p.Version != 0 {
		version = int32(p.Version)
	}
	c.diags[uri.URI(p.URI)] = published{version: version, seq: c.nextID, items: p.Diagnostics}
	c.signalLocked()
}

func (c *Client) progressed(params json.RawMessage) {
	var p struct {
		Token json.RawMessage `json:"token"`
		Value struct {
			Kind  string `json:"kind"`
			Title string `json:"title"`
		} `json:"value"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	token := string(p.Token)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch p.Value.Kind {
	case "begin":
		c.progress[token] = p.Value.Title
	case "end":
		delete(c.progress, token)
	default:
		return
	}
	c.signalLocked()
}

func (c *Client) signalLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// Indexing is the title of the work the server reports under way ("Loading packages"), or "".
func (c *Client) Indexing() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, title := range c.progress {
		if title == "" {
			title = "indexing"
		}
		return title
	}
	return ""
}

// WaitIndexed waits until the server reports no work under way, for at most bound; it returns
// what was still going on when it gave up ("" when the server was done).
func (c *Client) WaitIndexed(ctx context.Context, bound time.Duration) (string, error) {
	timer := time.NewTimer(bound)
	defer timer.Stop()
	for {
		c.mu.Lock()
		busy, changed := len(c.progress) > 0, c.changed
		c.mu.Unlock()
		if !busy {
			return "", nil
		}
		select {
		case <-changed:
		case <-timer.C:
			return c.Indexing(), nil
		case <-ctx.Done():
			return "", ctx.Err()
		case <-c.exited:
			return "", c.stoppedErr()
		}
	}
}

// call sends a request and waits for its answer, within RequestTimeout and ctx; when ctx ends
// first the server is told to cancel it.
func (c *Client) call(parent context.Context, method string, params, result any) error {
	timeout := c.timeout
	if timeout == 0 {
		timeout = RequestTimeout
	}
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	c.mu.Lock()
	c.nextID++
	id := jsonrpc2.ID{Num: c.nextID}
	c.mu.Unlock()
	sent := time.Now()
	w, err := c.conn.DispatchCall(ctx, method, params, jsonrpc2.PickID(id))
	if err != nil {
		return c.sendErr(err)
	}
	// The answer is decoded after the clock stops: decoding is the client's own work.
	var raw json.RawMessage
	err = w.Wait(ctx, &raw)
	c.mu.Lock()
	c.serverTime += time.Since(sent)
	c.mu.Unlock()
	switch {
	case err == nil:
		if result == nil || len(raw) == 0 {
			return nil
		}
		if err := json.Unmarshal(raw, result); err != nil {
			return fmt.Errorf("%s answered %s with what it should not: %w", c.spec.Name, method, err)
		}
		return nil
	case ctx.Err() != nil:
		_ = c.conn.Notify(context.Background(), "$/cancelRequest", map[string]any{"id": id.Num})
		if parent.Err() == nil {
			return fmt.Errorf("%w: %s did not answer %s within %s", ErrTimeout, c.spec.Name, method, timeout)
		}
		return parent.Err()
	}
	return c.sendErr(err)
}

func (c *Client) sendErr(err error) error {
	select {
	case <-c.exited:
		return c.stoppedErr()
	default:
	}
	if errors.Is(err, jsonrpc2.ErrClosed) {
		return c.stoppedErr()
	}
	return err
}

// ServerTime is the time requests spent waiting for the server, summed.
func (c *Client) ServerTime() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.serverTime
}

// Alive reports whether the server process still runs.
func (c *Client) Alive() bool {
	select {
	case <-c.exited:
		return false
	default:
		return true
	}
}

func (c *Client) stoppedErr() error {
	return fmt.Errorf("%w (%s): %v%s", ErrStopped, c.spec.Name, c.exitErr, c.stderrNote())
}

func (c *Client) stderrNote() string {
	if t := strings.TrimSpace(c.stderr.String()); t != "" {
		return "\n" + procgroup.LastLines(t, 6)
	}
	return ""
}

// Name is the server's name ("gopls").
func (c *Client) Name() string { return c.spec.Name }

// Stderr is the end of what the server wrote to stderr.
func (c *Client) Stderr() string { return c.stderr.String() }

// Pid is the server's process id.
func (c *Client) Pid() int { return c.cmd.Process.Pid }

// sync makes the server see file as it is on disk: opened the first time, changed whenever its
// text differs from what the server has. It returns the version the server now has.
func (c *Client) sync(ctx context.Context, file string) (int32, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	text := string(data)
	u := uri.File(file)
	c.mu.Lock()
	d := c.docs[u]
	switch {
	case d == nil:
		d = &openDoc{version: 1, text: text}
		c.docs[u] = d
		c.mu.Unlock()
		return 1, c.conn.Notify(ctx, "textDocument/didOpen", map[string]any{
			"textDocument": map[string]any{"uri": u, "languageId": c.spec.languageID(file), "version": 1, "text": text},
		})
	case d.text == text:
		v := d.version
		c.mu.Unlock()
		return v, nil
	}
	d.version++
	d.text = text
	v := d.version
	c.mu.Unlock()
	return v, c.conn.Notify(ctx, "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": u, "version": v},
		"contentChanges": []map[string]any{{"text": text}},
	})
}

// Diagnostics are the server's problems in file as it is on disk now, waiting up to bound for
// the server to report on that version. ok is false when it did not within the bound.
func (c *Client) Diagnostics(ctx context.Context, file string, bound time.Duration) (items []protocol.Diagnostic, ok bool, err error) {
	c.mu.Lock()
	seqBefore := c.nextID
	c.mu.Unlock()
	version, err := c.sync(ctx, file)
	if err != nil {
		return nil, false, err
	}
	u := uri.File(file)
	if c.caps.forwardsTsserver() {
		items, err := c.tsserverDiagnostics(ctx, file)
		return items, err == nil, err
	}
	if c.caps.has("diagnosticProvider") {
		var report struct {
			Kind  string                `json:"kind"`
			Items []protocol.Diagnostic `json:"items"`
		}
		if err := c.call(ctx, "textDocument/diagnostic", map[string]any{"textDocument": map[string]any{"uri": u}}, &report); err == nil && report.Kind != "unchanged" {
			return report.Items, true, nil
		}
	}
	timer := time.NewTimer(bound)
	defer timer.Stop()
	for {
		c.mu.Lock()
		p, seen := c.diags[u]
		changed := c.changed
		c.mu.Unlock()
		// A report for this version, or, from a server that gives no versions, one sent after
		// this sync.
		if seen && (p.version >= version || p.version < 0 && p.seq > seqBefore) {
			return p.items, true, nil
		}
		select {
		case <-changed:
		case <-timer.C:
			if seen && p.version < 0 {
				return p.items, true, nil // the server said nothing new: nothing changed for it
			}
			return nil, false, nil
		case <-ctx.Done():
			return nil, false, ctx.Err()
		case <-c.exited:
			return nil, false, c.stoppedErr()
		}
	}
}

// shutdown asks the server to stop, then makes sure it and everything it started are gone.
func (c *Client) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if c.Alive() {
		_ = c.call(ctx, "shutdown", nil, nil)
		_ = c.conn.Notify(ctx, "exit", nil)
		select {
		case <-c.exited:
		case <-ctx.Done():
		}
	}
	c.kill()
}

// kill ends the server's process group and waits until every process of it is gone.
func (c *Client) kill() {
	if c.cmd.Process != nil {
		procgroup.Kill(c.cmd.Process.Pid, shutdownTimeout)
	}
	<-c.exited
	_ = c.conn.Close()
}

// pipes joins the server's stdout and stdin into one connection.
type pipes struct {
	io.ReadCloser
	io.WriteCloser
}

func (p pipes) Close() error { return errors.Join(p.ReadCloser.Close(), p.WriteCloser.Close()) }

func lastElem(p string) string {
	p = strings.TrimRight(p, "/")
	return p[strings.LastIndexByte(p, '/')+1:]
}
