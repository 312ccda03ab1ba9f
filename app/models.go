package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ollama/ollama/types/model"

	"gantry/internal/fsutil"
	"gantry/internal/llm"
)

// modelKeepAlive is how long a model warmed when a project opens (or checked when it is picked)
// stays loaded: long enough to type the first task, which Ollama's default of five minutes
// often is not.
const modelKeepAlive = 30 * time.Minute

// Warm loads the model in the background with the num_ctx its runs will use, so that the first
// task does not wait for the load; it returns at once. A failure is only logged: the run that
// needs the model will say what is wrong.
func (s *OllamaService) Warm(name string) error {
	client, err := s.client()
	if err != nil {
		return err
	}
	s.warming.Add(1)
	go func() {
		defer s.warming.Done()
		ctx, cancel := context.WithTimeout(s.ctx, modelKeepAlive)
		defer cancel()
		info, err := client.Model(ctx, name)
		if err == nil {
			err = client.Load(ctx, name, info.NumCtx(s.settings.Get().NumCtxCap), modelKeepAlive)
		}
		if err != nil && ctx.Err() == nil {
			slog.Info("warming the model", "model", name, "err", err)
		}
	}()
	return nil
}

// CheckTools says how the model really calls tools (llm.ToolCheck): from the check of its
// installed version when there is one, else by asking it once, which also loads it.
func (s *OllamaService) CheckTools(name string) (llm.ToolCheck, error) {
	client, err := s.client()
	if err != nil {
		return llm.ToolCheck{}, err
	}
	digest, err := s.digest(name)
	if err != nil {
		return llm.ToolCheck{}, err
	}
	return s.checks.get(s.ctx, digest, func(ctx context.Context) (llm.ToolCheck, error) {
		info, err := client.Model(ctx, name)
		if err != nil {
			return llm.ToolCheck{}, err
		}
		return client.CheckTools(ctx, info, digest, info.NumCtx(s.settings.Get().NumCtxCap), modelKeepAlive)
	})
}

// textTools reports whether the model's tool check found it writing its calls as text, though
// /api/show says it calls tools natively: its runs then take the text path. Only a check of
// the installed version counts; nothing is asked here.
func (s *OllamaService) textTools(name string) bool {
	for _, m := range s.Status().Models {
		if model.ParseName(m.Name).EqualFold(model.ParseName(name)) {
			check, ok := s.checks.cached(m.Digest)
			return ok && check.Declared && check.TextPath()
		}
	}
	return false
}

func (s *OllamaService) client() (*llm.Client, error) {
	base, err := llm.ResolveHost(s.settings.Get().OllamaHost)
	if err != nil {
		return nil, err
	}
	return llm.NewClient(base, http.DefaultClient), nil
}

// digest is the installed version of the model, from the server's listing.
func (s *OllamaService) digest(name string) (string, error) {
	st := s.Refresh()
	if !st.Reachable {
		return "", errors.New(st.Error + ". " + st.Hint)
	}
	for _, m := range st.Models {
		if model.ParseName(m.Name).EqualFold(model.ParseName(name)) {
			return m.Digest, nil
		}
	}
	return "", fmt.Errorf("the model %q is not installed in Ollama", name)
}

// toolChecks keeps the tool checks by model digest in a JSON file in the data folder, so that a
// model is checked once per version, and runs a check once however many ask for it at a time.
type toolChecks struct {
	path string

	mu      sync.Mutex
	byID    map[string]llm.ToolCheck
	running map[string]*pendingCheck
}

type pendingCheck struct {
	done  chan struct{}
	check llm.ToolCheck
	err   error
}

// openToolChecks reads the file; a missing or broken one is an empty cache (checks are only
// ever asked again).
func openToolChecks(path string) *toolChecks {
	c := &toolChecks{path: path, byID: map[string]llm.ToolCheck{}, running: map[string]*pendingCheck{}}
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &c.byID)
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		slog.Warn("tool checks", "path", path, "err", err)
		c.byID = map[string]llm.ToolCheck{}
	}
	return c
}

func (c *toolChecks) cached(digest string) (llm.ToolCheck, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	check, ok := c.byID[digest]
	return check, ok
}

// get returns the check of digest, running check when there is none; a failed check is not
// kept, so the next pick asks again.
func (c *toolChecks) get(ctx context.Context, digest string, check func(context.Context) (llm.ToolCheck, error)) (llm.ToolCheck, error) {
	c.mu.Lock()
	if got, ok := c.byID[digest]; ok {
		c.mu.Unlock()
		return got, nil
	}
	p, ok := c.running[digest]
	if !ok {
		p = &pendingCheck{done: make(chan struct{})}
		c.running[digest] = p
		go c.run(ctx, digest, p, check)
	}
	c.mu.Unlock()
	select {
	case <-p.done:
		return p.check, p.err
	case <-ctx.Done():
		return llm.ToolCheck{}, ctx.Err()
	}
}

func (c *toolChecks) run(ctx context.Context, digest string, p *pendingCheck, check func(context.Context) (llm.ToolCheck, error)) {
	p.check, p.err = check(ctx)
	c.mu.Lock()
	delete(c.running, digest)
	if p.err == nil {
		c.byID[digest] = p.check
		if err := c.saveLocked(); err != nil {
			slog.Warn("saving tool checks", "err", err)
		}
	}
	c.mu.Unlock()
	close(p.done)
}

func (c *toolChecks) saveLocked() error {
	b, err := json.MarshalIndent(c.byID, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return err
	}
	return fsutil.WriteFile(c.path, b)
}
