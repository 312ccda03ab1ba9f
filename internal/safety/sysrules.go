package safety

import "strings"

// ruleKill: SIGKILL gives a process no chance to clean up, so it can corrupt state.
func ruleKill(c command) finding {
	for i, a := range c.args {
		switch t := a.text; {
		case t == "-9" || t == "-KILL" || t == "-SIGKILL":
			return finding{SeverityHigh, "force-kills processes"}
		case (t == "-s" || t == "-n") && i+1 < len(c.args) && hasArg(c.args[i+1:i+2], "9", "KILL", "SIGKILL"):
			return finding{SeverityHigh, "force-kills processes"}
		}
	}
	return finding{SeverityMedium, "sends a signal to processes"}
}

// ruleMount: a bare mount only lists what is mounted.
func ruleMount(c command) finding {
	if len(c.args) == 0 {
		return noFinding
	}
	return finding{SeverityHigh, "mounts a file system"}
}

// ruleSysctl: reading a setting is harmless; -w or key=value changes the running kernel.
func ruleSysctl(c command) finding {
	for _, a := range c.args {
		if a.text == "-w" || strings.Contains(a.text, "=") {
			return finding{SeverityHigh, "changes kernel settings"}
		}
	}
	return noFinding
}

func ruleCrontab(c command) finding {
	switch {
	case hasShortFlag(c.args, 'r'):
		return finding{SeverityHigh, "deletes all scheduled cron jobs"}
	case hasShortFlag(c.args, 'l'):
		return noFinding
	}
	return finding{SeverityMedium, "changes scheduled cron jobs"}
}

func ruleHistory(c command) finding {
	if hasShortFlag(c.args, 'c') {
		return finding{SeverityMedium, "clears the shell history"}
	}
	return noFinding
}

// ruleMake: install targets copy into system directories; building stays in the tree.
func ruleMake(c command) finding {
	if hasArg(operands(c.args), "install", "uninstall") {
		return finding{SeverityMedium, "installs files into the system"}
	}
	return noFinding
}

// rulePython: python -m pip is pip by another name.
func rulePython(c command) finding {
	if len(c.args) > 1 && c.args[0].text == "-m" && strings.HasPrefix(c.args[1].text, "pip") {
		return pip(command{name: "pip", args: c.args[2:]})
	}
	return noFinding
}

// ruleDocker: --privileged gives the container the host's devices and capabilities.
func ruleDocker(c command) finding {
	if hasLongFlag(c.args, "privileged") {
		return finding{SeverityHigh, "starts a privileged container with full access to the host"}
	}
	return docker(c)
}
