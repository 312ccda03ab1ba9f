// Package realollama starts a real Ollama server for the integration suite (its tests build only
// with the realollama tag; scripts/ollama-integration.sh runs them). The server binary is built
// once with `go install github.com/ollama/ollama@Version` into a cache folder outside the
// repository; each Server runs it on its own loopback port with its own model folder.
package realollama

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ollama/ollama/api"
)

// Version is the Ollama release the suite builds: newer ones need C headers a plain Debian
// machine does not have, and it predates thinking support, which the suite relies on.
const Version = "v0.6.5"

// Models the suite creates, all over the same tiny random-weight GGUF. Its random weights never
// choose the end-of-answer token (left alone it writes 10 × num_ctx tokens of gibberish, minutes
// of it), so each model bounds its answers: a stop sequence ends them with done_reason "stop"
// after a few dozen tokens, num_predict with "length".
const (
	ModelText  = "tiny-text:latest"  // no tools capability: the agent takes the text path
	ModelTools = "tiny-tools:latest" // TEMPLATE uses .Tools: the tools capability, the native path
	ModelShort = "tiny-short:latest" // num_predict 8 and no stop: every answer is cut
	ModelLong  = "tiny-long:latest"  // streams for many seconds: time to kill the server mid-answer
)

// Binary is the server binary: $GANTRY_OLLAMA_BIN, else the cache folder's. The error says how
// to build it.
func Binary() (string, error) {
	if bin := os.Getenv("GANTRY_OLLAMA_BIN"); bin != "" {
		return bin, executable(bin)
	}
	bin := filepath.Join(CacheDir(), "ollama")
	return bin, executable(bin)
}

// CacheDir is where `go install` puts the server: ${XDG_CACHE_HOME:-~/.cache}/gantry/ollama-<Version>.
func CacheDir() string {
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, _ := os.UserHomeDir()
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "gantry", "ollama-"+Version)
}

func executable(bin string) error {
	st, err := os.Stat(bin)
	if err == nil && (st.IsDir() || st.Mode()&0o111 == 0) {
		err = fmt.Errorf("%s is not an executable file", bin)
	}
	if err != nil {
		return fmt.Errorf("no Ollama server binary (%w); build it with "+
			"`GOBIN=%s go install github.com/ollama/ollama@%s` or run scripts/ollama-integration.sh",
			err, filepath.Dir(bin), Version)
	}
	return nil
}

// GGUF is the tiny random-weight model: $GANTRY_TEST_GGUF, else the copy in testdata/ that
// ships with the repository.
func GGUF() (string, error) {
	path := os.Getenv("GANTRY_TEST_GGUF")
	if path == "" {
		_, file, _, _ := runtime.Caller(0)
		path = filepath.Join(filepath.Dir(file), "testdata", "llama-2-tiny-random.gguf")
	}
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("the test model is missing (%w); set GANTRY_TEST_GGUF to llama-2-tiny-random.gguf", err)
	}
	return filepath.Abs(path)
}

// Modelfiles are the suite's models over gguf. A TEMPLATE mentioning .Tools is what gives a
// model the tools capability in /api/show. "q" is a stop sequence that random tokens reach after
// 10 to 200 of them; num_predict 1000 only guards against a long run of bad luck.
func Modelfiles(gguf string) map[string]string {
	const plain = `{{ if .System }}{{ .System }}
{{ end }}{{ range .Messages }}{{ .Role }}: {{ .Content }}
{{ end }}assistant: `
	const tools = `{{ if .System }}{{ .System }}
{{ end }}{{ if .Tools }}Tools: {{ range .Tools }}{{ .Function.Name }} {{ end }}
{{ end }}{{ range .Messages }}{{ .Role }}: {{ .Content }}
{{ end }}assistant: `
	file := func(template string, params ...string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "FROM %s\n", gguf)
		for _, p := range params {
			fmt.Fprintf(&b, "PARAMETER %s\n", p)
		}
		fmt.Fprintf(&b, "TEMPLATE \"\"\"%s\"\"\"\n", template)
		return b.String()
	}
	return map[string]string{
		ModelText:  file(plain, `stop "q"`, "num_predict 1000"),
		ModelTools: file(tools, `stop "q"`, "num_predict 1000"),
		ModelShort: file(plain, "num_predict 8"),
		ModelLong:  file(plain, "num_predict 20000"),
	}
}

// Server is one running `ollama serve`.
type Server struct {
	Bin    string
	Models string // OLLAMA_MODELS
	Addr   string // host:port it listens on, as OLLAMA_HOST takes it

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	log  *bytes.Buffer
}

// Start runs the server on a free loopback port with models (a folder) as its model store.
func Start(ctx context.Context, bin, models string) (*Server, error) {
	addr, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &Server{Bin: bin, Models: models, Addr: addr}
	return s, s.Restart(ctx)
}

func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// URL is the server's base URL.
func (s *Server) URL() *url.URL { return &url.URL{Scheme: "http", Host: s.Addr} }

// Env is the environment a client of this server runs with.
func (s *Server) Env() []string {
	return append(os.Environ(), "OLLAMA_HOST="+s.Addr, "OLLAMA_MODELS="+s.Models)
}

// Restart starts the server (again) on the same port and model folder, and waits until it answers.
func (s *Server) Restart(ctx context.Context) error {
	s.mu.Lock()
	if s.cmd != nil {
		s.mu.Unlock()
		return errors.New("the Ollama server is already running")
	}
	cmd := exec.Command(s.Bin, "serve")
	cmd.Env = append(s.Env(), "OLLAMA_NOPRUNE=1", "OLLAMA_KEEP_ALIVE=5m", "HOME="+s.Models)
	// Its own process group, so Kill also takes the model runner it starts; and killed with the
	// test binary if that dies first (a panic or go test's timeout skips every cleanup).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	s.log = &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		s.mu.Unlock()
		return fmt.Errorf("starting %s: %w", s.Bin, err)
	}
	done := make(chan struct{})
	s.cmd, s.done = cmd, done
	s.mu.Unlock()
	go func() {
		_ = cmd.Wait()
		close(done)
	}()

	client := api.NewClient(s.URL(), http.DefaultClient)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := client.Version(ctx); err == nil {
			return nil
		}
		select {
		case <-done:
			s.forget()
			return fmt.Errorf("the Ollama server exited at start: %s", s.Log())
		case <-ctx.Done():
			_ = s.Stop()
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = s.Stop()
			return fmt.Errorf("the Ollama server did not answer within 30s: %s", s.Log())
		}
	}
}

func (s *Server) forget() {
	s.mu.Lock()
	s.cmd, s.done = nil, nil
	s.mu.Unlock()
}

// Log is what the server wrote so far (for failure messages).
func (s *Server) Log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.log == nil {
		return ""
	}
	return s.log.String()
}

// Kill sends SIGKILL to the server and its runner and waits until the server is gone: a crash.
func (s *Server) Kill() error { return s.signal(syscall.SIGKILL, 0) }

// Stop asks the server to stop (SIGTERM), killing it after 5 s. It does nothing when stopped.
func (s *Server) Stop() error { return s.signal(syscall.SIGTERM, 5*time.Second) }

func (s *Server) signal(sig syscall.Signal, grace time.Duration) error {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.mu.Unlock()
	if cmd == nil {
		return nil
	}
	defer s.forget()
	pgid := cmd.Process.Pid
	_ = syscall.Kill(-pgid, sig)
	if grace > 0 {
		select {
		case <-done:
		case <-time.After(grace):
		}
	}
	// Whatever is left of the group (a runner that outlived the server) goes too.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	select {
	case <-done:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("the Ollama server (pid %d) did not exit", pgid)
	}
}

// Create makes a model from a Modelfile with the `ollama create` command, as a person would.
func (s *Server) Create(ctx context.Context, name, modelfile string) error {
	dir, err := os.MkdirTemp("", "gantry-modelfile-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "Modelfile")
	if err := os.WriteFile(path, []byte(modelfile), 0o644); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, s.Bin, "create", name, "-f", path)
	cmd.Env = append(s.Env(), "HOME="+s.Models)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("ollama create %s: %w: %s", name, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// CreateAll creates the suite's models (Modelfiles).
func (s *Server) CreateAll(ctx context.Context, gguf string) error {
	for name, mf := range Modelfiles(gguf) {
		if err := s.Create(ctx, name, mf); err != nil {
			return err
		}
	}
	return nil
}
