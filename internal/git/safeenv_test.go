package git

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// hostileRepo is a repository whose own config and hooks name a program at every place git
// runs one; the program leaves a mark in marks when it runs.
func hostileRepo(t *testing.T) (dir, marks string) {
	t.Helper()
	dir, marks = t.TempDir(), filepath.Join(t.TempDir(), "marks")
	evil := filepath.Join(t.TempDir(), "evil.sh")
	require.NoError(t, os.WriteFile(evil, []byte("#!/bin/sh\necho \"$0 $*\" >> "+marks+"\ncat\n"), 0o755))
	gitIn(t, dir, nil, "init", "-q")
	for _, kv := range [][2]string{
		{"filter.x.clean", evil + " clean"}, {"filter.x.smudge", evil + " smudge"},
		{"diff.y.textconv", evil + " textconv"}, {"diff.external", evil + " external"},
		{"core.fsmonitor", evil}, {"core.pager", evil + " pager"}, {"alias.st", "!" + evil + " alias"},
		{"user.email", "a@example.com"}, {"user.name", "A"},
	} {
		gitIn(t, dir, nil, "config", kv[0], kv[1])
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("*.txt filter=x diff=y\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "hooks", "pre-commit"), []byte("#!/bin/sh\n"+evil+" pre-commit\n"), 0o755))
	return dir, marks
}

func gitIn(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(Environ(os.Environ()), env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
	return string(out)
}

func TestUntrustedEnvRunsNothingTheRepositorySupplies(t *testing.T) {
	dir, marks := hostileRepo(t)
	env := UntrustedEnv(context.Background(), dir, os.Environ())

	gitIn(t, dir, env, "add", ".")
	gitIn(t, dir, env, "commit", "-qm", "first")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("two\n"), 0o644))
	require.Contains(t, gitIn(t, dir, env, "status", "--short"), "M a.txt")
	require.Contains(t, gitIn(t, dir, env, "--no-pager", "diff", "--no-ext-diff"), "+two")
	require.Contains(t, gitIn(t, dir, env, "diff"), "was not run for a.txt")
	require.Contains(t, gitIn(t, dir, env, "log", "-p", "--no-ext-diff"), "+one")
	cmd := exec.Command("git", "st")
	cmd.Dir, cmd.Env = dir, append(Environ(os.Environ()), env...)
	out, _ := cmd.CombinedOutput()
	require.Contains(t, string(out), "was not run")
	gitIn(t, dir, env, "commit", "-qam", "second")

	_, err := os.Stat(marks)
	require.ErrorIs(t, err, os.ErrNotExist, "nothing the repository names ran")

	// The same repository without the environment does run them: the test can fail.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("three\n"), 0o644))
	gitIn(t, dir, nil, "status", "--short")
	data, err := os.ReadFile(marks)
	require.NoError(t, err)
	require.NotEmpty(t, data)
}

func TestUntrustedEnvAddsToAnEnvironmentThatAlreadySetsGitConfig(t *testing.T) {
	env := UntrustedEnv(context.Background(), t.TempDir(), []string{"GIT_CONFIG_COUNT=2"})
	require.Contains(t, env, "GIT_CONFIG_KEY_2=core.hooksPath")
	require.Equal(t, "GIT_CONFIG_COUNT=5", env[len(env)-1])
}

func TestNeutralLeavesSettingsThatNameNoProgram(t *testing.T) {
	for _, key := range []string{"include.path", "includeIf.gitdir:~/x/.path", "submodule.lib.path", "remote.origin.url", "user.name", "core.bare"} {
		_, ok := neutral(key, "x")
		require.False(t, ok, key)
	}
	for key, want := range map[string]string{"diff.y.textconv": "cat", "filter.lfs.process": "", "mergetool.vim.cmd": "false", "pager.log": "cat", "gpg.ssh.program": ""} {
		got, ok := neutral(key, "x")
		require.True(t, ok, key)
		require.Equal(t, want, got, key)
	}
}
