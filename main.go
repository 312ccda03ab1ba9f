// Gantry runs a coding agent on a local Ollama model against a project folder, with a person in
// control. With no subcommand it opens the desktop window; `gantry serve` shows the same app in a
// browser.
package main

import (
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"gantry/app"
	"gantry/internal/config"
	"gantry/internal/store"
)

//go:embed all:frontend/dist
var embedded embed.FS

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

const usage = `Gantry — a coding agent on your local Ollama model, with you in control.

Usage:
  gantry [flags]                         open the desktop window
  gantry serve --listen 127.0.0.1:PORT   serve the app to a browser on this machine
  gantry run --workspace DIR "task"      run the agent without a window (gantry run --help)
  gantry version                         print the version

Flags (all modes):
  --data-dir DIR     where gantry.db lives (default: <user data dir>/gantry)
  --config-dir DIR   where settings.json lives (default: <user config dir>/gantry)
`

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		code := 1
		var exit *exitCodeError
		if errors.As(err, &exit) {
			code = exit.code
		}
		if code != 0 {
			fmt.Fprintln(os.Stderr, "gantry:", err)
		}
		os.Exit(code)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "run" {
		return runHeadless(args[1:], stdout, stderr)
	}
	cmd := ""
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	fset := flag.NewFlagSet("gantry "+cmd, flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() { fmt.Fprint(stderr, usage) }
	dataDir := fset.String("data-dir", "", "")
	configDir := fset.String("config-dir", "", "")
	listen := fset.String("listen", "127.0.0.1:0", "")
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}

	switch cmd {
	case "version":
		fmt.Fprintln(stdout, "gantry", version)
		return nil
	case "", "serve":
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown command %q", cmd)
	}

	opts, err := appOptions(*dataDir, *configDir)
	if err != nil {
		return err
	}
	assets, err := fs.Sub(embedded, "frontend/dist")
	if err != nil {
		return err
	}
	if _, err := fs.Stat(assets, "index.html"); err != nil {
		return errors.New("this binary was built without the frontend; build it with `make build`")
	}
	if cmd == "serve" {
		return serve(assets, opts, *listen, stdout)
	}
	return runDesktop(assets, opts)
}

func appOptions(dataDir, configDir string) (app.Options, error) {
	var err error
	if dataDir == "" {
		if dataDir, err = store.DefaultDir(); err != nil {
			return app.Options{}, err
		}
	}
	settingsPath := filepath.Join(configDir, "settings.json")
	if configDir == "" {
		if settingsPath, err = config.DefaultPath(); err != nil {
			return app.Options{}, err
		}
	}
	return app.Options{DataDir: dataDir, SettingsPath: settingsPath, Version: version}, nil
}

func serve(assets fs.FS, opts app.Options, listen string, stdout io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts.Mode = app.ModeBrowser
	a, err := app.New(ctx, opts)
	if err != nil {
		return err
	}
	defer a.Shutdown()
	return a.Serve(ctx, app.ServeOptions{
		Listen: listen,
		Assets: assets,
		Ready:  func(url string) { fmt.Fprintf(stdout, "Gantry is ready at %s\n", url) },
	})
}
