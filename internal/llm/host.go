package llm

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// ResolveHost returns the Ollama base URL: the setting when non-empty, else $OLLAMA_HOST, else
// http://127.0.0.1:11434. Values are parsed exactly the way Ollama's envconfig.Host() parses
// OLLAMA_HOST, so Gantry talks to the same server the `ollama` CLI would. Unlike Ollama, a value
// that cannot name an HTTP server (unsupported scheme, illegal characters) is an error instead of
// a URL that fails later with a confusing message.
func ResolveHost(setting string) (*url.URL, error) {
	source, raw := "the Ollama host setting", trimValue(setting)
	if raw == "" {
		source, raw = "OLLAMA_HOST", trimValue(os.Getenv("OLLAMA_HOST"))
	}

	u := parseHost(raw)
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%s %q uses the scheme %q; use http:// or https://", source, raw, u.Scheme)
	}
	// parseHost builds the URL from parts without validating them; parsing the unescaped host
	// catches names no HTTP client can dial, with url's own wording of what is wrong.
	if _, err := url.Parse(u.Scheme + "://" + u.Host); err != nil {
		var urlErr *url.Error
		if errors.As(err, &urlErr) {
			err = urlErr.Err
		}
		return nil, fmt.Errorf("%s %q is not a valid address: %w", source, raw, err)
	}
	return u, nil
}

// trimValue mirrors envconfig.Var, which strips spaces and quotes that shells and .env files leave.
func trimValue(s string) string {
	return strings.Trim(strings.TrimSpace(s), "\"'")
}

// parseHost is envconfig.Host() from Ollama v0.17.4 with the environment lookup factored out.
// Keep it in step with upstream: host_test.go compares the two.
func parseHost(s string) *url.URL {
	defaultPort := "11434"

	s = strings.TrimSpace(s)
	scheme, hostport, ok := strings.Cut(s, "://")
	switch {
	case !ok:
		scheme, hostport = "http", s
		if s == "ollama.com" {
			scheme, hostport = "https", "ollama.com:443"
		}
	case scheme == "http":
		defaultPort = "80"
	case scheme == "https":
		defaultPort = "443"
	}

	hostport, path, _ := strings.Cut(hostport, "/")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = "127.0.0.1", defaultPort
		if ip := net.ParseIP(strings.Trim(hostport, "[]")); ip != nil {
			host = ip.String()
		} else if hostport != "" {
			host = hostport
		}
	}

	if n, err := strconv.ParseInt(port, 10, 32); err != nil || n > 65535 || n < 0 {
		port = defaultPort
	}

	return &url.URL{
		Scheme: scheme,
		Host:   net.JoinHostPort(host, port),
		Path:   path,
	}
}
