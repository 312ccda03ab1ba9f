package safety

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Workspace trust (SPEC §8): a command that runs code the opened folder supplies (its own
// programs and scripts, package scripts, build files, test and tool configuration written in
// code) must not run in a folder the person has not trusted without asking them. These rules
// say which part of a command does that. Git is not among them: its hooks and the programs a
// repository's config names are switched off for untrusted folders where commands run
// (internal/gitsafe), so git itself runs nothing from the folder.

// folderRunners are programs that run what the folder's files say, whatever their arguments,
// with the files that drive them.
var folderRunners = map[string]string{
	// Package managers: scripts in package.json (install ones included), .npmrc's node-options,
	// .yarnrc.yml's yarnPath, pnpmfile hooks, and the folder's node_modules/.bin first.
	"npm": "package.json scripts and .npmrc", "npx": "tools installed in node_modules",
	"yarn": "package.json scripts and .yarnrc", "pnpm": "package.json scripts and pnpmfile",
	"pnpx": "tools installed in node_modules", "bun": "package.json scripts", "bunx": "tools installed in node_modules",
	"corepack": "package.json's packageManager",
	// Build tools: their build files are programs.
	"make": "the Makefile", "gmake": "the Makefile", "bmake": "the Makefile",
	"cmake": "CMakeLists.txt", "ctest": "its tests", "ninja": "build.ninja", "meson": "meson.build",
	"scons": "SConstruct", "bazel": "BUILD files", "bazelisk": "BUILD files", "buck2": "BUCK files",
	"just": "the justfile", "task": "the Taskfile", "mage": "magefiles", "rake": "the Rakefile",
	"invoke": "tasks.py", "gradle": "build.gradle", "mvn": "pom.xml and its plugins", "ant": "build.xml",
	"sbt": "build.sbt", "lein": "project.clj", "mix": "mix.exs", "rebar3": "rebar.config",
	"dotnet": "project files (MSBuild targets)", "msbuild": "project files", "xcodebuild": "build phases",
	// Test runners and tools whose configuration is code in the folder.
	"pytest": "conftest.py and its tests", "py.test": "conftest.py and its tests", "tox": "tox.ini",
	"nox": "noxfile.py", "pipenv": "the Pipfile", "poetry": "pyproject.toml", "pdm": "pyproject.toml",
	"hatch": "pyproject.toml",
	"jest":  "its JavaScript config and tests", "vitest": "its JavaScript config and tests",
	"mocha": "its tests", "ava": "its tests", "karma": "karma.conf.js", "playwright": "its config and tests",
	"cypress": "its config and tests", "eslint": "its JavaScript config and plugins",
	"prettier": "its config and plugins", "stylelint": "its config and plugins", "webpack": "webpack.config.js",
	"rollup": "rollup.config.js", "vite": "vite.config", "parcel": "its plugins", "next": "next.config.js",
	"nuxt": "nuxt.config", "astro": "astro.config", "turbo": "package.json scripts", "nx": "project scripts",
	"lerna": "package.json scripts", "tsx": "its TypeScript", "ts-node": "its TypeScript", "nodemon": "its scripts",
	"gulp": "the gulpfile", "grunt": "the Gruntfile", "babel": "babel.config.js",
	"bundle": "the Gemfile", "rails": "the app", "rspec": "its specs", "composer": "composer.json scripts",
	"phpunit": "its tests", "direnv": ".envrc", "pre-commit": ".pre-commit-config.yaml", "lefthook": "lefthook.yml",
	"husky": "its hooks", "vagrant": "the Vagrantfile", "terraform": "its modules and providers",
	"ansible-playbook": "the playbook",
}

// subcommandRunners run the folder's code only with some subcommands.
var subcommandRunners = map[string]struct {
	subs map[string]bool
	what string
}{
	"go":     {set("build", "install", "run", "test", "generate", "vet", "tool"), "its Go packages (cgo, go:generate, tests)"},
	"cargo":  {set("build", "b", "run", "r", "test", "t", "check", "c", "clippy", "bench", "doc", "d", "install", "fix", "rustc", "miri"), "build.rs and procedural macros"},
	"swift":  {set("build", "run", "test", "package"), "Package.swift"},
	"deno":   {set("run", "task", "test", "bench", "install", "serve"), "its scripts and deno.json tasks"},
	"uv":     {set("run", "sync", "build", "pip", "tool"), "pyproject.toml and its package"},
	"docker": {set("build", "compose", "buildx"), "the Dockerfile and compose file"},
	"podman": {set("build", "compose"), "the Dockerfile and compose file"},
	"pip":    {set("install", "wheel", "download"), "the package's setup code"},
}

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// scriptRunners run a script file given as their first operand.
var scriptRunners = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "fish": true,
	"python": true, "pypy": true, "node": true, "nodejs": true, "ruby": true, "perl": true, "php": true,
	"lua": true, "luajit": true, "rscript": true, "tclsh": true, "wish": true, "source": true, ".": true,
}

// onlyAsks reports whether args only ask a program about itself (--version, help).
func onlyAsks(args []arg) bool {
	if len(args) == 0 {
		return false
	}
	for _, a := range args {
		switch a.text {
		case "--version", "-v", "-V", "version", "--help", "-h", "help":
		default:
			return false
		}
	}
	return true
}

// noteFolderCode records the first part of the command that runs the folder's code.
func (a *analyzer) noteFolderCode(c command, n syntax.Node) {
	if a.folder != "" {
		return
	}
	why := a.folderCode(c)
	if why == "" {
		return
	}
	if s := a.snippet(n); s != "" {
		why += ": " + s
	}
	a.folder = why
}

// folderCode says why c runs code from the folder, or "".
func (a *analyzer) folderCode(c command) string {
	if a.inFolder(c.head) && strings.Contains(c.head.text, "/") {
		return "runs a program from this folder"
	}
	name := c.name
	if base := strings.TrimRight(name, "0123456789."); base == "python" || base == "pypy" || base == "pip" {
		name = base // python3.12 is python, pip3 is pip
	}
	if onlyAsks(c.args) {
		return ""
	}
	if what, ok := folderRunners[name]; ok {
		return "runs " + what + " from this folder"
	}
	if r, ok := subcommandRunners[name]; ok {
		ops := operands(c.args)
		if len(ops) > 0 && r.subs[ops[0].text] && (name != "pip" || a.installsLocal(ops[1:], c.args)) {
			return "runs " + r.what + " from this folder"
		}
		return ""
	}
	switch {
	case name == "python" || name == "pypy":
		return a.pythonCode(c)
	case name == "node" || name == "nodejs" || name == "bun":
		return a.nodeCode(c)
	case name == "awk" || name == "gawk" || name == "mawk" || name == "sed":
		if f, ok := optionValue(c.args, "-f", "--file"); ok && a.inFolder(f) {
			return "runs a script from this folder"
		}
	case scriptRunners[name]:
		if script, ok := scriptOperand(c.args); ok && a.inFolder(script) {
			return "runs a script from this folder"
		}
	}
	return ""
}

// pythonCode: python puts the folder it runs in first on its import path, so a module or a
// script, and any import from inline code, may come from the folder.
func (a *analyzer) pythonCode(c command) string {
	for i, x := range c.args {
		t := x.text
		switch {
		case t == "-I" || t == "-P":
			return "" // isolated: the current folder is not on the import path
		case t == "-m" || strings.HasPrefix(t, "-m"):
			return "imports modules from this folder first (python -m)"
		case t == "-c" && i+1 < len(c.args):
			if strings.Contains(c.args[i+1].text, "import") {
				return "imports modules from this folder first (python -c)"
			}
			return ""
		}
	}
	if script, ok := scriptOperand(c.args); ok && a.inFolder(script) {
		return "runs a script from this folder"
	}
	return ""
}

// nodeCode: node resolves require and import from the folder's node_modules.
func (a *analyzer) nodeCode(c command) string {
	for _, code := range nodeSpec.inlinePrograms(c.args) {
		if strings.Contains(code.text, "require") || strings.Contains(code.text, "import") {
			return "loads modules from this folder's node_modules"
		}
		return ""
	}
	if script, ok := scriptOperand(c.args); ok && a.inFolder(script) {
		return "runs a script from this folder"
	}
	return ""
}

// installsLocal reports whether pip installs from the folder: a path (., ./pkg, -e .) or a
// requirements file, which may name one.
func (a *analyzer) installsLocal(ops, args []arg) bool {
	for _, op := range ops {
		if op.text == "." || strings.Contains(op.text, "/") && a.inFolder(op) {
			return true
		}
	}
	for _, x := range args {
		if x.text == "-e" || x.text == "--editable" || x.text == "-r" || x.text == "--requirement" ||
			strings.HasPrefix(x.text, "--editable=") || strings.HasPrefix(x.text, "--requirement=") {
			return true
		}
	}
	return false
}

// scriptOperand is the script an interpreter runs: its first operand, when no inline code or
// stdin is given.
func scriptOperand(args []arg) (arg, bool) {
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "--":
			if i+1 < len(args) {
				return args[i+1], true
			}
			return arg{}, false
		case t == "-" || t == "-c" || t == "-e" || t == "-E" || t == "-p" || t == "-r" || t == "--eval" || t == "--print":
			return arg{}, false
		case t == "-o" || t == "-O" || t == "+O" || t == "-W" || t == "-X" || t == "-I" || t == "-M":
			i++ // flags with a value
		case !isFlag(t):
			return args[i], true
		}
	}
	return arg{}, false
}

// inFolder reports whether a path operand points into the workspace: relative to where the
// command runs (inside it, unless a cd left it), or absolute under the root when it is known.
func (a *analyzer) inFolder(p arg) bool {
	if !p.static || p.text == "" || p.text == "-" {
		return false
	}
	t := p.text
	if strings.HasPrefix(t, "/") || strings.HasPrefix(t, "~") {
		if a.root == "" {
			return false
		}
		c := canonical(t)
		return c == a.root || strings.HasPrefix(c, a.root+"/")
	}
	if leftWorkspace(a.cwd) {
		return false
	}
	rel := path.Clean(path.Join(a.cwd, t))
	return rel != ".." && !strings.HasPrefix(rel, "../")
}

// pathAssign notes PATH=… putting a folder of the workspace first or anywhere on the search
// path: every later bare program name may then be the folder's own.
func (a *analyzer) pathAssign(as *syntax.Assign) {
	if a.folder != "" || as == nil || as.Name == nil || as.Name.Value != "PATH" || as.Value == nil {
		return
	}
	v := resolveWord(as.Value)
	for _, dir := range strings.Split(v.text, ":") {
		if dir == "" {
			dir = "." // an empty entry is the current folder
		}
		if strings.HasPrefix(dir, "$") {
			continue
		}
		if a.inFolder(arg{text: dir, static: true}) {
			a.folder = "puts a folder of this project on PATH: PATH=" + quote(v.text)
			return
		}
	}
}
