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

var (
	// ErrUnreachable matches (errors.Is) any failure to talk to the server at all; the error also
	// wraps the transport error and names the host.
	ErrUnreachable = errors.New("Ollama is not reachable")
	// ErrCannotChat is a model that exists but cannot generate text, like an embedding model.
	ErrCannotChat = errors.New("this model cannot chat")
	// ErrStreamCut is a reply whose stream ended without Ollama's final message: the server
	// crashed, was stopped, or the connection dropped.
	ErrStreamCut = errors.New("Ollama stopped answering in the middle of the reply")
)

// unreachableError keeps the host for the message and both ErrUnreachable and the cause for
// errors.Is/As.
type unreachableError struct {
	host string
	err  error
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("%s at %s (%v); is Ollama running? start it with `ollama serve`",
		ErrUnreachable, e.host, innermost(e.err))
}

func (e *unreachableError) Unwrap() []error { return []error{ErrUnreachable, e.err} }

// ModelNotFoundError is a model name the server does not have.
type ModelNotFoundError struct {
	Name      string
	Installed []string // what the server has, to pick from; nil when listing failed too
}

func (e *ModelNotFoundError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the model %q is not installed in Ollama", e.Name)
	if e.Installed != nil {
		if len(e.Installed) == 0 {
			b.WriteString("; no models are installed")
		} else {
			fmt.Fprintf(&b, "; installed models: %s", strings.Join(e.Installed, ", "))
		}
	}
	fmt.Fprintf(&b, ". Download it with `ollama pull %s`", e.Name)
	return b.String()
}

// HTTPError is any other error status from Ollama, with the message it gave.
type HTTPError struct {
	Status  int
	Message string
}

func (e *HTTPError) Error() string {
	msg := fmt.Sprintf("Ollama answered %d %s", e.Status, http.StatusText(e.Status))
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// Retryable reports a server-side failure that may go away, such as a model failing to load.
func (e *HTTPError) Retryable() bool { return e.Status >= http.StatusInternalServerError }

// classifyError turns what api.Client returns into the errors above; known is false, and err
// comes back as it was, for anything else. model names the model the request was about, so a 404
// can list the installed ones.
func (c *Client) classifyError(ctx context.Context, model string, err error) (classified error, known bool) {
	if ctx.Err() != nil {
		return ctx.Err(), true
	}
	var (
		statusErr api.StatusError
		authErr   api.AuthorizationError
		urlErr    *url.Error
	)
	switch {
	case errors.As(err, &statusErr) && statusErr.StatusCode == http.StatusNotFound && model != "":
		return &ModelNotFoundError{Name: model, Installed: c.installedNames(ctx)}, true
	case errors.As(err, &statusErr):
		return &HTTPError{Status: statusErr.StatusCode, Message: statusErr.ErrorMessage}, true
	case errors.As(err, &authErr):
		return &HTTPError{Status: authErr.StatusCode, Message: "Ollama asks to sign in"}, true
	case errors.As(err, &urlErr):
		// http.Client.Do wraps every transport failure (refused, DNS, TLS, reset) in *url.Error.
		return &unreachableError{host: c.base.Host, err: err}, true
	}
	return err, false
}

// installedNames is best effort: a failed listing leaves the not-found message without a list.
func (c *Client) installedNames(ctx context.Context) []string {
	list, err := c.api.List(ctx)
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		names = append(names, m.Name)
	}
	return names
}
