package safety

import "strings"

// Tier policy. A command is as dangerous as its worst part; each simple command, redirection
// and pipeline is judged on its own, after the wrappers that only run another program (sudo,
// env, xargs, timeout…) are peeled off.
//
//   - critical: destroys the machine, runs code nobody has seen, or sends a secret away:
//     recursive deletes of /, ~ or a system directory, formatting or overwriting disks, fork
//     bombs, downloads piped into a shell, recursive chmod/chown of a system tree, and a
//     secret read together with a network connection in one command (cat ~/.ssh/id_rsa | nc,
//     curl -d "$(cat ~/.npmrc)", env | curl -d @- …, cat .env | nc …, where env, .env and
//     git push count only for this pair; environment.go). Relative paths are judged where
//     a cd points them (cd / && rm -rf * is rm -rf /*). Auto-approve never covers these.
//   - high: hard to undo, reaches beyond the workspace or exposes credentials: root
//     privileges, killing processes, publishing packages, force-pushing, discarding
//     uncommitted work, deleting the whole workspace, its .git or anything outside it,
//     writing into /etc, ~/.ssh or shell startup files, running code held in a variable,
//     reading secrets (~/.ssh, ~/.aws, /etc/shadow, browser profiles, keys outside the
//     project; secrets.go), sending data out (uploads, raw sockets, copies to or commands on
//     another machine; network.go), and inline interpreter code that deletes, writes outside,
//     starts programs or uses the network (inline.go).
//   - medium: changes the system or the network in ordinary ways: installing packages,
//     containers, downloads, pushes, deleting files inside the workspace, writing or reading
//     outside it, inline interpreter code (python -c), and anything that could not be parsed.
//   - none: everything else. An unknown program is none on purpose: arguments are data
//     (grep -r "rm -rf /" is a search), and whether a harmless command still needs a person
//     is the permission mode's decision, not this tier's.

// command is a simple command once wrappers are stripped.
type command struct {
	name string // base name, lower-cased
	head arg    // the word that named it
	args []arg  // the words after it
	cwd  string // where it runs once a cd has moved (see analyzer.cwd); rules read paths with at
}

// at is where a path operand of c points: after cd /, * is /*.
func (c command) at(t arg) arg { return atDir(c.cwd, t) }

// finding is one rule's verdict on one part of a command.
type finding struct {
	sev    Severity
	reason string
}

var noFinding = finding{sev: SeverityNone}

func (f finding) worse(g finding) finding {
	if g.sev.Rank() > f.sev.Rank() {
		return g
	}
	return f
}

// rule judges one program's invocation.
type rule func(c command) finding

func fixed(sev Severity, reason string) rule {
	return func(command) finding { return finding{sev, reason} }
}

var (
	installs  = finding{SeverityMedium, "installs packages"}
	uninstall = finding{SeverityMedium, "removes packages"}
	publishes = finding{SeverityHigh, "publishes a package to a public registry"}
)

// subcommands maps "sub" or "sub sub2" (the first operands) to a verdict; "" is the program
// run with no operands. Unlisted subcommands are none.
type subcommands map[string]finding

func (t subcommands) judge(c command) finding {
	ops := operands(c.args)
	for len(ops) > 0 && strings.HasPrefix(ops[0].text, "+") { // cargo +nightly install
		ops = ops[1:]
	}
	if len(ops) > 1 {
		if f, ok := t[ops[0].text+" "+ops[1].text]; ok {
			return f
		}
	}
	key := ""
	if len(ops) > 0 {
		key = ops[0].text
	}
	if f, ok := t[key]; ok {
		return f
	}
	return noFinding
}

var pip = subcommands{"install": installs, "uninstall": uninstall, "download": installs}.judge

var docker = subcommands{
	"run":          {SeverityMedium, "starts a container"},
	"create":       {SeverityMedium, "creates a container"},
	"exec":         {SeverityMedium, "runs a command in a container"},
	"build":        {SeverityMedium, "builds a container image"},
	"pull":         {SeverityMedium, "downloads a container image"},
	"compose":      {SeverityMedium, "runs containers with compose"},
	"rm":           {SeverityMedium, "deletes containers"},
	"rmi":          {SeverityMedium, "deletes images"},
	"push":         {SeverityHigh, "pushes an image to a registry"},
	"system prune": {SeverityHigh, "deletes unused containers, images and volumes"},
	"volume rm":    {SeverityHigh, "deletes container volumes"},
	"volume prune": {SeverityHigh, "deletes container volumes"},
}.judge

var systemPackages = subcommands{
	"install":    {SeverityMedium, "installs system packages"},
	"add":        {SeverityMedium, "installs system packages"},
	"upgrade":    {SeverityMedium, "upgrades system packages"},
	"remove":     {SeverityHigh, "removes system packages"},
	"purge":      {SeverityHigh, "removes system packages"},
	"autoremove": {SeverityHigh, "removes system packages"},
	"erase":      {SeverityHigh, "removes system packages"},
	"del":        {SeverityHigh, "removes system packages"},
}.judge

// rules holds the programs with something to judge; every other program is none.
var rules = map[string]rule{
	// deleting files and wiping disks
	"rm":     ruleRm,
	"unlink": ruleUnlink,
	"shred":  ruleShred,
	"dd":     ruleDd,
	"mkfs":   fixed(SeverityCritical, "formats a file system"),
	"mke2fs": fixed(SeverityCritical, "formats a file system"),
	"mkswap": fixed(SeverityCritical, "formats a swap area"),
	"wipefs": fixed(SeverityCritical, "erases file system signatures"),
	"fdisk":  rulePartition,
	"sfdisk": rulePartition,
	"gdisk":  rulePartition,
	"sgdisk": rulePartition,
	"cfdisk": rulePartition,
	"parted": rulePartition,
	"diskutil": subcommands{
		"eraseDisk":     {SeverityCritical, "erases a disk"},
		"eraseVolume":   {SeverityCritical, "erases a volume"},
		"partitionDisk": {SeverityCritical, "repartitions a disk"},
		"zeroDisk":      {SeverityCritical, "erases a disk"},
		"randomDisk":    {SeverityCritical, "erases a disk"},
		"secureErase":   {SeverityCritical, "erases a disk"},
		"reformat":      {SeverityCritical, "erases a volume"},
	}.judge,

	// writing files, judged by where they land
	"tee":      ruleWritesOperands,
	"touch":    ruleWritesOperands,
	"truncate": ruleWritesOperands,
	"cp":       ruleWritesLast,
	"mv":       ruleWritesLast,
	"ln":       ruleWritesLast,
	"install":  ruleWritesLast,
	"sed":      ruleSed,
	"chmod":    ruleChmod,
	"chown":    ruleChown,
	"chgrp":    ruleChown,

	// users, processes and the machine itself
	"su":        fixed(SeverityHigh, "switches to another user"),
	"passwd":    fixed(SeverityHigh, "changes a password"),
	"chpasswd":  fixed(SeverityHigh, "changes passwords"),
	"useradd":   fixed(SeverityHigh, "changes user accounts"),
	"userdel":   fixed(SeverityHigh, "changes user accounts"),
	"usermod":   fixed(SeverityHigh, "changes user accounts"),
	"visudo":    fixed(SeverityHigh, "changes sudo permissions"),
	"kill":      ruleKill,
	"killall":   fixed(SeverityHigh, "kills processes by name"),
	"pkill":     fixed(SeverityHigh, "kills processes by name"),
	"shutdown":  fixed(SeverityHigh, "shuts down the machine"),
	"reboot":    fixed(SeverityHigh, "restarts the machine"),
	"halt":      fixed(SeverityHigh, "halts the machine"),
	"poweroff":  fixed(SeverityHigh, "powers off the machine"),
	"iptables":  fixed(SeverityHigh, "changes firewall rules"),
	"ip6tables": fixed(SeverityHigh, "changes firewall rules"),
	"nft":       fixed(SeverityHigh, "changes firewall rules"),
	"ufw":       fixed(SeverityHigh, "changes firewall rules"),
	"modprobe":  fixed(SeverityHigh, "loads or unloads kernel modules"),
	"insmod":    fixed(SeverityHigh, "loads a kernel module"),
	"rmmod":     fixed(SeverityHigh, "unloads a kernel module"),
	"mount":     ruleMount,
	"umount":    fixed(SeverityHigh, "unmounts a file system"),
	"sysctl":    ruleSysctl,
	"crontab":   ruleCrontab,
	"history":   ruleHistory,
	"systemctl": ruleSystemctl,
	"launchctl": fixed(SeverityMedium, "changes system services"),

	// the network and remote systems
	"curl":      ruleDownload("o", "output"),
	"wget":      ruleDownload("O", "output-document"),
	"fetch":     ruleDownload("o", "output"),
	"aria2c":    ruleDownload("o", "out"),
	"ssh":       ruleSsh,
	"scp":       ruleScp,
	"sftp":      fixed(SeverityMedium, "copies files over the network"),
	"socat":     fixed(rawSocket.sev, rawSocket.reason),
	"telnet":    fixed(rawSocket.sev, rawSocket.reason),
	"http":      ruleHttpie,
	"https":     ruleHttpie,
	"xh":        ruleHttpie,
	"rsync":     ruleRsync,
	"nc":        ruleNetcat,
	"ncat":      ruleNetcat,
	"netcat":    ruleNetcat,
	"git":       ruleGit,
	"kubectl":   ruleKubectl,
	"terraform": ruleTerraform,
	"tofu":      ruleTerraform,
	"gh": subcommands{
		"repo delete":    {SeverityHigh, "deletes a GitHub repository"},
		"release create": {SeverityHigh, "publishes a release"},
		"release delete": {SeverityHigh, "deletes a release"},
		"pr merge":       {SeverityMedium, "merges a pull request"},
	}.judge,

	// containers
	"docker": ruleDocker,
	"podman": ruleDocker,
	"docker-compose": subcommands{
		"up":    {SeverityMedium, "starts containers"},
		"run":   {SeverityMedium, "starts a container"},
		"build": {SeverityMedium, "builds container images"},
	}.judge,

	// package managers: installing is medium, publishing to a registry is high
	"make":   ruleMake,
	"python": rulePython,
	"pip":    pip,
	"pipx":   subcommands{"install": installs, "uninstall": uninstall}.judge,
	"npm": subcommands{
		"install": installs, "i": installs, "ci": installs, "add": installs, "update": installs,
		"uninstall": uninstall, "remove": uninstall, "rm": uninstall,
		"publish":   publishes,
		"unpublish": {SeverityHigh, "removes a published package from the registry"},
	}.judge,
	"yarn": subcommands{
		"": installs, "install": installs, "add": installs, "upgrade": installs, "remove": uninstall,
		"publish": publishes, "npm publish": publishes,
	}.judge,
	"pnpm": subcommands{
		"install": installs, "i": installs, "add": installs, "update": installs, "up": installs,
		"remove": uninstall, "publish": publishes,
	}.judge,
	"bun": subcommands{
		"install": installs, "i": installs, "add": installs, "update": installs,
		"remove": uninstall, "publish": publishes,
	}.judge,
	"uv": subcommands{
		"pip install": installs, "pip sync": installs, "pip uninstall": uninstall, "add": installs,
		"sync": installs, "remove": uninstall, "tool install": installs, "publish": publishes,
	}.judge,
	"poetry": subcommands{
		"add": installs, "install": installs, "update": installs, "remove": uninstall,
		"publish": publishes,
	}.judge,
	"twine": subcommands{"upload": publishes}.judge,
	"gem": subcommands{
		"install": installs, "update": installs, "uninstall": uninstall,
		"push": publishes, "yank": {SeverityHigh, "withdraws a published gem"},
	}.judge,
	"bundle":   subcommands{"install": installs, "update": installs, "add": installs}.judge,
	"composer": subcommands{"install": installs, "require": installs, "update": installs}.judge,
	"cargo": subcommands{
		"install": installs, "add": installs, "publish": publishes,
		"yank": {SeverityHigh, "withdraws a published crate"},
	}.judge,
	"go":      subcommands{"install": installs, "get": installs}.judge,
	"apt":     systemPackages,
	"apt-get": systemPackages,
	"dnf":     systemPackages,
	"yum":     systemPackages,
	"zypper":  systemPackages,
	"apk":     systemPackages,
	"snap":    systemPackages,
	"brew": subcommands{
		"install": installs, "reinstall": installs, "upgrade": installs, "uninstall": uninstall,
		"remove": uninstall, "rm": uninstall,
	}.judge,
}

// lookupRule finds the rule for a program, if any; versioned names such as python3.12 or
// pip3.11 fall back to the plain one.
func lookupRule(name string) rule {
	if strings.HasPrefix(name, "mkfs.") {
		name = "mkfs"
	}
	if r, ok := rules[name]; ok {
		return r
	}
	return rules[strings.TrimRight(name, "0123456789.")]
}

// shells run shell code given with -c, from a file, or from stdin.
var shells = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "fish": true,
}

// interpreters run a program read from stdin when given no script; python3.12 counts as
// python.
var interpreters = map[string]bool{
	"python": true, "perl": true, "ruby": true, "node": true, "php": true, "pwsh": true,
}

func isInterpreter(name string) bool {
	return shells[name] || interpreters[strings.TrimRight(name, "0123456789.")]
}

// downloaders fetch content from the network; their output piped into a shell runs code
// nobody has read.
var downloaders = map[string]bool{
	"curl": true, "wget": true, "fetch": true, "http": true, "https": true, "xh": true,
}

// decoders turn opaque text back into whatever it hides.
var decoders = map[string]bool{
	"base64": true, "base32": true, "xxd": true, "openssl": true, "gunzip": true, "zcat": true,
	"rev": true,
}

// deleters remove files named by their operands (for find -exec).
var deleters = map[string]bool{"rm": true, "unlink": true, "shred": true}

var ruleSystemctl = subcommands{
	"stop":     {SeverityHigh, "stops a system service"},
	"disable":  {SeverityHigh, "disables a system service"},
	"mask":     {SeverityHigh, "disables a system service"},
	"kill":     {SeverityHigh, "kills a system service"},
	"poweroff": {SeverityHigh, "powers off the machine"},
	"reboot":   {SeverityHigh, "restarts the machine"},
	"halt":     {SeverityHigh, "halts the machine"},
	"start":    {SeverityMedium, "starts a system service"},
	"restart":  {SeverityMedium, "restarts a system service"},
	"reload":   {SeverityMedium, "reloads a system service"},
	"enable":   {SeverityMedium, "enables a system service"},
}.judge

var ruleKubectl = subcommands{
	"delete":  {SeverityHigh, "deletes cluster resources"},
	"drain":   {SeverityHigh, "evicts everything from a cluster node"},
	"apply":   {SeverityMedium, "changes cluster resources"},
	"create":  {SeverityMedium, "changes cluster resources"},
	"replace": {SeverityMedium, "changes cluster resources"},
	"patch":   {SeverityMedium, "changes cluster resources"},
	"scale":   {SeverityMedium, "changes cluster resources"},
	"exec":    {SeverityMedium, "runs a command in a cluster"},
}.judge

var ruleTerraform = subcommands{
	"destroy": {SeverityHigh, "destroys managed infrastructure"},
	"apply":   {SeverityHigh, "changes managed infrastructure"},
}.judge
