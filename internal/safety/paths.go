package safety

import (
	"path"
	"strings"
)

// homeDir stands in for the user's home so that ~ and $HOME are judged with the same
// absolute-path rules as /home/alice, including ~/.. climbing to /home.
const homeDir = "/home/~"

// canonical cleans a static path, mapping ~ to homeDir and ~user beside it.
func canonical(p string) string {
	if strings.HasPrefix(p, "~") {
		user, rest, _ := strings.Cut(p[1:], "/")
		p = homeDir + user + "/" + rest
	}
	return path.Clean(p)
}

// atDir resolves a relative path against cwd ("" is the workspace root, where it stays as
// written), so that cd / && rm -rf * is judged as rm -rf /*. Absolute and ~ paths, "-" and
// paths only known at run time are left alone. The home directory keeps its ~ spelling
// for the reasons that quote it.
func atDir(cwd string, t arg) arg {
	if cwd == "" || !t.static || t.text == "" || t.text == "-" ||
		strings.HasPrefix(t.text, "/") || strings.HasPrefix(t.text, "~") {
		return t
	}
	t.text = path.Join(cwd, t.text)
	if rest, ok := strings.CutPrefix(t.text, homeDir); ok {
		t.text = "~" + rest
	}
	return t
}

// leftWorkspace reports whether a cwd tracked by the analyzer lies outside the workspace.
func leftWorkspace(cwd string) bool {
	return strings.HasPrefix(cwd, "/") || cwd == ".." || strings.HasPrefix(cwd, "../")
}

// systemDirs are the top-level directories whose recursive removal ruins the machine.
var systemDirs = map[string]bool{
	"bin": true, "boot": true, "dev": true, "etc": true, "home": true, "lib": true,
	"lib32": true, "lib64": true, "libx32": true, "opt": true, "proc": true, "root": true,
	"sbin": true, "srv": true, "sys": true, "usr": true, "var": true,
	"Applications": true, "Library": true, "System": true, "Users": true, "Volumes": true,
	"private": true,
}

// tempDirs hold scratch files; deleting inside them is routine.
var tempDirs = []string{"/tmp/", "/var/tmp/", "/private/tmp/"}

// isPattern reports whether a path component is expanded by the shell (glob or brace), so
// /e* or /{etc,usr} may name system directories.
func isPattern(s string) bool { return strings.ContainsAny(s, "*?[{") }

// wholeTree reports why removing an absolute cleaned path would wreck the system, or "".
func wholeTree(p string) string {
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if len(parts) > 1 && parts[len(parts)-1] == "*" {
		parts = parts[:len(parts)-1] // /etc/* empties /etc just as well
	}
	switch {
	case p == "/" || parts[0] == "" || isPattern(parts[0]):
		return "deletes the root filesystem recursively"
	case len(parts) == 1 && systemDirs[parts[0]]:
		return "deletes the system directory /" + parts[0] + " recursively"
	case len(parts) == 2 && (parts[0] == "home" || parts[0] == "Users"):
		if parts[1] == "~" {
			return "deletes your home directory recursively"
		}
		return "deletes a home directory recursively"
	}
	return ""
}

// classifyDelete rates removing target; recursive removal of a tree is judged harder than
// removing single files, which cannot take a directory with them.
func classifyDelete(target arg, recursive bool) finding {
	if !target.static {
		if recursive {
			return finding{SeverityHigh, "recursively deletes a path only known at run time"}
		}
		return finding{SeverityMedium, "deletes a path only known at run time"}
	}
	if target.text == "" {
		return noFinding
	}
	p := canonical(target.text)
	if !strings.HasPrefix(p, "/") {
		switch {
		case p == "." || p == "*" || strings.HasPrefix(p, ".*"):
			if recursive {
				return finding{SeverityHigh, "deletes the whole workspace"}
			}
			return finding{SeverityMedium, "deletes every file in the workspace directory"}
		case recursive && aboveWorkspace(p):
			return finding{SeverityHigh, "deletes the directory above the workspace, the workspace included"}
		case p == ".." || strings.HasPrefix(p, "../"):
			return finding{SeverityHigh, "deletes files outside the workspace"}
		case recursive && (p == ".git" || strings.HasPrefix(p, ".git/")):
			return finding{SeverityHigh, "deletes the repository's history"}
		case recursive:
			return finding{SeverityMedium, "recursively deletes " + target.text + " in the workspace"}
		}
		return finding{SeverityMedium, "deletes files in the workspace"}
	}
	if why := wholeTree(p); why != "" {
		if recursive {
			return finding{SeverityCritical, why}
		}
		return finding{SeverityHigh, "deletes files in a system directory"}
	}
	for _, t := range tempDirs {
		if strings.HasPrefix(p+"/", t) && p+"/" != t {
			return finding{SeverityMedium, "deletes temporary files"}
		}
	}
	return finding{SeverityHigh, "deletes " + target.text + " outside the workspace"}
}

// aboveWorkspace reports whether a relative cleaned path is a directory above the workspace
// or everything in one: .., ../.., ../*.
func aboveWorkspace(p string) bool {
	for _, part := range strings.Split(strings.TrimSuffix(p, "/*"), "/") {
		if part != ".." {
			return false
		}
	}
	return true
}

// diskDevices are /dev name prefixes of block devices: writing there bypasses the file
// system and destroys whatever is on the disk.
var diskDevices = []string{
	"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "md", "dm-", "disk", "rdisk", "mapper/",
	"loop", "mem", "kmem", "port",
}

// harmlessDevices accept writes without side effects (or are the terminal itself).
var harmlessDevices = map[string]bool{
	"null": true, "zero": true, "full": true, "stdout": true, "stderr": true, "stdin": true,
	"tty": true, "random": true, "urandom": true,
}

// secretDirs keep credentials; a write there can hand someone access.
var secretDirs = map[string]string{
	".ssh":   "writes into an SSH directory",
	".gnupg": "writes into a GnuPG keyring",
	".aws":   "writes AWS credentials",
	".kube":  "writes Kubernetes credentials",
}

// startupFiles run on every new shell, which makes them a persistence foothold.
var startupFiles = map[string]bool{
	".bashrc": true, ".bash_profile": true, ".bash_login": true, ".profile": true,
	".zshrc": true, ".zprofile": true, ".zshenv": true, ".zlogin": true,
}

// systemWriteDirs are top-level directories only the system should modify.
var systemWriteDirs = map[string]bool{
	"etc": true, "boot": true, "usr": true, "bin": true, "sbin": true, "lib": true,
	"lib32": true, "lib64": true, "proc": true, "sys": true, "System": true, "Library": true,
	"root": true,
}

// classifyWrite rates writing to target (a redirection, tee, cp's destination…).
func classifyWrite(target arg) finding {
	if !target.static {
		return finding{SeverityMedium, "writes to a path only known at run time"}
	}
	if target.text == "" {
		return noFinding
	}
	p := canonical(target.text)
	for _, part := range strings.Split(p, "/") {
		if why, ok := secretDirs[part]; ok {
			return finding{SeverityHigh, why}
		}
	}
	if !strings.HasPrefix(p, "/") {
		if p == ".." || strings.HasPrefix(p, "../") {
			return finding{SeverityMedium, "writes outside the workspace"}
		}
		return noFinding
	}
	if dev, ok := strings.CutPrefix(p, "/dev/"); ok {
		return classifyDevice(dev)
	}
	top, _, _ := strings.Cut(p[1:], "/")
	switch {
	case strings.HasPrefix(p, homeDir) && startupFiles[path.Base(p)]:
		return finding{SeverityHigh, "modifies a shell startup file"}
	case systemWriteDirs[top]:
		return finding{SeverityHigh, "writes into the system directory /" + top}
	}
	return finding{SeverityMedium, "writes outside the workspace"}
}

func classifyDevice(dev string) finding {
	switch {
	case harmlessDevices[dev] || strings.HasPrefix(dev, "fd/") || strings.HasPrefix(dev, "pts/"):
		return noFinding
	case strings.HasPrefix(dev, "tcp/") || strings.HasPrefix(dev, "udp/"):
		return finding{SeverityHigh, "opens a network connection through /dev/" + dev}
	}
	for _, d := range diskDevices {
		if strings.HasPrefix(dev, d) {
			return finding{SeverityCritical, "writes directly to the device /dev/" + dev}
		}
	}
	return finding{SeverityHigh, "writes to the device /dev/" + dev}
}

// isDiskDevice reports whether target names a block device (for dd and shred).
func isDiskDevice(target arg) bool {
	dev, ok := strings.CutPrefix(canonical(target.text), "/dev/")
	return target.static && ok && classifyDevice(dev).sev == SeverityCritical
}
