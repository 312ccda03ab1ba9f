package safety

import "strings"

// gitGlobal are git's options that take a value before the subcommand (git -C dir push).
var gitGlobal = options{short: "Cc", long: []string{"git-dir", "work-tree", "namespace", "config-env", "exec-path"}}

// ruleGit rates what cannot be undone locally (reset --hard, clean -f) or is seen by
// others (push) above what the reflog can recover (rebase, branch -d).
func ruleGit(c command) finding {
	args := gitGlobal.skip(c.args)
	if len(args) == 0 {
		return noFinding
	}
	rest := args[1:]
	switch args[0].text {
	case "push":
		return gitPush(rest)
	case "reset":
		if hasLongFlag(rest, "hard") {
			return finding{SeverityHigh, "discards uncommitted changes"}
		}
	case "clean":
		switch {
		case hasShortFlag(rest, 'n') || hasLongFlag(rest, "dry-run"):
			return noFinding
		case hasShortFlag(rest, 'f') || hasLongFlag(rest, "force"):
			return finding{SeverityHigh, "permanently deletes untracked files"}
		}
		return finding{SeverityMedium, "deletes untracked files"}
	case "checkout":
		if hasShortFlag(rest, 'f') || hasLongFlag(rest, "force") {
			return finding{SeverityHigh, "discards uncommitted changes"}
		}
		if hasArg(rest, "--", ".") {
			return gitDiscard(rest)
		}
	case "restore":
		staged := hasShortFlag(rest, 'S') || hasLongFlag(rest, "staged")
		worktree := hasShortFlag(rest, 'W') || hasLongFlag(rest, "worktree")
		if !staged || worktree {
			return gitDiscard(rest)
		}
	case "branch":
		del := hasShortFlag(rest, 'd') || hasLongFlag(rest, "delete")
		force := hasShortFlag(rest, 'f') || hasLongFlag(rest, "force")
		switch {
		case hasShortFlag(rest, 'D') || del && force:
			return finding{SeverityHigh, "force-deletes a branch, even if unmerged"}
		case del:
			return finding{SeverityMedium, "deletes a branch"}
		}
	case "stash":
		switch firstOperand(rest) {
		case "clear":
			return finding{SeverityHigh, "deletes every stash"}
		case "drop":
			return finding{SeverityMedium, "deletes a stash"}
		}
	case "rebase":
		return finding{SeverityMedium, "rewrites commit history"}
	case "filter-branch", "filter-repo":
		return finding{SeverityHigh, "rewrites the whole repository history"}
	case "reflog":
		if sub := firstOperand(rest); sub == "expire" || sub == "delete" {
			return finding{SeverityHigh, "deletes reflog entries used for recovery"}
		}
	case "clone":
		return finding{SeverityMedium, "downloads a repository"}
	case "pull":
		return finding{SeverityMedium, "merges remote changes into the working tree"}
	}
	return noFinding
}

// gitPush: a leading + on a refspec forces it and a leading : deletes the remote ref.
func gitPush(args []arg) finding {
	if hasShortFlag(args, 'n') || hasLongFlag(args, "dry-run") {
		return noFinding
	}
	force := hasShortFlag(args, 'f') || hasLongFlag(args, "force") ||
		hasLongFlag(args, "force-with-lease") || hasLongFlag(args, "force-if-includes") ||
		hasLongFlag(args, "mirror")
	del := hasShortFlag(args, 'd') || hasLongFlag(args, "delete") || hasLongFlag(args, "prune")
	for _, ref := range operands(args) {
		force = force || strings.HasPrefix(ref.text, "+")
		del = del || strings.HasPrefix(ref.text, ":")
	}
	switch {
	case force:
		return finding{SeverityHigh, "force-pushes, overwriting remote history"}
	case del:
		return finding{SeverityHigh, "deletes remote branches or tags"}
	}
	return finding{SeverityMedium, "pushes commits to a remote"}
}

// gitDiscard rates throwing away working-tree changes to the given paths.
func gitDiscard(args []arg) finding {
	for _, p := range operands(args) {
		if p.text == "." || p.text == "*" || p.text == ":/" {
			return finding{SeverityHigh, "discards all uncommitted changes"}
		}
	}
	return finding{SeverityMedium, "discards uncommitted changes to files"}
}
