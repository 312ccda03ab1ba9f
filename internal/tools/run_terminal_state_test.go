package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/ignore"
	"gantry/internal/terminal"
)

// In a folder the person has not trusted, a repository's hook never runs, even when an earlier
// command exported git's own config to point core.hooksPath at the folder's hooks; once the
// folder is trusted, the exported config applies, as in a terminal.
func TestExportedGitConfigCannotRunHooksInAnUntrustedFolder(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	gitIn := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
	}
	gitIn("init", "-q")
	gitIn("config", "user.email", "t@example.com")
	gitIn("config", "user.name", "t")
	marker := filepath.Join(root, "hook-ran")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "hooks"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "hooks", "pre-commit"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755))

	session := terminal.NewSession(root)
	run := func(trusted bool, command string) Result {
		env := &Env{Root: root, Ignore: ignore.New(root), Checkpoints: NoCheckpoints{},
			Approver: PolicyApprover{AllowCommands: true, TrustFolder: trusted}}
		res, err := RunTerminalCommand(env, session).Execute(context.Background(), map[string]any{"command": command}, Discard)
		require.NoError(t, err)
		return res
	}

	res := run(false, "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=hooks")
	require.False(t, res.Failed(), res.Content)
	require.Contains(t, res.Content, "not carried over to the next commands, because the folder is not trusted")
	res = run(false, "git -c user.email=t@example.com -c user.name=t commit -q --allow-empty -m one && git log --oneline | wc -l")
	require.False(t, res.Failed(), res.Content)
	require.NoFileExists(t, marker, "the hook did not run")

	res = run(true, "git -c user.email=t@example.com -c user.name=t commit -q --allow-empty -m two")
	require.False(t, res.Failed(), res.Content)
	require.FileExists(t, marker, "trusted, the exported config applies and the hook runs")
}
