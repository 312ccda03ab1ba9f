package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// BranchOutcome is what a session's git branch came to at the start of its first run.
type BranchOutcome struct {
	Branch  string       `json:"branch"` // gantry/<session-slug>
	Status  BranchStatus `json:"status"`
	Message string       `json:"message"` // for the chat, worded for the person
}

// BranchStatus says whether the run works on the session's branch.
type BranchStatus string

const (
	BranchCreated  BranchStatus = "created"  // a new branch from the current commit, changes carried over
	BranchSwitched BranchStatus = "switched" // the branch existed; the workspace now has it checked out
	BranchCurrent  BranchStatus = "current"  // it was checked out already
	BranchSkipped  BranchStatus = "skipped"  // the workspace is not in a git repository
	BranchRefused  BranchStatus = "refused"  // a merge, rebase, cherry-pick or revert is under way
	BranchFailed   BranchStatus = "failed"   // git refused (Message has its words); the run stays put
)

// branchTimeout bounds the git commands of the branch step, which run before the model is
// asked; a hung git (a lock, a network filesystem) must not hold the run.
const branchTimeout = 10 * time.Second

// SessionBranchName is the branch of a session: gantry/ with a few words of its first message
// and the start of its ID, so that it is readable and unique.
func SessionBranchName(sessionID, text string) string {
	var words []string
	size := 0
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < '0' || r > '9')
	}) {
		if len(words) == 4 || size+len(w) > 32 {
			break
		}
		words = append(words, w)
		size += len(w) + 1
	}
	id := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, strings.ToLower(sessionID))
	if len(id) > 8 {
		id = id[:8]
	}
	if id != "" {
		words = append(words, id)
	}
	if len(words) == 0 {
		return "gantry/session"
	}
	return "gantry/" + strings.Join(words, "-")
}

// EnterSessionBranch checks out branch in the repository holding root: created from the current
// commit with `git switch -c` (which carries uncommitted changes along), or switched to when it
// exists. It never commits and never touches a repository under way with a merge, rebase,
// cherry-pick or revert; when it cannot switch, the workspace stays as it was and the outcome
// says why.
func EnterSessionBranch(ctx context.Context, root, branch string) BranchOutcome {
	ctx, cancel := context.WithTimeout(ctx, branchTimeout)
	defer cancel()
	out := BranchOutcome{Branch: branch}
	top, err := branchGit(ctx, root, "rev-parse", "--show-toplevel")
	if err != nil || !branchContains(top, root) {
		out.Status, out.Message = BranchSkipped, "The project folder is not in a git repository, so the session has no branch of its own."
		return out
	}
	current, err := branchGit(ctx, root, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		current = "" // detached HEAD
	}
	if current == branch {
		out.Status, out.Message = BranchCurrent, "Working on the session's branch "+branch+"."
		return out
	}
	stay := "Stayed on " + branchDescribe(current)
	if op, err := branchOperation(ctx, root); err != nil {
		out.Status, out.Message = BranchFailed, stay+": "+err.Error()
		return out
	} else if op != "" {
		out.Status = BranchRefused
		out.Message = fmt.Sprintf("%s: a %s is in progress. Finish or abort it to work on the session's branch %s.", stay, op, branch)
		return out
	}

	args, status := []string{"switch", "-c", branch}, BranchCreated
	if _, err := branchGit(ctx, root, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch); err == nil {
		args, status = []string{"switch", branch}, BranchSwitched
	}
	if _, err := branchGit(ctx, root, args...); err != nil {
		out.Status, out.Message = BranchFailed, fmt.Sprintf("%s: git could not switch to %s: %v", stay, branch, err)
		return out
	}
	out.Status = status
	if status == BranchCreated {
		out.Message = fmt.Sprintf("Working on the new branch %s, made from %s; uncommitted changes came along.", branch, branchDescribe(current))
	} else {
		out.Message = fmt.Sprintf("Switched from %s to the session's branch %s.", branchDescribe(current), branch)
	}
	return out
}

func branchDescribe(current string) string {
	if current == "" {
		return "the detached HEAD"
	}
	return "branch " + current
}

// branchContains reports whether the repository top-level holds root (or is it).
func branchContains(top, root string) bool {
	t, err1 := filepath.EvalSymlinks(top)
	r, err2 := filepath.EvalSymlinks(root)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(t, r)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// branchOperations are the marks git leaves while an operation waits for the person, by the
// name the message gives them.
var branchOperations = []struct{ path, name string }{
	{"MERGE_HEAD", "merge"},
	{"rebase-merge", "rebase"},
	{"rebase-apply", "rebase"},
	{"CHERRY_PICK_HEAD", "cherry-pick"},
	{"REVERT_HEAD", "revert"},
}

// branchOperation names the operation under way in the repository, "" when there is none.
func branchOperation(ctx context.Context, root string) (string, error) {
	args := []string{"rev-parse"}
	for _, op := range branchOperations {
		args = append(args, "--git-path", op.path)
	}
	stdout, err := branchGit(ctx, root, args...)
	if err != nil {
		return "", err
	}
	paths := strings.Split(stdout, "\n")
	if len(paths) != len(branchOperations) {
		return "", fmt.Errorf("git rev-parse --git-path gave %d paths for %d", len(paths), len(branchOperations))
	}
	for i, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p) // --git-path answers relative to the directory git ran in
		}
		if _, err := os.Lstat(p); err == nil {
			return branchOperations[i].name, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	return "", nil
}

// branchGit runs git in dir and returns its trimmed output; a failure carries git's stderr.
// Gantry's own git calls never run code from the repository (hooks, fsmonitor, filters and the
// rest UntrustedEnv turns off), trusted or not: the repository may have been touched by the
// agent's commands, and switching a branch is not the person running git.
func branchGit(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	base := Environ(os.Environ())
	cmd.Env = append(base, UntrustedEnv(ctx, dir, base)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", errors.New(msg)
		}
		return "", err
	}
	return strings.TrimSpace(stdout.String()), nil
}
