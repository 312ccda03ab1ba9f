// Package mcptest is a small MCP server built with the official Go SDK, for Gantry's tests: the
// same server runs over stdio (cmd/mcp-test-server, a real process) and over streamable HTTP.
// Its tools exercise what a client must handle: read-only and writing tools, progress, a call
// that hangs until cancelled, a crash, an error result, images and resources, a huge answer, a
// tool list that changes, and pagination (a page holds five tools).
package mcptest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options shape a test server.
type Options struct {
	// Dir is where the notes tools write and where state that must outlive a crash is kept.
	Dir string
	// Exit ends the process (stdio): the crash tools call it.
	Exit func(code int)
}

// Server is a running test server's state.
type Server struct {
	*mcp.Server
	opts Options

	mu        sync.Mutex
	cancelled int
	seen      chan struct{} // closed at the first cancelled call
}

var yes = true

// New returns the test server.
func New(opts Options) *Server {
	s := &Server{opts: opts, seen: make(chan struct{})}
	s.Server = mcp.NewServer(&mcp.Implementation{Name: "gantry-test", Version: "1.0.0"}, &mcp.ServerOptions{PageSize: 5})
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	mcp.AddTool(s.Server, &mcp.Tool{Name: "echo", Description: "Echoes the message back. Use it to test the connection.", Annotations: readOnly}, s.echo)
	mcp.AddTool(s.Server, &mcp.Tool{Name: "add", Description: "Adds two integers.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, Title: "Add numbers"}}, s.add)
	mcp.AddTool(s.Server, &mcp.Tool{Name: "write_note", Description: "Writes a note to a file in the notes folder. Overwrites a note of the same name.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes}}, s.writeNote)
	mcp.AddTool(s.Server, &mcp.Tool{Name: "count_words", Description: "Counts the words of a text, reporting progress as it goes.", Annotations: readOnly}, s.countWords)
	mcp.AddTool(s.Server, &mcp.Tool{Name: "wait", Description: "Waits until it is cancelled.", Annotations: readOnly}, s.wait)
	mcp.AddTool(s.Server, &mcp.Tool{Name: "cancelled_calls", Description: "Waits until a call was cancelled, then says how many were.", Annotations: readOnly}, s.cancelledCalls)
	mcp.AddTool(s.Server, &mcp.Tool{Name: "crash", Description: "Ends the server process in the middle of the call."}, s.crash)
	mcp.AddTool(s.Server, &mcp.Tool{Name: "crash_once", Description: "Reads a value; the first call ever ends the server process instead.", Annotations: readOnly}, s.crashOnce)
	mcp.AddTool(s.Server, &mcp.Tool{Name: "fail", Description: "Always fails with a message.", Annotations: readOnly}, s.fail)
	mcp.AddTool(s.Server, &mcp.Tool{Name: "picture", Description: "Returns a picture and a resource.", Annotations: readOnly}, s.picture)
	mcp.AddTool(s.Server, &mcp.Tool{Name: "huge", Description: "Returns a very long text.", Annotations: readOnly}, s.huge)
	mcp.AddTool(s.Server, &mcp.Tool{Name: "add_tool", Description: "Adds a tool named late to this server."}, s.addTool)
	return s
}

type echoIn struct {
	Message string `json:"message" jsonschema:"What to echo back"`
}

func (s *Server) echo(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
	return text("echo: " + in.Message), nil, nil
}

type addIn struct {
	A int `json:"a" jsonschema:"The first number"`
	B int `json:"b" jsonschema:"The second number"`
}

type addOut struct {
	Sum int `json:"sum"`
}

func (s *Server) add(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
	return nil, addOut{Sum: in.A + in.B}, nil
}

type noteIn struct {
	Name string `json:"name" jsonschema:"The note's file name, like todo.txt"`
	Text string `json:"text" jsonschema:"What the note says"`
}

func (s *Server) writeNote(_ context.Context, _ *mcp.CallToolRequest, in noteIn) (*mcp.CallToolResult, any, error) {
	if strings.ContainsAny(in.Name, `/\`) || in.Name == "" || in.Name == "." || in.Name == ".." {
		return nil, nil, fmt.Errorf("%q is not a plain file name", in.Name)
	}
	if err := os.WriteFile(filepath.Join(s.opts.Dir, in.Name), []byte(in.Text), 0o644); err != nil {
		return nil, nil, err
	}
	return text(fmt.Sprintf("wrote %s (%d bytes)", in.Name, len(in.Text))), nil, nil
}

type countIn struct {
	Text string `json:"text"`
}

func (s *Server) countWords(ctx context.Context, req *mcp.CallToolRequest, in countIn) (*mcp.CallToolResult, any, error) {
	words := strings.Fields(in.Text)
	for i := range words {
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: req.Params.GetProgressToken(), Progress: float64(i + 1), Total: float64(len(words)),
			Message: "counted " + words[i],
		})
	}
	return text(fmt.Sprintf("%d words", len(words))), nil, nil
}

type empty struct{}

func (s *Server) wait(ctx context.Context, req *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
	// Says it started, so a test knows the call is under way before it cancels it.
	_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: 0, Message: "waiting"})
	<-ctx.Done()
	s.mu.Lock()
	s.cancelled++
	if s.cancelled == 1 {
		close(s.seen)
	}
	s.mu.Unlock()
	return nil, nil, ctx.Err()
}

func (s *Server) cancelledCalls(ctx context.Context, _ *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
	select {
	case <-s.seen:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return text(fmt.Sprintf("%d cancelled", s.cancelled)), nil, nil
}

func (s *Server) crash(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
	fmt.Fprintln(os.Stderr, "test server: crashing on purpose")
	s.opts.Exit(3)
	return nil, nil, errors.New("unreachable")
}

func (s *Server) crashOnce(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
	marker := filepath.Join(s.opts.Dir, "crashed-once")
	if _, err := os.Stat(marker); err != nil {
		_ = os.WriteFile(marker, nil, 0o644)
		fmt.Fprintln(os.Stderr, "test server: crashing once")
		s.opts.Exit(3)
	}
	return text("value after the restart"), nil, nil
}

func (s *Server) fail(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
	return nil, nil, errors.New("the disk is full")
}

func (s *Server) picture(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "a red dot"},
		&mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 3000)},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///data.bin", MIMEType: "application/octet-stream", Blob: make([]byte, 2048)}},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///readme.txt", MIMEType: "text/plain", Text: "hello from a resource"}},
	}}, nil, nil
}

func (s *Server) huge(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
	return text(strings.Repeat("0123456789 abcdefghij\n", 10000)), nil, nil
}

func (s *Server) addTool(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
	mcp.AddTool(s.Server, &mcp.Tool{Name: "late", Description: "A tool added while the server ran.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			return text("late tool here"), nil, nil
		})
	return text("added the tool late"), nil, nil
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// RequireHeader refuses requests without header ("Name: value"), as a server with an API key
// does; "" requires nothing.
func RequireHeader(header string, next http.Handler) http.Handler {
	name, value, _ := strings.Cut(header, ":")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if name == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(name) != value {
			http.Error(w, "missing or wrong "+name, http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
