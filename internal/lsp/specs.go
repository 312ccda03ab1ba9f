package lsp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Spec says how to run one language server: which files it serves, where its program is found,
// and how it is started in a folder the person trusts and in one they do not.
type Spec struct {
	ID      string   // "go", "typescript", "python", "c", "rust"
	Name    string   // the server, for people: "gopls"
	Label   string   // the languages, for people: "Go"
	Program string   // the executable's name
	Args    []string // always passed
	// Extensions are the files it serves, lower-case with the dot; LanguageIDs maps one to the
	// LSP languageId it is opened with (the ID when absent).
	Extensions  []string
	LanguageIDs map[string]string
	// Install is the command that installs it into Gantry's tools folder (TOOLS stands for the
	// folder), for Settings and the model's "no server" answer.
	Install string
	// Untrusted adapts the start to a folder the person has not trusted, so that nothing the
	// folder supplies runs (SPEC §8); NeedsTrust says the server cannot be made safe there at
	// all, and starts only with the person's approval.
	Untrusted  func(l *Launch)
	NeedsTrust string // why, as a verb phrase for the approval card; "" when it never does
	// Settings answer the server's workspace/configuration requests, by section.
	Settings map[string]any
	// Probe are arguments that make the program say its version: where the program may be a
	// stand-in for a server that is not installed (rustup's proxy), a failing probe means none.
	Probe []string
}

// Launch is one start of a server: what runs, with what, and what it is told at initialize.
type Launch struct {
	Program  string
	Args     []string
	Env      []string // added to the environment
	InitOpts map[string]any
	Settings map[string]any // answers workspace/configuration, by section
	Notes    []string       // what the model should know about this start ("… not used")
}

// ToolsPlaceholder stands for Gantry's tools folder in Spec.Install.
const ToolsPlaceholder = "TOOLS"

// Specs are the servers Gantry knows, in the order Settings lists them.
func Specs() []Spec {
	return []Spec{
		{
			ID: "go", Name: "gopls", Label: "Go", Program: "gopls",
			Extensions: []string{".go"},
			Install:    "GOBIN=TOOLS/bin go install golang.org/x/tools/gopls@v0.23.0",
			// A hover's link to pkg.go.dev is noise to a model.
			Settings: map[string]any{"gopls": map[string]any{"linksInHover": false}},
			Untrusted: func(l *Launch) {
				// gopls runs the go command over the folder's go.mod: no other toolchain, no
				// downloads, no C compiler (cgo directives are the folder's).
				l.Env = append(l.Env, "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=", "CGO_ENABLED=0")
				l.Notes = append(l.Notes, "cgo is off because the folder is not trusted")
			},
		},
		{
			ID: "typescript", Name: "typescript-language-server", Label: "TypeScript and JavaScript",
			Program: "typescript-language-server", Args: []string{"--stdio"},
			Extensions: []string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"},
			LanguageIDs: map[string]string{
				".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact",
				".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact",
			},
			Install: "npm install --prefix TOOLS typescript-language-server@5.3 typescript@5.9",
			// Untrusted is set by the manager, which knows where Gantry's own TypeScript is: the
			// project's tsserver (and the plugins it would load from the project) must not run.
		},
		{
			ID: "python", Name: "pyright", Label: "Python", Program: "pyright-langserver", Args: []string{"--stdio"},
			Extensions: []string{".py", ".pyi"}, LanguageIDs: map[string]string{".pyi": "python"},
			Install: "npm install --prefix TOOLS pyright@1.1.414",
		},
		{
			ID: "c", Name: "clangd", Label: "C and C++", Program: "clangd",
			Extensions:  []string{".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"},
			LanguageIDs: map[string]string{".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp"},
			Install:     "apt install clangd",
			Untrusted: func(l *Launch) {
				// The folder's compile_commands.json and .clangd decide the compiler flags clangd
				// parses with, and a flag can load a compiler plugin into it.
				l.Args = append(l.Args, "--enable-config=false", "--compile-commands-dir="+emptyDir())
				l.Notes = append(l.Notes, "the folder's compile_commands.json and .clangd are not used because the folder is not trusted")
			},
		},
		{
			ID: "rust", Name: "rust-analyzer", Label: "Rust", Program: "rust-analyzer",
			Extensions: []string{".rs"},
			Install:    "rustup component add rust-analyzer",
			Probe:      []string{"--version"},
			NeedsTrust: "runs the project's build scripts and procedural macros (rust-analyzer)",
		},
	}
}

// SpecFor is the server for a file, by its extension.
func SpecFor(specs []Spec, file string) (Spec, bool) {
	ext := strings.ToLower(filepath.Ext(file))
	for _, s := range specs {
		if slices.Contains(s.Extensions, ext) {
			return s, true
		}
	}
	return Spec{}, false
}

// languageID is the LSP languageId a file is opened with.
func (s Spec) languageID(file string) string {
	if id, ok := s.LanguageIDs[strings.ToLower(filepath.Ext(file))]; ok {
		return id
	}
	return s.ID
}

// InstallCommand is the install command with the tools folder filled in.
func (s Spec) InstallCommand(tools string) string {
	return strings.ReplaceAll(s.Install, ToolsPlaceholder, tools)
}

// emptyDir is a folder with no compile_commands.json, for clangd in an untrusted folder.
func emptyDir() string {
	dir := filepath.Join(os.TempDir(), "gantry-clangd-empty")
	_ = os.MkdirAll(dir, 0o755)
	return dir
}

// Find looks for a server's program: the path the person set, else PATH (leaving out folders
// inside the workspace: a program the folder supplies never starts by name), else Gantry's tools
// folders (bin/ and node_modules/.bin/ in each). "" when it is nowhere.
func Find(program, override, root string, toolsDirs []string) string {
	if override != "" {
		if executable(override) {
			return override
		}
		return ""
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if !filepath.IsAbs(dir) || inside(root, dir) {
			continue
		}
		if p := filepath.Join(dir, program); executable(p) {
			return p
		}
	}
	for _, tools := range toolsDirs {
		for _, sub := range []string{"bin", filepath.Join("node_modules", ".bin")} {
			if p := filepath.Join(tools, sub, program); executable(p) {
				return p
			}
		}
	}
	return ""
}

func executable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// inside reports whether path is root or under it, links resolved.
func inside(root, path string) bool {
	if root == "" {
		return false
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	}
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// cleanPath is PATH without the folders inside root, for a server in an untrusted folder: what
// it starts by name (python3, go, node) is never the folder's own.
func cleanPath(root string) string {
	var keep []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if filepath.IsAbs(dir) && !inside(root, dir) {
			keep = append(keep, dir)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}
