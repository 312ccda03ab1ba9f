package terminal

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Sandbox is how a session confines its commands (SPEC §7). The zero value runs them as the
// user, unconfined.
type Sandbox struct {
	// Enabled runs every command under bubblewrap: the whole filesystem read-only except the
	// workspace, a private /tmp, /dev and /proc, its own process namespace.
	Enabled bool
	// Network keeps the host's network; without it the command has only its own loopback.
	Network bool
}

// SandboxSupport says whether commands can be sandboxed on this machine, and why not.
type SandboxSupport struct {
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"` // for a person, with how to fix it
}

// sandboxInstallHint is the fix offered when bwrap is missing.
const sandboxInstallHint = "Install bubblewrap (sudo apt install bubblewrap) and restart Gantry."

// SandboxAvailable finds bwrap and checks, once per process, that it can set up a sandbox here:
// it may be installed yet refused user namespaces (a container, a kernel or AppArmor policy).
// The probe is one tiny sandbox, a few milliseconds.
var SandboxAvailable = sync.OnceValue(func() SandboxSupport {
	if runtime.GOOS != "linux" {
		return SandboxSupport{Reason: "The sandbox needs Linux (it uses bubblewrap)."}
	}
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return SandboxSupport{Reason: "bwrap is not installed. " + sandboxInstallHint}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	args := append([]string{path}, bwrapArgs(Sandbox{Enabled: true}, "/", "", "", "/")...)
	cmd := exec.CommandContext(ctx, args[0], append(args[1:], "true")...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		why := strings.TrimSpace(firstLineOf(stderr.String()))
		if why == "" {
			why = err.Error()
		}
		return SandboxSupport{Reason: fmt.Sprintf("bwrap is installed but cannot create a sandbox here (%s). User namespaces may be turned off on this system.", why)}
	}
	return SandboxSupport{Available: true}
})

var bwrapPath = sync.OnceValue(func() string {
	p, _ := exec.LookPath("bwrap")
	return p
})

// bwrapArgs are bwrap's options for a command confined by sb that runs in dir, with root (the
// workspace, symlinks resolved) and cache writable and cwdFile (the file the shell records its
// final directory in) bound through. Empty root, cache or cwdFile are left out. The command
// follows "--".
//
// Order matters: bwrap applies them in turn, so the private /tmp comes before the binds that
// may lie inside it (a workspace under /tmp, the cwd file).
func bwrapArgs(sb Sandbox, root, cache, cwdFile, dir string) []string {
	args := []string{
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		// Mounting a fresh /proc needs a process namespace of its own; it also means that the
		// sandbox ends, every process in it included, when its shell ends or bwrap is killed.
		"--unshare-pid", "--proc", "/proc",
		"--tmpfs", "/tmp",
	}
	if !sb.Network {
		// Without a network namespace a command could still reach host services through their
		// Unix sockets (the Docker daemon, the session bus); they live under /run.
		args = append(args, "--unshare-net")
		if fi, err := os.Lstat("/run"); err == nil && fi.IsDir() {
			args = append(args, "--tmpfs", "/run")
		}
	}
	for _, p := range []string{root, cache, cwdFile} {
		if p != "" {
			args = append(args, "--bind", p, p)
		}
	}
	return append(args, "--die-with-parent", "--chdir", dir, "--")
}

// sandboxEnv points the caches of common build tools at cache, since the home folder is
// read-only in the sandbox.
//
// Why a cache of the project's own rather than the user's ~/.cache, ~/.npm bound writable: a
// sandboxed command could then plant build outputs or packages that the user's unsandboxed
// builds would trust later, which defeats "read-only outside the project". A folder per project
// (see sandboxCacheDir) is only ever used by that project's sandboxed commands, and it outlives
// the session, so only the first build is cold. Go's module cache stays the user's, read-only:
// builds read the modules already downloaded, and downloading more needs the network anyway.
func sandboxEnv(cache string) []string {
	if cache == "" {
		return nil
	}
	return []string{
		"XDG_CACHE_HOME=" + cache,
		"GOCACHE=" + filepath.Join(cache, "go-build"),
		"npm_config_cache=" + filepath.Join(cache, "npm"),
		"YARN_CACHE_FOLDER=" + filepath.Join(cache, "yarn"),
		"PIP_CACHE_DIR=" + filepath.Join(cache, "pip"),
		"GANTRY_SANDBOX=1",
	}
}

// sandboxCacheDir is the project's writable cache for sandboxed commands:
// <user cache dir>/gantry/sandbox/<folder name>-<hash of the path>, or a folder in the temp
// directory when there is no usable user cache directory. It returns "" if none can be made.
func sandboxCacheDir(root string) string {
	sum := sha256.Sum256([]byte(root))
	name := filepath.Base(root) + "-" + hex.EncodeToString(sum[:6])
	if base, err := os.UserCacheDir(); err == nil {
		dir := filepath.Join(base, "gantry", "sandbox", name)
		if os.MkdirAll(dir, 0o700) == nil {
			return dir
		}
	}
	// A cache under /tmp on the host is still reachable: it is bound over the private /tmp.
	dir := filepath.Join(os.TempDir(), "gantry-sandbox-"+name)
	if os.MkdirAll(dir, 0o700) == nil {
		return dir
	}
	return ""
}

// sandboxMarkers are what common tools print when the sandbox stopped them: the read-only
// filesystem, and (without network) failed name lookups and connections.
var (
	readOnlyMarkers = []string{"Read-only file system", "EROFS"}
	networkMarkers  = []string{
		"Network is unreachable", "ENETUNREACH", "Temporary failure in name resolution",
		"Could not resolve host", "getaddrinfo", "EAI_AGAIN", "ENOTFOUND", "Name or service not known",
		"no such host", "Connection refused", "ECONNREFUSED", "dial tcp", "Failed to establish a new connection",
	}
)

// sandboxHit reports whether a line of output looks like the sandbox got in the way.
func sandboxHit(sb Sandbox, line []byte) bool {
	for _, m := range readOnlyMarkers {
		if bytes.Contains(line, []byte(m)) {
			return true
		}
	}
	if sb.Network {
		return false
	}
	for _, m := range networkMarkers {
		if bytes.Contains(line, []byte(m)) {
			return true
		}
	}
	return false
}

// sandboxNote is the line that tells the model why its command may have failed, so it stops
// retrying what cannot work.
func sandboxNote(sb Sandbox) string {
	if sb.Network {
		return "[this command ran in Gantry's sandbox (read-only outside the project, network allowed): " +
			"writes outside the project fail with \"Read-only file system\"; do not retry them]"
	}
	return "[this command ran in Gantry's sandbox (read-only outside the project, no network): " +
		"writes outside the project and network access fail; do not retry them, ask the user if they are needed]"
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
