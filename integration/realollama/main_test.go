//go:build realollama

package realollama

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"gantry/internal/store"
)

// shared is the server most tests use; fault tests start their own. setupErr explains why there
// is none (every test then skips with it, so the reason shows in the report).
var (
	shared    *Server
	gantryBin string
	setupErr  error
)

func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "gantry-realollama-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	setupErr = setup(tmp)
	code := m.Run()
	if shared != nil {
		if err := shared.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	_ = os.RemoveAll(tmp)
	os.Exit(code)
}

func setup(tmp string) error {
	bin, err := Binary()
	if err != nil {
		return err
	}
	if gantryBin = os.Getenv("GANTRY_BIN"); gantryBin == "" {
		gantryBin = filepath.Join(tmp, "gantry")
		build := exec.Command("go", "build", "-o", gantryBin, "gantry")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("building gantry: %w: %s", err, out)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	shared, err = startWithModels(ctx, bin, filepath.Join(tmp, "models"))
	return err
}

func startWithModels(ctx context.Context, bin, models string) (*Server, error) {
	gguf, err := GGUF()
	if err != nil {
		return nil, err
	}
	s, err := Start(ctx, bin, models)
	if err != nil {
		return nil, err
	}
	if err := s.CreateAll(ctx, gguf); err != nil {
		return nil, errors.Join(err, s.Stop())
	}
	return s, nil
}

// server is the shared server, or a skip with the reason it could not start.
func server(t *testing.T) *Server {
	t.Helper()
	if setupErr != nil {
		t.Skip("real Ollama unavailable: " + setupErr.Error())
	}
	return shared
}

// ownServer is a server for this test alone (faults kill it), with the suite's models.
func ownServer(t *testing.T) *Server {
	t.Helper()
	server(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := startWithModels(ctx, shared.Bin, t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Stop()) })
	return s
}

// headless is one `gantry run`, its JSON lines and how it ended.
type headless struct {
	code   int
	lines  []map[string]any
	stderr string
}

func (h headless) final() map[string]any {
	if len(h.lines) == 0 {
		return nil
	}
	return h.lines[len(h.lines)-1]
}

// payloads are the payloads of the events of one type.
func (h headless) payloads(typ string) []map[string]any {
	var out []map[string]any
	for _, l := range h.lines {
		if l["type"] == typ {
			p, _ := l["payload"].(map[string]any)
			out = append(out, p)
		}
	}
	return out
}

// gantryDirs is a workspace and the data and config folders of one Gantry.
type gantryDirs struct{ workspace, data, config string }

func newGantryDirs(t *testing.T) gantryDirs {
	t.Helper()
	d := gantryDirs{workspace: t.TempDir(), data: t.TempDir(), config: t.TempDir()}
	require.NoError(t, os.WriteFile(filepath.Join(d.workspace, "README.md"), []byte("# Sample\n"), 0o644))
	return d
}

// gantryRun starts `gantry run` against host; onLine sees each JSON line as it arrives.
func gantryRun(t *testing.T, host string, d gantryDirs, model, task string, onLine func(map[string]any)) headless {
	t.Helper()
	// A hang guard only: a run on the real model that takes under a second on an idle machine
	// took half a minute with both cores busy elsewhere (llama.cpp's threads spin waiting for
	// each other).
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, gantryBin, "run", "--workspace", d.workspace, "--data-dir", d.data,
		"--config-dir", d.config, "--model", model, task)
	cmd.Env = append(os.Environ(), "OLLAMA_HOST="+host)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())

	var res headless
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var line map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line), "every stdout line is JSON: %s", sc.Text())
		res.lines = append(res.lines, line)
		if onLine != nil {
			onLine(line)
		}
	}
	_, _ = io.Copy(io.Discard, stdout)
	err = cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		res.code = exit.ExitCode()
	} else {
		require.NoError(t, err)
	}
	res.stderr = stderr.String()
	require.NoError(t, ctx.Err(), "gantry run did not finish in time")
	return res
}

// storedMessages reads what a Gantry data folder holds for the workspace, oldest session first.
func storedMessages(t *testing.T, d gantryDirs) []store.Message {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, d.data)
	require.NoError(t, err)
	defer db.Close()
	sessions, err := db.ListSessions(ctx, d.workspace)
	require.NoError(t, err)
	var out []store.Message
	for i := len(sessions) - 1; i >= 0; i-- {
		msgs, err := db.Messages(ctx, sessions[i].ID)
		require.NoError(t, err)
		out = append(out, msgs...)
	}
	return out
}
