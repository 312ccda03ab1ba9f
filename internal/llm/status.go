package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// statusTimeout bounds a whole status check: the UI shows the result, so a dead or black-holed
// host must turn into an answer quickly.
const statusTimeout = 3 * time.Second

// Model is an installed model as the UI lists it.
type Model struct {
	Name          string    `json:"name"`
	Size          int64     `json:"size"`
	Family        string    `json:"family"`
	ParameterSize string    `json:"parameterSize"`
	Quantization  string    `json:"quantization"`
	ModifiedAt    time.Time `json:"modifiedAt"`
	Digest        string    `json:"digest"` // the installed version
}

// Status is what the UI shows about the Ollama server.
type Status struct {
	Host      string  `json:"host"` // the base URL checked
	Reachable bool    `json:"reachable"`
	Version   string  `json:"version"`
	Models    []Model `json:"models"` // sorted by name; never null in JSON
	// Error says in plain words what went wrong: why the server is not reachable, or, when it is,
	// why its models could not be listed.
	Error     string    `json:"error"`
	Hint      string    `json:"hint"` // what the user can do about Error
	CheckedAt time.Time `json:"checkedAt"`
}

// errNotOllama marks an answer that parsed but was not Ollama's, like a JSON API without "version".
var errNotOllama = errors.New("not an Ollama server")

// CheckStatus asks the server at base for its version and installed models. It gives up after
// statusTimeout and never returns an error: failures are described in the Status.
func CheckStatus(ctx context.Context, base *url.URL) Status {
	st := Status{Host: base.String(), Models: []Model{}, CheckedAt: time.Now()}
	ctx, cancel := context.WithTimeout(ctx, statusTimeout)
	defer cancel()
	client := api.NewClient(base, http.DefaultClient)

	version, err := client.Version(ctx)
	if err == nil && version == "" {
		err = errNotOllama
	}
	if err != nil {
		st.Error, st.Hint = explain(base, err)
		return st
	}
	st.Reachable, st.Version = true, version

	list, err := client.List(ctx)
	if err != nil {
		reason, hint := explain(base, err)
		st.Error, st.Hint = "Ollama is running but listing its models failed: "+reason, hint
		return st
	}
	for _, m := range list.Models {
		st.Models = append(st.Models, Model{
			Name:          m.Name,
			Size:          m.Size,
			Family:        m.Details.Family,
			ParameterSize: m.Details.ParameterSize,
			Quantization:  m.Details.QuantizationLevel,
			ModifiedAt:    m.ModifiedAt,
			Digest:        m.Digest,
		})
	}
	slices.SortFunc(st.Models, func(a, b Model) int { return strings.Compare(a.Name, b.Name) })
	return st
}

// explain turns a failed request into a reason and a hint a user can act on.
func explain(base *url.URL, err error) (reason, hint string) {
	addr := base.Host
	settings := "change the host in Settings."
	var (
		netErr    net.Error
		dnsErr    *net.DNSError
		opErr     *net.OpError
		statusErr api.StatusError
		syntaxErr *json.SyntaxError
		typeErr   *json.UnmarshalTypeError
	)
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout():
		reason = fmt.Sprintf("%s did not answer within %s", addr, statusTimeout)
		if isLocal(base) {
			return reason, "Ollama may be stuck loading a model; restart it, or " + settings
		}
		return reason, "Check that the machine is on and that no firewall blocks the port, or " + settings

	case errors.As(err, &dnsErr):
		return fmt.Sprintf("the host name %q could not be found", base.Hostname()),
			"Check the spelling of the host, or " + settings

	case errors.Is(err, http.ErrSchemeMismatch):
		return fmt.Sprintf("%s does not speak HTTPS", addr), "Use http:// instead of https:// in the host setting."

	case errors.As(err, &opErr) && opErr.Op == "dial":
		reason = fmt.Sprintf("cannot connect to %s: %s", addr, innermost(opErr.Err))
		if isLocal(base) {
			return reason, "Start Ollama with `ollama serve`, or " + settings
		}
		return reason, fmt.Sprintf("Start Ollama on %s with OLLAMA_HOST=0.0.0.0 so it accepts connections "+
			"from other computers, or %s", base.Hostname(), settings)

	case errors.As(err, &statusErr) && statusErr.StatusCode == http.StatusForbidden:
		// Ollama listening on loopback refuses Host headers that are not local names.
		return fmt.Sprintf("%s answered 403 Forbidden", addr),
			"Use 127.0.0.1 or localhost as the host in Settings; Ollama refuses other names unless it was " +
				"started with OLLAMA_HOST=0.0.0.0."

	case errors.As(err, &statusErr) && looksLikeOllamaError(statusErr):
		return fmt.Sprintf("Ollama answered %d %s: %s", statusErr.StatusCode,
				http.StatusText(statusErr.StatusCode), statusErr.ErrorMessage),
			"Ollama is running but failing; check its log or restart it."

	case errors.As(err, &statusErr) || errors.As(err, &syntaxErr) || errors.As(err, &typeErr) || errors.Is(err, errNotOllama):
		reason = fmt.Sprintf("%s answered, but it is not an Ollama server", addr)
		if statusErr.StatusCode != 0 {
			reason = fmt.Sprintf("%s answered %d %s; it is not an Ollama server", addr,
				statusErr.StatusCode, http.StatusText(statusErr.StatusCode))
		}
		return reason, "Another program is using that address. Check the host and port in Settings " +
			"(Ollama listens on 127.0.0.1:11434 unless told otherwise)."

	default:
		return err.Error(), "Check that Ollama is running, or " + settings
	}
}

// looksLikeOllamaError tells Ollama's own {"error": …} answers from other servers' error pages,
// which api.Client passes on as the raw body: HTML, nothing, or text ending in a newline as
// net/http's http.Error writes it. Ollama serves every /api route, so a 404 or 405 comes from
// something else.
func looksLikeOllamaError(e api.StatusError) bool {
	msg := e.ErrorMessage
	return e.StatusCode != http.StatusNotFound && e.StatusCode != http.StatusMethodNotAllowed &&
		strings.TrimSpace(msg) != "" && !strings.HasPrefix(strings.TrimSpace(msg), "<") && !strings.HasSuffix(msg, "\n")
}

// innermost is the root cause, e.g. "connection refused" without the "dial tcp …:" framing.
func innermost(err error) error {
	for next := errors.Unwrap(err); next != nil; next = errors.Unwrap(err) {
		err = next
	}
	return err
}

func isLocal(base *url.URL) bool {
	host := base.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}
