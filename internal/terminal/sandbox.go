package terminal

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
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
// The probe is one tiny sandbox, a few milliseconds. It is a variable so that tests can play a
// machine without the sandbox (set it in a test that is not parallel).
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
// final directory in) bound through. dir must be spelled from root, since a symlink it went
// through may not exist in the sandbox. Empty root, cache or cwdFile are left out. The command
// follows "--".
//
// Order matters: bwrap applies them in turn, so the private /tmp and /run come before the binds
// that may lie inside them (a workspace under /tmp, the cwd file), and the read-only git folder
// and the masks come after the binds they lie inside.
func bwrapArgs(sb Sandbox, root, cache, cwdFile, dir string) []string {
	args := []string{
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		// Mounting a fresh /proc needs a process namespace of its own; it also means that the
		// sandbox ends, every process in it included, when its shell ends or bwrap is killed.
		"--unshare-pid", "--proc", "/proc",
		"--tmpfs", "/tmp",
	}
	args = append(args, privateRun(sb.Network)...)
	if !sb.Network {
		args = append(args, "--unshare-net")
	}
	for _, p := range []string{root, cache, cwdFile} {
		if p != "" {
			args = append(args, "--bind", p, p)
		}
	}
	if root != "" {
		for _, p := range gitDirs(root) {
			args = append(args, "--ro-bind", p, p)
		}
	}
	args = append(args, homeSocketMasks(root)...)
	return append(args, "--die-with-parent", "--chdir", dir, "--")
}

// privateRun hides the host's /run, where its services listen on Unix sockets (the system and
// session buses, from which `systemd-run --user` starts anything unconfined; the Docker daemon;
// the person's agents under /run/user): a read-only filesystem does not stop connect(), and
// with the network on nothing else would. What /run holds that programs need is put back:
// symlinks to folders elsewhere (NixOS keeps its whole system behind /run/current-system), and,
// with the network on, the resolver configuration when /etc/resolv.conf leads into /run
// (systemd-resolved, NetworkManager).
func privateRun(network bool) []string {
	fi, err := os.Lstat("/run")
	if err != nil || !fi.IsDir() {
		return nil
	}
	args := []string{"--tmpfs", "/run"}
	entries, _ := os.ReadDir("/run")
	for _, e := range entries {
		if e.Type()&os.ModeSymlink == 0 {
			continue
		}
		p := filepath.Join("/run", e.Name())
		target, err := os.Readlink(p)
		if err != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		if _, inRun := within("/run", real); inRun {
			continue
		}
		if fi, err := os.Stat(real); err == nil && fi.IsDir() {
			args = append(args, "--symlink", target, p)
		}
	}
	if network {
		if conf, err := filepath.EvalSymlinks("/etc/resolv.conf"); err == nil {
			if _, inRun := within("/run", conf); inRun {
				args = append(args, "--ro-bind", conf, conf)
			}
		}
	}
	return args
}

// gitDirs are the parts of the workspace's git repository that must stay read-only in the
// sandbox although the workspace is writable: git runs hooks and core.fsmonitor from there,
// and Gantry (its session branches) and the person run git outside the sandbox. That is .git
// itself, and when .git is a file (a worktree, a submodule) the git folder it points to and
// that folder's common folder, when they lie in the workspace (elsewhere they are read-only
// already).
//
// What remains: a workspace without .git may get one from a sandboxed command (git init with
// hooks), and git repositories nested in subfolders of the workspace stay writable.
func gitDirs(root string) []string {
	dotGit := filepath.Join(root, ".git")
	real, err := filepath.EvalSymlinks(dotGit)
	if err != nil {
		return nil
	}
	var dirs []string
	add := func(p string) {
		if _, ok := within(root, p); ok {
			dirs = append(dirs, p)
		}
	}
	add(real)
	fi, err := os.Stat(real)
	if err != nil || fi.IsDir() {
		return dirs
	}
	// "gitdir: <path>", relative to the folder holding the .git file.
	data, err := os.ReadFile(real)
	if err != nil {
		return dirs
	}
	line, _, _ := strings.Cut(string(data), "\n")
	gitdir, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return dirs
	}
	gitdir = strings.TrimSpace(gitdir)
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(filepath.Dir(real), gitdir)
	}
	gitdir, err = filepath.EvalSymlinks(gitdir)
	if err != nil {
		return dirs
	}
	add(gitdir)
	if common, err := os.ReadFile(filepath.Join(gitdir, "commondir")); err == nil {
		c := strings.TrimSpace(string(common))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitdir, c)
		}
		if c, err := filepath.EvalSymlinks(c); err == nil {
			add(c)
		}
	}
	return dirs
}

// homeSocketDirs are folders in the home folder where agents and daemons keep their Unix
// sockets (gpg-agent; the Docker, Colima, Lima, Rancher and OrbStack VMs; 1Password's SSH
// agent). They are hidden in the sandbox: reading them is not needed there, and a socket
// would let a command ask an unconfined process to act for it.
var homeSocketDirs = []string{".gnupg", ".docker", ".colima", ".lima", ".rd", ".orbstack", ".1password"}

// homeSocketMasks are bwrap's options hiding homeSocketDirs and the sockets in ~/.ssh (ssh's
// ControlMaster connections, which log in anywhere without asking), while the rest of ~/.ssh
// (keys, known hosts, config) stays readable for git over ssh. A folder holding the workspace
// is left alone.
//
// What remains (it would take a seccomp filter, or a network namespace of the sandbox's own
// when the network is on): sockets elsewhere in the home folder, sockets made after the
// command started, and abstract sockets (X11, some session buses) when the network is on.
func homeSocketMasks(root string) []string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return nil
	}
	if real, err := filepath.EvalSymlinks(home); err == nil {
		home = real
	}
	var args []string
	for _, name := range homeSocketDirs {
		p, err := filepath.EvalSymlinks(filepath.Join(home, name))
		if err != nil {
			continue
		}
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			continue
		}
		if _, holds := within(p, root); holds && root != "" {
			continue
		}
		args = append(args, "--tmpfs", p)
	}
	for _, sock := range socketsIn(filepath.Join(home, ".ssh"), 2) {
		args = append(args, "--ro-bind", "/dev/null", sock)
	}
	return args
}

// socketsIn lists the Unix sockets in dir and its subfolders down to depth levels, without
// following symlinks.
func socketsIn(dir string, depth int) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var socks []string
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case e.Type()&os.ModeSocket != 0:
			socks = append(socks, p)
		case e.IsDir() && depth > 1:
			socks = append(socks, socketsIn(p, depth-1)...)
		}
	}
	return socks
}

// sandboxEnv is env for a sandboxed command: without what points at the person's agents and
// session services (their sockets are hidden anyway, see privateRun and homeSocketMasks), with
// TMPDIR at the sandbox's private /tmp (the inherited one may be read-only there), and with the
// caches of common build tools in cache, since the home folder is read-only in the sandbox.
//
// Why a cache of the project's own rather than the user's ~/.cache, ~/.npm bound writable: a
// sandboxed command could then plant build outputs or packages that the user's unsandboxed
// builds would trust later, which defeats "read-only outside the project". A folder per project
// (see sandboxCacheDir) is only ever used by that project's sandboxed commands, and it outlives
// the session, so only the first build is cold. Go's module cache stays the user's, read-only:
// builds read the modules already downloaded, and downloading more needs the network anyway.
func sandboxEnv(env []string, cache string) []string {
	out := make([]string, 0, len(env)+8)
	for _, kv := range env {
		key, _, _ := strings.Cut(kv, "=")
		if !hiddenEnv[key] {
			out = append(out, kv)
		}
	}
	out = append(out, "TMPDIR=/tmp", "GANTRY_SANDBOX=1")
	if cache == "" {
		return out
	}
	return append(out,
		"XDG_CACHE_HOME="+cache,
		"GOCACHE="+filepath.Join(cache, "go-build"),
		"npm_config_cache="+filepath.Join(cache, "npm"),
		"YARN_CACHE_FOLDER="+filepath.Join(cache, "yarn"),
		"PIP_CACHE_DIR="+filepath.Join(cache, "pip"),
	)
}

// hiddenEnv are the variables that lead to the person's agents, buses, displays and container
// daemons.
var hiddenEnv = map[string]bool{
	"SSH_AUTH_SOCK": true, "SSH_AGENT_PID": true, "GPG_AGENT_INFO": true,
	"DBUS_SESSION_BUS_ADDRESS": true, "DBUS_SYSTEM_BUS_ADDRESS": true, "XDG_RUNTIME_DIR": true,
	"DISPLAY": true, "WAYLAND_DISPLAY": true, "XAUTHORITY": true, "SESSION_MANAGER": true,
	"GNOME_KEYRING_CONTROL": true, "DOCKER_HOST": true, "CONTAINER_HOST": true,
	"TMUX": true, "TMUX_PANE": true, "STY": true,
}

// sandboxCacheDir is the project's writable cache for sandboxed commands:
// <user cache dir>/gantry/sandbox/<folder name>-<hash of the path>, or a folder in the temp
// directory when there is no usable user cache directory. It returns "" if none can be made.
//
// A folder that is not the person's own and private is not used: in the shared temp directory
// another user could make it first and seed it with build outputs that sandboxed builds trust.
// The temp directory then gets a fresh private folder, which only this session uses.
func sandboxCacheDir(root string) string {
	sum := sha256.Sum256([]byte(root))
	name := filepath.Base(root) + "-" + hex.EncodeToString(sum[:6])
	if base, err := os.UserCacheDir(); err == nil {
		dir := filepath.Join(base, "gantry", "sandbox", name)
		if os.MkdirAll(dir, 0o700) == nil && privateDir(dir) {
			markUsed(dir)
			return dir
		}
	}
	// A cache under /tmp on the host is still reachable: it is bound over the private /tmp.
	dir := filepath.Join(os.TempDir(), "gantry-sandbox-"+name)
	if err := os.Mkdir(dir, 0o700); (err == nil || errors.Is(err, fs.ErrExist)) && privateDir(dir) {
		return dir
	}
	if dir, err := os.MkdirTemp("", "gantry-sandbox-"+name+"-"); err == nil {
		return dir
	}
	return ""
}

// privateDir reports whether dir is a folder (not a symlink) of the current user that nobody
// else can read or write.
func privateDir(dir string) bool {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
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
			"writes outside the project and into its .git folder (git commit, checkout, config) fail with \"Read-only file system\"; do not retry them]"
	}
	return "[this command ran in Gantry's sandbox (read-only outside the project, no network): " +
		"writes outside the project and into its .git folder (git commit, checkout, config) and network access fail; do not retry them, ask the user if they are needed]"
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
