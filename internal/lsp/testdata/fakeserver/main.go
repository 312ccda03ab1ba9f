// Command fakeserver is a language server that does nothing useful, for the tests of what the
// client does when a real one misbehaves: it completes the handshake, then reports indexing that
// never ends (with -indexing) and answers no request but shutdown.
package main

import (
	"context"
	"flag"
	"os"

	"github.com/sourcegraph/jsonrpc2"
)

type stdio struct{}

func (stdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (stdio) Close() error                { return nil }

func main() {
	indexing := flag.Bool("indexing", false, "report work that never ends")
	flag.Parse()
	done := make(chan struct{})
	handler := jsonrpc2.HandlerWithError(func(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
		switch req.Method {
		case "initialize":
			return map[string]any{"capabilities": map[string]any{"definitionProvider": true}}, nil
		case "initialized":
			if *indexing {
				go func() {
					_ = conn.Call(ctx, "window/workDoneProgress/create", map[string]any{"token": "idx"}, nil)
					_ = conn.Notify(ctx, "$/progress", map[string]any{"token": "idx", "value": map[string]any{"kind": "begin", "title": "Indexing forever"}})
				}()
			}
			return nil, nil
		case "shutdown":
			return nil, nil
		case "exit":
			close(done)
			return nil, nil
		}
		if req.Notif {
			return nil, nil
		}
		select {} // never answers
	})
	conn := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(stdio{}, jsonrpc2.VSCodeObjectCodec{}), jsonrpc2.AsyncHandler(handler))
	select {
	case <-done:
	case <-conn.DisconnectNotify():
	}
}
