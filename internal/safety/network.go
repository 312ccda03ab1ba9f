package safety

import (
	"net"
	"net/url"
	"strings"
)

// Sending data out is judged apart from fetching it: an upload, a raw socket or a copy to
// another machine can carry anything the command read, so each is at least high, and
// critical when the same command reads a secret (see analyzer.exfiltration).

var rawSocket = finding{SeverityHigh, "opens a raw network connection that can send anything"}

// talksToNetwork reports whether c reaches another machine, whatever it sends.
func talksToNetwork(c command) bool {
	switch c.name {
	case "curl", "wget", "fetch", "aria2c", "http", "https", "xh", "nc", "ncat", "netcat",
		"socat", "telnet", "ssh", "sftp", "ftp":
		return true
	case "git":
		// Only for pairing with a secret: a plain push keeps its own rating (gitrules.go).
		if args := gitGlobal.skip(c.args); len(args) > 0 {
			return args[0].text == "push" || args[0].text == "send-email"
		}
	case "scp", "rsync":
		for _, op := range operands(c.args) {
			if isRemote(op) {
				return true
			}
		}
	}
	return false
}

// httpClientOptions are the options of curl, wget and HTTPie that take a value, so that what
// is left are the URLs. A flag missing here makes its value look like a URL that is not
// loopback, which only keeps a command rated as if it went elsewhere.
var httpClientOptions = map[string]options{
	"curl": {short: "AbcCdDeEFHKmoQrtTuUwxXYyz", long: []string{
		"data", "data-raw", "data-binary", "data-urlencode", "data-ascii", "json", "form", "form-string",
		"header", "output", "user-agent", "request", "user", "referer", "cookie", "cookie-jar",
		"max-time", "connect-timeout", "retry", "retry-delay", "retry-max-time", "write-out",
		"upload-file", "range", "cacert", "cert", "key", "config", "dump-header", "proxy",
		"proxy-user", "resolve", "connect-to", "limit-rate", "max-filesize", "output-dir",
	}},
	"wget": {short: "oaOPTtwQeUlDRAIXhB", long: []string{
		"output-file", "append-output", "output-document", "directory-prefix", "timeout",
		"tries", "wait", "user-agent", "header", "post-data", "post-file", "body-data",
		"body-file", "method", "user", "password", "load-cookies", "save-cookies",
	}},
	"http": {long: []string{"auth", "session", "session-read-only", "output", "verify", "cert", "cert-key", "proxy", "timeout"}},
}

// loopbackOnly reports whether an HTTP client command goes to this machine only: every URL
// it is given names localhost or a loopback address. Anything it cannot tell (a variable, a
// flag's value taken for a URL) counts as elsewhere.
func loopbackOnly(c command) bool {
	name := c.name
	if name == "https" || name == "xh" {
		name = "http"
	}
	opts, ok := httpClientOptions[name]
	if !ok || redirected(name, c.args) {
		return false
	}
	ops := opts.operands(c.args)
	if name == "http" {
		method, _ := httpieItems(c)
		if method != "" && len(ops) > 0 {
			ops = ops[1:]
		}
		ops = ops[:min(len(ops), 1)] // the URL; request items follow it
	}
	if v, ok := optionValue(c.args, "--url", "--url"); ok {
		ops = append(ops, v)
	}
	if len(ops) == 0 {
		return false
	}
	for _, op := range ops {
		if !op.static || !isLoopbackURL(op.text) {
			return false
		}
	}
	return true
}

// redirected reports whether an HTTP client is told to go elsewhere than its URLs say, or
// to read where from a file: a proxy, curl's --resolve and --connect-to, a config file,
// wget's -e (any wgetrc command) and input file.
func redirected(name string, args []arg) bool {
	var short string
	var long []string
	switch name {
	case "curl":
		short, long = "xK", []string{"proxy", "preproxy", "socks4", "socks4a", "socks5", "socks5-hostname", "resolve", "connect-to", "config", "doh-url", "unix-socket", "abstract-unix-socket"}
	case "wget":
		short, long = "ei", []string{"execute", "input-file", "config", "proxy"}
	case "http":
		long = []string{"proxy"}
	}
	for i := 0; i < len(short); i++ {
		if hasShortFlag(args, short[i]) {
			return true
		}
	}
	for _, l := range long {
		if hasLongFlag(args, l) {
			return true
		}
	}
	return false
}

// isLoopbackURL reports whether u (http://localhost:3000/x, 127.0.0.1:8080, [::1]:80,
// :3000 as HTTPie writes it) names this machine.
func isLoopbackURL(u string) bool {
	if strings.HasPrefix(u, ":") { // HTTPie's shorthand for localhost
		return true
	}
	if !strings.Contains(u, "://") {
		u = "http://" + u
	}
	parsed, err := url.Parse(u)
	if err != nil {
		return false
	}
	host := strings.ToLower(parsed.Hostname())
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}

// isRemote reports whether an scp or rsync operand names another machine: host:path,
// user@host:path, rsync://host/path. A single letter before the colon is a drive (C:).
func isRemote(a arg) bool {
	t := a.text
	if strings.HasPrefix(t, "rsync://") || strings.HasPrefix(t, "scp://") {
		return true
	}
	i := strings.IndexByte(t, ':')
	return i > 1 && !strings.Contains(t[:i], "/")
}

// copyToRemote rates scp and rsync by direction: the last operand is the destination.
func copyToRemote(c command, local finding) finding {
	ops := operands(c.args)
	switch {
	case len(ops) > 1 && isRemote(ops[len(ops)-1]):
		return finding{SeverityHigh, "copies files to another machine"}
	case len(ops) > 1 && isRemote(ops[0]):
		return finding{SeverityMedium, "copies files from another machine"}.worse(local)
	}
	return local
}

func ruleScp(c command) finding {
	return copyToRemote(c, finding{SeverityMedium, "copies files"}.worse(ruleWritesLast(c)))
}

func ruleRsync(c command) finding {
	local := finding{SeverityMedium, "copies files"}
	if hasLongFlag(c.args, "delete") {
		local = finding{SeverityMedium, "syncs files and deletes extra ones"}
	}
	return copyToRemote(c, local.worse(ruleWritesLast(c)))
}

// ruleSsh: a remote command is code run on another machine with whatever it is given; a
// bare ssh opens a session (or a tunnel).
func ruleSsh(c command) finding {
	ops := sshOptions.skip(c.args)
	switch {
	case len(ops) > 1:
		return finding{SeverityHigh, "runs commands on another machine"}
	case len(ops) == 1:
		return finding{SeverityMedium, "opens a connection to another machine"}
	}
	return noFinding
}

// ruleNetcat: -e and -c hand a program to whoever connects, which is a remote shell; -z
// only checks that a port is open and sends nothing.
func ruleNetcat(c command) finding {
	switch {
	case hasShortFlag(c.args, 'e') || hasShortFlag(c.args, 'c'):
		return finding{SeverityHigh, "connects a program to the network"}
	case hasShortFlag(c.args, 'z'):
		return finding{SeverityMedium, "checks whether a network port is open"}
	}
	return rawSocket
}

// sendsData reports whether curl or wget sends a body or a file rather than only fetching.
func sendsData(c command) bool {
	if c.name == "curl" && (hasShortFlag(c.args, 'd') || hasShortFlag(c.args, 'F') || hasShortFlag(c.args, 'T')) {
		return true
	}
	for _, x := range c.args {
		name, _, _ := strings.Cut(x.text, "=")
		switch {
		case name == "--upload-file" || isDataFlag(name):
			return true
		case strings.HasPrefix(name, "--post-") || strings.HasPrefix(name, "--body-"):
			return true
		}
	}
	return false
}

// ruleDownload rates fetching from the network, sending to it, and where a downloaded file
// lands when the output flag names a place.
func ruleDownload(short, long string) rule {
	return func(c command) finding {
		f := finding{SeverityMedium, "downloads from the network"}
		if sendsData(c) {
			f = finding{SeverityHigh, "sends data to a server"}
		}
		for i, a := range c.args {
			if i+1 < len(c.args) && (a.text == "-"+short || a.text == "--"+long) {
				f = f.worse(classifyWrite(c.at(c.args[i+1])))
			}
		}
		return f
	}
}

// httpMethods that send a body.
var httpMethods = map[string]bool{"POST": true, "PUT": true, "PATCH": true}

// ruleHttpie: HTTPie sends a body when given a method that has one or request items after
// the URL (field=value, field:=json, field@file).
func ruleHttpie(c command) finding {
	method, items := httpieItems(c)
	if httpMethods[strings.ToUpper(method)] || len(items) > 0 {
		return finding{SeverityHigh, "sends data to a server"}
	}
	return finding{SeverityMedium, "downloads from the network"}
}

// httpieItems splits HTTPie's operands into the optional method and the request items that
// send data; headers (Name:value) and query parameters (name==value) send nothing.
func httpieItems(c command) (method string, items []arg) {
	ops := operands(c.args)
	if len(ops) > 1 && strings.ToUpper(ops[0].text) == ops[0].text && !strings.ContainsAny(ops[0].text, ":/.") {
		method, ops = ops[0].text, ops[1:]
	}
	if len(ops) == 0 {
		return method, nil
	}
	for _, op := range ops[1:] {
		t := op.text
		if strings.Contains(t, "==") {
			continue
		}
		if i := strings.IndexAny(t, "=@"); i >= 0 && !strings.Contains(t[:i], ":") || strings.Contains(t, ":=") {
			items = append(items, op)
		}
	}
	return method, items
}
