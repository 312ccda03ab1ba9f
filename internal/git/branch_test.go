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

func TestSessionBranchName(t *testing.T) {
	t.Parallel()
	require.Equal(t, "gantry/fix-the-typo-in-0a1b2c3d", SessionBranchName("0a1B2c3d4e5f", "Fix the typo in main.go, please!"))
	require.Equal(t, "gantry/abc", SessionBranchName("abc", "¿…?"))
	require.Equal(t, "gantry/session", SessionBranchName("", ""))
	long := SessionBranchName("id", strings.Repeat("x", 50)+" word")
	require.Equal(t, "gantry/id", long, "a word too long for the name is left out")
}

// branchRepo is a repository on main with one committed file, a.txt.
func branchRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644))
	gitInit(t, dir)
	return dir
}

func currentBranch(t *testing.T, dir string) string {
	return strings.TrimSpace(runGit(t, dir, "symbolic-ref", "--short", "HEAD"))
}

func TestEnterSessionBranch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := branchRepo(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("uncommitted\n"), 0o644))

	out := EnterSessionBranch(ctx, dir, "gantry/s1")
	require.Equal(t, BranchCreated, out.Status, out.Message)
	require.Contains(t, out.Message, "branch main")
	require.Equal(t, "gantry/s1", currentBranch(t, dir))
	b, err := os.ReadFile(filepath.Join(dir, "a.txt"))
	require.NoError(t, err)
	require.Equal(t, "uncommitted\n", string(b), "uncommitted changes come along")

	require.Equal(t, BranchCurrent, EnterSessionBranch(ctx, dir, "gantry/s1").Status)

	runGit(t, dir, "switch", "-q", "main")
	out = EnterSessionBranch(ctx, dir, "gantry/s1")
	require.Equal(t, BranchSwitched, out.Status, out.Message)
	require.Equal(t, "gantry/s1", currentBranch(t, dir))
	require.Empty(t, strings.TrimSpace(runGit(t, dir, "log", "--oneline", "main..gantry/s1")), "nothing is committed")
}

func TestEnterSessionBranchRunsNoRepositoryCode(t *testing.T) {
	t.Parallel()
	dir := branchRepo(t)
	// What an agent's command could have left behind: a checkout hook and an fsmonitor.
	marker := filepath.Join(t.TempDir(), "ran")
	hook := filepath.Join(dir, ".git", "hooks", "post-checkout")
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755))
	runGit(t, dir, "config", "core.fsmonitor", "touch "+marker+"; false")

	out := EnterSessionBranch(context.Background(), dir, "gantry/s1")
	require.Equal(t, BranchCreated, out.Status, out.Message)
	require.NoFileExists(t, marker, "Gantry's own git calls run no hook and no fsmonitor")
}

func TestEnterSessionBranchSubfolder(t *testing.T) {
	t.Parallel()
	dir := branchRepo(t)
	sub := filepath.Join(dir, "pkg")
	require.NoError(t, os.Mkdir(sub, 0o755))
	require.Equal(t, BranchCreated, EnterSessionBranch(context.Background(), sub, "gantry/sub").Status)
	require.Equal(t, "gantry/sub", currentBranch(t, dir))
}

func TestEnterSessionBranchNotARepo(t *testing.T) {
	t.Parallel()
	out := EnterSessionBranch(context.Background(), t.TempDir(), "gantry/x")
	require.Equal(t, BranchSkipped, out.Status)
	require.Contains(t, out.Message, "not in a git repository")
}

func TestEnterSessionBranchMidMerge(t *testing.T) {
	t.Parallel()
	dir := branchRepo(t)
	runGit(t, dir, "switch", "-q", "-c", "other")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("theirs\n"), 0o644))
	runGit(t, dir, "commit", "-q", "-am", "theirs")
	runGit(t, dir, "switch", "-q", "main")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("ours\n"), 0o644))
	runGit(t, dir, "commit", "-q", "-am", "ours")
	// The merge conflicts and stops, leaving MERGE_HEAD.
	_ = exec.Command("git", "-C", dir, "-c", "user.name=T", "-c", "user.email=t@example.com", "merge", "other").Run()

	out := EnterSessionBranch(context.Background(), dir, "gantry/m")
	require.Equal(t, BranchRefused, out.Status, out.Message)
	require.Contains(t, out.Message, "a merge is in progress")
	require.Contains(t, out.Message, "Stayed on branch main")
	require.Equal(t, "main", currentBranch(t, dir))
}

func TestEnterSessionBranchConflict(t *testing.T) {
	t.Parallel()
	dir := branchRepo(t)
	runGit(t, dir, "switch", "-q", "-c", "gantry/c")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("on the branch\n"), 0o644))
	runGit(t, dir, "commit", "-q", "-am", "branch work")
	runGit(t, dir, "switch", "-q", "main")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("local edit\n"), 0o644))

	out := EnterSessionBranch(context.Background(), dir, "gantry/c")
	require.Equal(t, BranchFailed, out.Status)
	require.Contains(t, out.Message, "would be overwritten", "git's own words")
	require.Equal(t, "main", currentBranch(t, dir))
	b, err := os.ReadFile(filepath.Join(dir, "a.txt"))
	require.NoError(t, err)
	require.Equal(t, "local edit\n", string(b))
}

func gitInit(t *testing.T, dir string) {
	t.Helper()
	runGit(t, dir, "init", "-q", "-b", "main")
	runGit(t, dir, "add", "-A")
	runGit(t, dir, "commit", "-q", "-m", "initial")
}

func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	return string(out)
}
