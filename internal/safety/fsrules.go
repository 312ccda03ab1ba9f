package safety

import "strings"

// recursiveFlag: -r, -R and --recursive mean the same to rm, chmod and chown.
func recursiveFlag(args []arg) bool {
	return hasShortFlag(args, 'r') || hasShortFlag(args, 'R') || hasLongFlag(args, "recursive")
}

// ruleRm: --no-preserve-root exists only to let rm delete /, so it is never routine.
func ruleRm(c command) finding {
	if hasLongFlag(c.args, "no-preserve-root") {
		return finding{SeverityCritical, "disables rm's protection of the root directory"}
	}
	recursive := recursiveFlag(c.args)
	targets := operands(c.args)
	if len(targets) == 0 {
		return finding{SeverityMedium, "deletes the files it is given"}
	}
	f := noFinding
	for _, t := range targets {
		f = f.worse(classifyDelete(c.at(t), recursive))
	}
	return f
}

func ruleUnlink(c command) finding {
	f := noFinding
	for _, t := range operands(c.args) {
		f = f.worse(classifyDelete(c.at(t), false))
	}
	return f
}

func ruleShred(c command) finding {
	f := finding{SeverityMedium, "overwrites files so they cannot be recovered"}
	for _, t := range operands(c.args) {
		t = c.at(t)
		if isDiskDevice(t) {
			return finding{SeverityCritical, "shreds the disk device " + t.text}
		}
		f = f.worse(classifyDelete(t, false))
	}
	return f
}

// ruleDd: of= is the only place dd writes; reading a disk into an image is routine.
func ruleDd(c command) finding {
	f := finding{SeverityMedium, "copies raw data with dd"}
	for _, a := range c.args {
		out, ok := strings.CutPrefix(a.text, "of=")
		if !ok {
			continue
		}
		target := c.at(arg{text: out, static: a.static})
		if isDiskDevice(target) {
			return finding{SeverityCritical, "overwrites the disk device " + out}
		}
		f = f.worse(classifyWrite(target))
	}
	return f
}

// rulePartition: -l only lists partition tables.
func rulePartition(c command) finding {
	if hasShortFlag(c.args, 'l') || hasLongFlag(c.args, "list") {
		return noFinding
	}
	return finding{SeverityHigh, "edits a disk partition table"}
}

// worldWritable reports whether a chmod mode lets everyone write: 777, 0666, a+rwx, o+w.
func worldWritable(mode string) bool {
	if mode != "" && strings.Trim(mode, "01234567") == "" {
		last := mode[len(mode)-1]
		return last == '2' || last == '3' || last == '6' || last == '7'
	}
	for _, clause := range strings.Split(mode, ",") {
		who := clause[:len(clause)-len(strings.TrimLeft(clause, "ugoa"))]
		perms := clause[len(who):]
		if strings.ContainsAny(who, "oa") && strings.ContainsAny(perms, "+=") && strings.Contains(perms, "w") {
			return true
		}
	}
	return false
}

// outsideWorkspace reports whether a path operand may leave the workspace.
func outsideWorkspace(a arg) bool {
	if !a.static {
		return true
	}
	p := canonical(a.text)
	return strings.HasPrefix(p, "/") || p == ".." || strings.HasPrefix(p, "../")
}

// systemTree returns why recursively changing a path would touch the whole system, or "".
func systemTree(a arg) string {
	if !a.static {
		return ""
	}
	if p := canonical(a.text); strings.HasPrefix(p, "/") {
		return wholeTree(p)
	}
	return ""
}

// rulePermissions covers chmod and chown: what changes (verb) matters less than where.
func rulePermissions(c command, verb string, targets []arg, base finding) finding {
	recursive := recursiveFlag(c.args)
	f := base
	for _, t := range targets {
		t = c.at(t)
		switch {
		case recursive && systemTree(t) != "":
			return finding{SeverityCritical, "recursively changes " + verb + " of " + t.text}
		case recursive && outsideWorkspace(t):
			f = f.worse(finding{SeverityHigh, "recursively changes " + verb + " outside the workspace"})
		case classifyWrite(t).sev.Rank() >= SeverityHigh.Rank():
			f = f.worse(finding{SeverityHigh, "changes " + verb + " of a system or secret file"})
		}
	}
	return f
}

func ruleChmod(c command) finding {
	ops := operands(c.args)
	base := finding{SeverityMedium, "changes file permissions"}
	if len(ops) == 0 {
		return base
	}
	if worldWritable(ops[0].text) {
		base = finding{SeverityHigh, "makes files writable by everyone"}
	}
	return rulePermissions(c, "permissions", ops[1:], base)
}

func ruleChown(c command) finding {
	ops := operands(c.args)
	base := finding{SeverityMedium, "changes file ownership"}
	if recursiveFlag(c.args) {
		base = finding{SeverityHigh, "changes file ownership recursively"}
	}
	if len(ops) == 0 {
		return base
	}
	return rulePermissions(c, "ownership", ops[1:], base)
}

// ruleWritesOperands covers tee, touch and truncate, which write every file they name.
func ruleWritesOperands(c command) finding {
	f := noFinding
	for _, t := range operands(c.args) {
		f = f.worse(classifyWrite(c.at(t)))
	}
	return f
}

// ruleWritesLast covers cp, mv and friends, whose last operand is the destination.
func ruleWritesLast(c command) finding {
	ops := operands(c.args)
	if len(ops) < 2 {
		return noFinding
	}
	return classifyWrite(c.at(ops[len(ops)-1]))
}

// ruleSed: only -i writes; otherwise sed prints to stdout.
func ruleSed(c command) finding {
	if hasShortFlag(c.args, 'i') || hasLongFlag(c.args, "in-place") {
		return ruleWritesOperands(c)
	}
	return noFinding
}
