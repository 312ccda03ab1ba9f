package safety

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFolderCodeFindsWhatRunsTheFoldersOwnCode(t *testing.T) {
	const root = "/home/me/proj"
	runs := map[string]string{
		"./gradlew build":                          "runs a program from this folder: ./gradlew build",
		"node_modules/.bin/tsc --noEmit":           "runs a program from this folder",
		"cd web && ./node_modules/.bin/eslint .":   "runs a program from this folder: ./node_modules/.bin/eslint .",
		"/home/me/proj/bin/tool --flag":            "runs a program from this folder",
		".venv/bin/python -V":                      "runs a program from this folder",
		"npm test":                                 "runs package.json scripts and .npmrc from this folder: npm test",
		"npm install":                              "runs package.json scripts",
		"npx tsc -p .":                             "runs tools installed in node_modules from this folder",
		"yarn":                                     "runs package.json scripts and .yarnrc",
		"make":                                     "runs the Makefile from this folder",
		"sudo make install":                        "runs the Makefile from this folder",
		"go test ./...":                            "runs its Go packages (cgo, go:generate, tests) from this folder",
		"go vet .":                                 "runs its Go packages",
		"cargo check":                              "runs build.rs and procedural macros",
		"python3 manage.py migrate":                "runs a script from this folder: python3 manage.py migrate",
		"python3.12 -m pytest":                     "imports modules from this folder first (python -m)",
		"python -c 'import json; print(1)'":        "imports modules from this folder first (python -c)",
		"bash scripts/setup.sh":                    "runs a script from this folder: bash scripts/setup.sh",
		"source .venv/bin/activate":                "runs a script from this folder: source .venv/bin/activate",
		". ./env.sh":                               "runs a script from this folder: . ./env.sh",
		"node server.js":                           "runs a script from this folder: node server.js",
		"node -e 'require(\"left-pad\")'":          "loads modules from this folder's node_modules",
		"pip install -e .":                         "runs the package's setup code from this folder",
		"pip3 install ./pkg":                       "runs the package's setup code",
		"pytest -x":                                "runs conftest.py and its tests",
		"direnv allow":                             "runs .envrc from this folder",
		"PATH=./bin:$PATH tool":                    "puts a folder of this project on PATH",
		"export PATH=$PATH:node_modules/.bin":      "puts a folder of this project on PATH",
		"PATH=:$PATH tool":                         "puts a folder of this project on PATH",
		"bash -c 'npm run build'":                  "runs package.json scripts",
		"find . -name '*.sh' -exec ./lint.sh {} ;": "runs a program from this folder",
		"awk -f tools/report.awk data.txt":         "runs a script from this folder: awk -f",
		"docker compose up":                        "runs the Dockerfile and compose file",
		"ls && ./configure && make":                "runs a program from this folder: ./configure",
	}
	for cmd, want := range runs {
		got := AnalyzeCommandIn(cmd, root).FolderCode
		require.Contains(t, got, want, "%s", cmd)
	}

	none := []string{
		"ls -la", "cat README.md", "git status", "git commit -m x", "grep -rn foo .", "go version",
		"go mod tidy", "npm --version", "python3 --version", "python3 -c 'print(1)'", "python3 -I -m json.tool x.json",
		"node --version", "node -e 'console.log(1)'", "/usr/bin/env ls", "bash -c 'ls -la'", "rg foo", "cargo --version",
		"pip install requests", "go env GOPATH", "cd / && ./x", "/opt/tools/bin/thing", "echo ./gradlew",
		"PATH=/usr/local/bin:$PATH ls", "tsc --noEmit", "docker ps", "sed -n 1,5p file",
	}
	for _, cmd := range none {
		require.Empty(t, AnalyzeCommandIn(cmd, root).FolderCode, "%s", cmd)
	}
}

func TestFolderCodeKeepsTheDangerTier(t *testing.T) {
	a := AnalyzeCommandIn("./install.sh && rm -rf /", "/w")
	require.Equal(t, SeverityCritical, a.Severity)
	require.Contains(t, a.FolderCode, "./install.sh")
}

func TestFolderCodeWithoutRootStillSeesRelativePrograms(t *testing.T) {
	require.NotEmpty(t, AnalyzeCommand("./gradlew test").FolderCode)
	require.Empty(t, AnalyzeCommand("/home/me/proj/bin/tool").FolderCode, "an absolute path is only known to be inside with the root")
}
