package safety

import (
	"path"
	"strings"
)

// secretPlace is a file or directory that holds credentials. A model that reads one can
// repeat it in its answer or send it on in a later command, so reading it is never routine.
type secretPlace struct {
	parts []string // path components, relative to a home directory or to /
	what  string   // how the approval card names it: "your SSH private keys"
}

func places(what string, paths ...string) []secretPlace {
	out := make([]secretPlace, len(paths))
	for i, p := range paths {
		out[i] = secretPlace{strings.Split(p, "/"), what}
	}
	return out
}

const browserProfile = "your browser profile (cookies and saved passwords)"

// homeSecrets are relative to any home directory: ~, /home/alice, /Users/alice, /root.
var homeSecrets = join(
	places("your SSH private keys", ".ssh"),
	places("your AWS credentials", ".aws"),
	places("your Azure credentials", ".azure"),
	places("your Google Cloud credentials", ".config/gcloud"),
	places("your Kubernetes credentials", ".kube"),
	places("your Docker registry credentials", ".docker/config.json"),
	places("your saved network passwords (.netrc)", ".netrc", "_netrc"),
	places("your npm token", ".npmrc"),
	places("your PyPI token", ".pypirc"),
	places("your RubyGems key", ".gem/credentials"),
	places("your crates.io token", ".cargo/credentials", ".cargo/credentials.toml"),
	places("your saved Git passwords", ".git-credentials", ".config/git/credentials"),
	places("your GitHub CLI token", ".config/gh"),
	places("your GnuPG private keys", ".gnupg"),
	places("your password store", ".password-store"),
	places("your Vault token", ".vault-token"),
	places("your Terraform token", ".terraform.d/credentials.tfrc.json"),
	places("your 1Password CLI session", ".config/op"),
	places("your keyring", ".local/share/keyrings", "Library/Keychains"),
	places(browserProfile, ".mozilla", ".config/google-chrome", ".config/chromium",
		".config/BraveSoftware", ".config/microsoft-edge", "snap/firefox",
		"Library/Application Support/Google/Chrome", "Library/Application Support/Firefox",
		"Library/Application Support/BraveSoftware", "Library/Cookies", "Library/Safari"),
	places("your command history (it may hold passwords)", ".bash_history", ".zsh_history",
		".python_history", ".psql_history", ".mysql_history"),
)

// systemSecrets are absolute, without the leading slash.
var systemSecrets = join(
	places("the system's password hashes", "etc/shadow", "etc/shadow-", "etc/gshadow",
		"etc/master.passwd", "etc/security/opasswd"),
	places("the sudo configuration", "etc/sudoers", "etc/sudoers.d"),
	places("mounted service secrets", "var/run/secrets", "run/secrets"),
	places("root's home directory", "root"),
)

func join(lists ...[]secretPlace) []secretPlace {
	var out []secretPlace
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// sshPublic are the files in ~/.ssh that hold nothing secret.
var sshPublic = map[string]bool{
	"known_hosts": true, "known_hosts.old": true, "config": true, "authorized_keys": true,
}

// keyFiles name private keys wherever they are; inside the project they are the project's
// own business (its file rules ask before edits), outside it they are somebody's keys.
var keyFiles = map[string]string{
	"id_rsa": "an SSH private key", "id_dsa": "an SSH private key", "id_ecdsa": "an SSH private key",
	"id_ed25519": "an SSH private key", "id_ecdsa_sk": "an SSH private key",
	"id_ed25519_sk": "an SSH private key",
}

var keySuffixes = map[string]string{
	".pem": "a private key or certificate", ".key": "a private key", ".p12": "a key store",
	".pfx": "a key store", ".jks": "a key store", ".keystore": "a key store",
	".ppk": "a PuTTY private key", ".kdbx": "a password database",
}

// componentMatches compares one path component with a secret's, letting globs and braces
// stand for what they would expand to (~/.s*/id_* and ~/.{ssh,aws} name secrets too).
// macOS file systems ignore case, so ~/.SSH is ~/.ssh.
func componentMatches(got, want string) bool {
	if strings.EqualFold(got, want) {
		return true
	}
	if !isPattern(got) {
		return false
	}
	for _, alt := range braceAlternatives(got) {
		if strings.HasPrefix(want, ".") && !strings.HasPrefix(alt, ".") {
			continue // a glob does not match a leading dot
		}
		if ok, err := path.Match(strings.ToLower(alt), strings.ToLower(want)); ok && err == nil {
			return true
		}
	}
	return false
}

// maxBraceAlternatives bounds brace expansion; a component with more is judged by its
// first ones.
const maxBraceAlternatives = 16

// braceAlternatives expands the first {a,b} group of a component, one level deep.
func braceAlternatives(s string) []string {
	open := strings.IndexByte(s, '{')
	if open < 0 {
		return []string{s}
	}
	end := strings.IndexByte(s[open:], '}')
	if end < 0 {
		return []string{s}
	}
	end += open
	var out []string
	for _, alt := range strings.Split(s[open+1:end], ",") {
		if len(out) == maxBraceAlternatives {
			break
		}
		out = append(out, s[:open]+alt+s[end+1:])
	}
	return out
}

// anything reports whether a component stands for any path below: find's {} or **.
func anything(c string) bool { return c == "{}" || c == "**" }

// placeMatch reports whether comps lies at or below place (inside), or whether place lies
// below comps (ancestor: reading comps recursively reads place too).
func placeMatch(comps, place []string) (inside, ancestor bool) {
	for i, want := range place {
		if i == len(comps) {
			return false, true
		}
		if anything(comps[i]) {
			return true, false
		}
		if !componentMatches(comps[i], want) {
			return false, false
		}
	}
	return true, false
}

// secretIn finds the secret place comps reaches among list; recursive readers also reach
// the places below comps.
func secretIn(comps []string, list []secretPlace, recursive bool) (what string, below bool) {
	for _, p := range list {
		inside, ancestor := placeMatch(comps, p.parts)
		if inside && !(p.parts[0] == ".ssh" && sshPublicFile(comps)) {
			return p.what, false
		}
		if ancestor && recursive {
			return p.what, true
		}
	}
	return "", false
}

// sshPublicFile reports whether comps (from .ssh on) names a file in ~/.ssh that is not
// secret; ~/.ssh itself and globs in it still count as the keys.
func sshPublicFile(comps []string) bool {
	if len(comps) != 2 || isPattern(comps[1]) {
		return false
	}
	return sshPublic[comps[1]] || strings.HasSuffix(comps[1], ".pub")
}

// homeRest splits an absolute path into the part below a home directory, if it is in one.
// home is true for the home directory itself or anything that matches all homes (/home/*).
func homeRest(comps []string) (rest []string, inHome bool) {
	switch {
	case len(comps) >= 2 && (componentMatches(comps[0], "home") || componentMatches(comps[0], "Users")):
		return comps[2:], true
	case len(comps) >= 1 && comps[0] == "root":
		return comps[1:], true
	}
	return nil, false
}

// keyFile names a private key by its file name.
func keyFile(base string) string {
	if what, ok := keyFiles[base]; ok {
		return what
	}
	if isPattern(base) {
		for name, what := range keyFiles {
			if componentMatches(base, name) {
				return what
			}
		}
	}
	if what, ok := keySuffixes[path.Ext(base)]; ok {
		return what
	}
	if isEnvFile(base) {
		return "an environment file (it may hold secrets)"
	}
	return ""
}

// secretAt names the secret an absolute, cleaned path reaches, or "". A recursive read of
// a directory above secrets (tar ~, grep -r x /) reaches them as well.
func secretAt(p string, recursive bool) string {
	comps := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if p == "/" {
		comps = nil
	}
	if rest, ok := homeRest(comps); ok {
		if what, below := secretIn(rest, homeSecrets, recursive); what != "" {
			return everythingUnder(p, what, below)
		}
		if len(rest) == 0 && recursive {
			return everythingUnder(p, "your keys and credentials", true)
		}
	}
	if recursive && (len(comps) == 0 || len(comps) == 1 && isHomesDir(comps[0])) {
		return everythingUnder(p, "everyone's keys and credentials", true)
	}
	if what, below := secretIn(comps, systemSecrets, recursive); what != "" {
		return everythingUnder(p, what, below)
	}
	if len(comps) == 3 && comps[0] == "proc" && comps[2] == "environ" {
		return "the environment of a process (it may hold tokens)"
	}
	if len(comps) > 0 {
		if base := comps[len(comps)-1]; strings.HasPrefix(base, "ssh_host_") && strings.HasSuffix(base, "_key") {
			return "the machine's SSH host keys"
		}
		return keyFile(comps[len(comps)-1])
	}
	return ""
}

func isHomesDir(c string) bool {
	return componentMatches(c, "home") || componentMatches(c, "Users") || isPattern(c)
}

func everythingUnder(p, what string, below bool) string {
	if !below {
		return what
	}
	if strings.HasPrefix(p, homeDir) {
		p = "~" + strings.TrimPrefix(p, homeDir)
	}
	return "everything under " + p + ", including " + what
}

// secretBelowUnknown names the home secret a path reaches when its start is only known at
// run time ("$DIR/.ssh/id_rsa"): any of its tails may sit in a home directory.
func secretBelowUnknown(text string) string {
	comps := strings.Split(text, "/")
	for i := 1; i < len(comps); i++ {
		if what, _ := secretIn(comps[i:], homeSecrets, false); what != "" {
			return what
		}
	}
	return ""
}

// readTarget is what reading one path operand amounts to.
type readTarget struct {
	secret  string // the secret it reaches, "" for none
	outside bool   // it lies outside the workspace
	exposed string // a project file that is a secret only when sent away (.env)
}

// judgeRead rates reading x from cwd ("" is the workspace root, where relative paths stay
// inside; after cd ~ they do not).
func judgeRead(x arg, cwd string, recursive bool) readTarget {
	t := x.text
	if !x.static {
		return readTarget{secret: secretBelowUnknown(t)}
	}
	if t == "" || t == "-" || strings.ContainsRune(t, '\n') {
		return readTarget{}
	}
	p := canonical(atDir(cwd, x).text)
	switch {
	case strings.HasPrefix(p, "/"):
		if dev, ok := strings.CutPrefix(p, "/dev/"); ok && classifyDevice(dev).sev == SeverityNone {
			return readTarget{}
		}
		return readTarget{secret: secretAt(p, recursive), outside: true}
	case p == ".." || strings.HasPrefix(p, "../"):
		// Climbing out of a project usually lands in a home directory: ../.ssh is ~/.ssh
		// for a project in ~.
		comps := strings.Split(p, "/")
		for len(comps) > 0 && comps[0] == ".." {
			comps = comps[1:]
		}
		what, below := secretIn(comps, homeSecrets, recursive)
		if what == "" && len(comps) > 0 {
			what = keyFile(comps[len(comps)-1])
		}
		if what != "" {
			what = everythingUnder(p, what, below)
		}
		return readTarget{secret: what, outside: true}
	}
	if isEnvFile(path.Base(p)) {
		return readTarget{exposed: p + " (an environment file)"}
	}
	return readTarget{}
}
