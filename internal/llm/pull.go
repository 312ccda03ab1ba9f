package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/ollama/ollama/api"
)

// PullProgress is one line of Ollama's /api/pull stream. Completed and Total are the bytes of
// the layer being downloaded (Digest); they are 0 while Ollama does something else
// ("pulling manifest", "verifying sha256 digest", "writing manifest").
type PullProgress struct {
	Status    string `json:"status"`
	Digest    string `json:"digest"`
	Completed int64  `json:"completed"`
	Total     int64  `json:"total"`
}

// ErrUnknownModel is a pull of a name the registry does not have.
var ErrUnknownModel = errors.New("no such model in the Ollama library")

// PullName is the model name a person typed, trimmed, or why it cannot be one.
func PullName(typed string) (string, error) {
	model := strings.TrimSpace(typed)
	if model == "" {
		return "", errors.New("type the name of a model to download, e.g. qwen3:4b")
	}
	if strings.ContainsAny(model, " \t\n") {
		return "", errors.New("a model name has no spaces; names look like qwen3:4b")
	}
	return model, nil
}

// Pull downloads model onto the server at base, calling progress for every line Ollama sends.
// It returns nil once Ollama said "success"; ctx cancels the download (Ollama keeps the layers
// it finished, so pulling again resumes). The errors are worded for the person who typed the
// name: an unknown model wraps ErrUnknownModel, an unreachable server ErrUnreachable.
func Pull(ctx context.Context, base *url.URL, model string, progress func(PullProgress)) error {
	model, err := PullName(model)
	if err != nil {
		return err
	}
	client := api.NewClient(base, http.DefaultClient)
	succeeded := false
	err = client.Pull(ctx, &api.PullRequest{Model: model}, func(p api.ProgressResponse) error {
		succeeded = p.Status == "success"
		progress(PullProgress{Status: p.Status, Digest: p.Digest, Completed: p.Completed, Total: p.Total})
		return nil
	})
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return pullError(base, model, err)
	case !succeeded:
		return fmt.Errorf("downloading %s: %w", model, ErrStreamCut)
	}
	return nil
}

// pullError words what Ollama or the connection said about a failed pull.
func pullError(base *url.URL, model string, err error) error {
	var (
		statusErr api.StatusError
		urlErr    *url.Error
	)
	msg := err.Error()
	if errors.As(err, &statusErr) {
		msg = statusErr.ErrorMessage
	}
	lower := strings.ToLower(msg)
	switch {
	case errors.As(err, &urlErr):
		return &unreachableError{host: base.Host, err: err}
	case strings.Contains(lower, "file does not exist") || strings.Contains(lower, "not found") ||
		strings.Contains(lower, "manifest unknown"):
		return &unknownModelError{model: model}
	case strings.Contains(lower, "invalid model name"):
		return fmt.Errorf("%q is not a valid model name; names look like qwen3:4b or library/llama3.2:latest", model)
	case errors.As(err, &statusErr):
		return &HTTPError{Status: statusErr.StatusCode, Message: statusErr.ErrorMessage}
	}
	return fmt.Errorf("downloading %s failed: %s", model, msg)
}

// unknownModelError reads as a plain sentence and still matches ErrUnknownModel.
type unknownModelError struct{ model string }

func (e *unknownModelError) Error() string {
	return fmt.Sprintf("Ollama could not find a model named %q. Check the spelling and the tag "+
		"(for example qwen3:4b) on ollama.com/library.", e.model)
}

func (e *unknownModelError) Is(target error) bool { return target == ErrUnknownModel }
