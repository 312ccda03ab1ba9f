package terminal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func runOpts(t *testing.T, s *Session, command string, opts Options) Result {
	t.Helper()
	res, err := s.Run(context.Background(), command, "", opts)
	require.NoError(t, err)
	return res
}

// Exports and unsets carry over to the next command, as in a terminal; the model is told.
func TestExportsCarryOver(t *testing.T) {
	t.Parallel()
	s, _ := newTestSession(t)
	res := run(t, s, "export GREETING='hello there' EMPTY= && unset GANTRY", "")
	require.Contains(t, res.ForModel, "[the next commands keep these exported variables as this one left them: EMPTY, GANTRY, GREETING]")
	res = run(t, s, `echo "$GREETING|${EMPTY-unset}|${GANTRY-gone}"`, "")
	require.Equal(t, "hello there||gone\n", res.Output)
	require.NotContains(t, res.ForModel, "keep these exported", "nothing changed")

	run(t, s, "unset GREETING; export MULTI=$'two\\nlines'", "")
	res = run(t, s, `echo "${GREETING-unset}"; printf '%s' "$MULTI"`, "")
	require.Equal(t, "unset\ntwo\nlines", res.Output)
}

// Only exported variables are kept, not shell variables, functions or options; a command that
// sets its own EXIT trap leaves the state as it was.
func TestOnlyExportsAreKept(t *testing.T) {
	t.Parallel()
	s, _ := newTestSession(t)
	run(t, s, "LOCAL=1; greet() { echo hi; }; set -e; export KEPT=1", "")
	res := run(t, s, `echo "${LOCAL-none} $KEPT"; greet`, "")
	require.Equal(t, "none 1\n", res.Output[:len("none 1\n")])
	require.Contains(t, res.Output, "greet: command not found")

	run(t, s, "trap 'echo bye' EXIT; export LOST=1", "")
	res = run(t, s, `echo "${LOST-none}"`, "")
	require.Equal(t, "none\n", res.Output)
}

// writeScript writes an executable file.
func writeScript(t *testing.T, path, body string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(body), 0o755))
}

// A virtualenv's activate script changes PATH for the commands after it; in a folder the
// person has not trusted its bin folder (inside the folder) is not carried over, until it is
// trusted. A tool manager outside the folder (nvm) is carried over either way.
func TestActivateCarriesOverOnlyWhenTrusted(t *testing.T) {
	t.Parallel()
	s, root := newTestSession(t)
	writeScript(t, filepath.Join(root, ".venv", "bin", "activate"),
		"export VIRTUAL_ENV=\"$PWD/.venv\"\nexport PATH=\"$VIRTUAL_ENV/bin:$PATH\"\nexport PS1=\"(venv) $PS1\"\n")
	writeScript(t, filepath.Join(root, ".venv", "bin", "gantry-hello"), "#!/bin/sh\necho hello from the venv\n")
	tools := t.TempDir()
	writeScript(t, filepath.Join(tools, "nvm.sh"), "nvm() { export PATH=\""+tools+"/node/bin:$PATH\"; }\n")
	writeScript(t, filepath.Join(tools, "node", "bin", "gantry-node"), "#!/bin/sh\necho node 20\n")

	res := runOpts(t, s, "source .venv/bin/activate && source "+tools+"/nvm.sh && nvm use 20", Options{Untrusted: true})
	require.Contains(t, res.ForModel, "[not carried over to the next commands, because the folder is not trusted and they could run its code: PATH's entries inside the folder, VIRTUAL_ENV]")

	res = runOpts(t, s, "gantry-node; gantry-hello", Options{Untrusted: true})
	require.Contains(t, res.Output, "node 20\n")
	require.Contains(t, res.Output, "gantry-hello: command not found")

	res = runOpts(t, s, "gantry-node; gantry-hello; echo $VIRTUAL_ENV", Options{})
	require.Equal(t, "node 20\nhello from the venv\n"+filepath.Join(root, ".venv")+"\n", res.Output)
}

// In an untrusted folder nothing exported earlier may undo git's safety settings or make the
// shell, the loader or an interpreter run the folder's code; the settings given for the
// command (Options.Env) win over anything kept. Trusted, the same variables apply.
func TestUntrustedStateCannotRunTheFolder(t *testing.T) {
	t.Parallel()
	s, root := newTestSession(t)
	writeScript(t, filepath.Join(root, "evil.sh"), "touch "+filepath.Join(root, "ran")+"\n")
	res := runOpts(t, s, "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=hooks "+
		"GIT_CONFIG_PARAMETERS=\"'core.hookspath'='hooks'\" BASH_ENV=./evil.sh NODE_OPTIONS=--require=./x.js "+
		"LD_PRELOAD=./x.so HOOK=\"$PWD/evil.sh\" PLAIN=fine", Options{Untrusted: true})
	require.Contains(t, res.ForModel, "they could run its code: BASH_ENV, GIT_CONFIG_COUNT, GIT_CONFIG_KEY_0, GIT_CONFIG_PARAMETERS, GIT_CONFIG_VALUE_0, HOOK, LD_PRELOAD, NODE_OPTIONS]")
	require.Contains(t, res.ForModel, "keep these exported variables as this one left them: PLAIN]")
	require.NoFileExists(t, filepath.Join(root, "ran"))

	safe := Options{Untrusted: true, Env: []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_VALUE_0=/dev/null"}}
	res = runOpts(t, s, `echo "$GIT_CONFIG_COUNT $GIT_CONFIG_VALUE_0 ${GIT_CONFIG_PARAMETERS-none} ${BASH_ENV-none} ${NODE_OPTIONS-none} ${LD_PRELOAD-none} ${HOOK-none} $PLAIN"`, safe)
	require.Equal(t, "1 /dev/null none none none none none fine\n", res.Output)
	require.NoFileExists(t, filepath.Join(root, "ran"), "BASH_ENV was not sourced")
	require.NotContains(t, res.ForModel, "keep these", "the command changed nothing: what it did not get is not a change")

	res = runOpts(t, s, `echo "$GIT_CONFIG_VALUE_0 $HOOK"`, Options{})
	require.Contains(t, res.Output, "hooks "+filepath.Join(root, "evil.sh")+"\n", "LD_PRELOAD applies too, and ld.so says so")
	require.FileExists(t, filepath.Join(root, "ran"), "trusted, BASH_ENV is sourced as bash does")
}

func TestParseRecord(t *testing.T) {
	t.Parallel()
	require.Equal(t, record{dir: "/w"}, parseRecord([]byte("/w\n")))
	require.Equal(t, record{}, parseRecord(nil))
	require.Equal(t, record{dir: "/w", exported: []byte{}}, parseRecord([]byte("/w\n\x00")))
	r := parseRecord([]byte("/w\n\x00A=strays\x00B=2\x00" + strayMark + "\n"))
	require.Equal(t, "A=strays\x00B=2\x00", string(r.exported))
	require.True(t, r.strays)
	require.False(t, parseRecord([]byte("/w\n\x00A=strays\x00")).strays, "a value is not the mark")
}

func TestPathOutside(t *testing.T) {
	t.Parallel()
	got := pathOutside(strings.Join([]string{"/ws/.venv/bin", "/usr/bin", "bin", ".", "/ws2/bin", "/real/ws/node_modules/.bin", "/bin"}, ":"), []string{"/ws", "/real/ws"})
	require.Equal(t, "/usr/bin:/ws2/bin:/bin", got)
}

// In the sandbox too, exports carry over, and recording them leaves no process behind that the
// stray check would take for the command's.
func TestExportsCarryOverInTheSandbox(t *testing.T) {
	s, _ := newSandboxSession(t, Sandbox{})
	res := run(t, s, "export FROM_SANDBOX=yes", "")
	require.True(t, res.Sandboxed)
	require.NotContains(t, res.ForModel, "background processes", res.ForModel)
	require.Contains(t, res.ForModel, "keep these exported variables as this one left them: FROM_SANDBOX]")
	res = run(t, s, `echo "$FROM_SANDBOX"`, "")
	require.Equal(t, "yes\n", res.Output)
	require.NotContains(t, res.ForModel, "keep these", "the sandbox's own variables are not the command's changes")
}
