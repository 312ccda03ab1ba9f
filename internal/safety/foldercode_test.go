package safety

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFolderCodeFindsWhatRunsTheFoldersOwnCode(t *testing.T) {
	const root = "/home/me/proj"
	runs := map[string]string{
		"./gradlew build":                          "runs a program from this folder",
		"node_modules/.bin/tsc --noEmit":           "runs a program from this folder",
		"cd web && ./node_modules/.bin/eslint .":   "runs a program from this folder",
		"/home/me/proj/bin/tool --flag":            "runs a program from this folder",
		".venv/bin/python -V":                      "runs a program from this folder",
		"npm test":                                 "npm runs package.json scripts and .npmrc from this folder",
		"npm install":                              "npm runs package.json scripts",
		"npx tsc -p .":                             "npx runs tools installed in node_modules",
		"yarn":                                     "yarn runs",
		"make":                                     "make runs the Makefile",
		"sudo make install":                        "make runs the Makefile",
		"go test ./...":                            "go test runs its Go packages",
		"go vet .":                                 "go vet runs",
		"cargo check":                              "cargo check runs build.rs",
		"python3 manage.py migrate":                "python runs a script from this folder",
		"python3.12 -m pytest":                     "python -m imports the module from this folder first",
		"python -c 'import json; print(1)'":        "python -c imports modules",
		"bash scripts/setup.sh":                    "bash runs a script from this folder",
		"source .venv/bin/activate":                "source runs a script from this folder",
		". ./env.sh":                               ". runs a script from this folder",
		"node server.js":                           "node runs a script from this folder",
		"node -e 'require(\"left-pad\")'":          "node loads modules from this folder's node_modules",
		"pip install -e .":                         "pip install runs the package's setup code",
		"pip3 install ./pkg":                       "pip install runs",
		"pytest -x":                                "pytest runs conftest.py",
		"direnv allow":                             "direnv runs .envrc",
		"PATH=./bin:$PATH tool":                    "puts a folder of this project on PATH",
		"export PATH=$PATH:node_modules/.bin":      "puts a folder of this project on PATH",
		"PATH=:$PATH tool":                         "puts a folder of this project on PATH",
		"bash -c 'npm run build'":                  "npm runs",
		"find . -name '*.sh' -exec ./lint.sh {} ;": "runs a program from this folder",
		"awk -f tools/report.awk data.txt":         "awk runs a script from this folder",
		"docker compose up":                        "docker compose runs the Dockerfile",
		"ls && ./configure && make":                "runs a program from this folder",
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
