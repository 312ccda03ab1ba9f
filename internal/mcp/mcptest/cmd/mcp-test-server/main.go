// Command mcp-test-server runs the mcptest server over stdio, or over streamable HTTP with
// --http (printing "listening on URL"), for Gantry's tests and browser tests.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"gantry/internal/mcp/mcptest"
)

func main() {
	dir := flag.String("dir", os.TempDir(), "where notes and state are kept")
	addr := flag.String("http", "", "serve streamable HTTP on this address instead of stdio")
	header := flag.String("require-header", "", "with --http, refuse requests without this header (Name: value)")
	flag.Parse()
	s := mcptest.New(mcptest.Options{Dir: *dir, Exit: os.Exit})
	if *addr == "" {
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening on http://%s/mcp\n", ln.Addr())
	handler := mcptest.RequireHeader(*header, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.Server }, nil))
	log.Fatal(http.Serve(ln, handler))
}
