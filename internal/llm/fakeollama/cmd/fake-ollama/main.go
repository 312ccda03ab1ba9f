// Command fake-ollama serves a scripted fake Ollama (package fakeollama) for tests that are not
// written in Go: browser tests start it, read the address it prints, and drive it through its
// /_fake endpoints.
//
//	fake-ollama [--listen 127.0.0.1:0] [--script script.json]
//
// Once it accepts connections it prints exactly one line, "listening on http://HOST:PORT", and it
// serves until SIGINT or SIGTERM. To simulate Ollama restarting, stop it and start it again with
// --listen set to the address it printed.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"gantry/internal/llm/fakeollama"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on; port 0 picks a free one")
	scriptPath := flag.String("script", "", "JSON file with the initial fakeollama.Script")
	flag.Parse()

	if err := run(*listen, *scriptPath); err != nil {
		fmt.Fprintln(os.Stderr, "fake-ollama:", err)
		os.Exit(1)
	}
}

func run(listen, scriptPath string) error {
	var script fakeollama.Script
	if scriptPath != "" {
		b, err := os.ReadFile(scriptPath)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &script); err != nil {
			return fmt.Errorf("%s: %w", scriptPath, err)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	srv := fakeollama.New(script)
	if err := srv.Start(listen); err != nil {
		return err
	}
	fmt.Println("listening on " + srv.URL())

	<-ctx.Done()
	return srv.Close()
}
