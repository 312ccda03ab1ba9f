package safety

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The environment and the project's .env files hold tokens (GITHUB_TOKEN,
// AWS_SECRET_ACCESS_KEY, DATABASE_URL) but are shown all the time while debugging, so
// printing them is not rated at all; only sending them away in the same command is, like
// any other secret (analyzer.exfiltration).

// theEnvironment is how the approval card names what env, printenv and export -p print.
const theEnvironment = "your environment variables"

// printsEnvironment reports whether c lists environment variables: env with nothing to run,
// printenv, and a bare set, which prints every variable.
func printsEnvironment(c command) bool {
	switch c.name {
	case "env", "printenv":
		return true
	case "set":
		return len(c.args) == 0
	}
	return false
}

// declPrints reports whether export, declare or typeset lists variables (export, export -p,
// declare -x) instead of setting or showing named ones.
func declPrints(d *syntax.DeclClause) bool {
	if d.Variant == nil {
		return false
	}
	variant := d.Variant.Value
	if variant != "export" && variant != "declare" && variant != "typeset" {
		return false
	}
	flags := ""
	for _, as := range d.Args {
		if !as.Naked || as.Name != nil || as.Value == nil {
			return false
		}
		t := resolveWord(as.Value).text
		if !isFlag(t) {
			return false
		}
		flags += t[1:]
	}
	if variant == "export" {
		return flags == "" || strings.Contains(flags, "p")
	}
	return !strings.ContainsAny(flags, "fF") // functions, not variables
}

// envTemplates are the suffixes of .env files committed as examples, with no real values.
var envTemplates = map[string]bool{
	"example": true, "sample": true, "template": true, "dist": true, "defaults": true,
}

// isEnvFile reports whether a file name is a dotenv file (.env, .env.local, .env*) rather
// than a template (.env.example).
func isEnvFile(base string) bool {
	if componentMatches(base, ".env") {
		return true
	}
	rest, ok := strings.CutPrefix(base, ".env.")
	return ok && !envTemplates[rest]
}

// exposes records that the command shows what, which is a secret only once it leaves the
// machine.
func (a *analyzer) exposes(what string) {
	if a.exposed == "" {
		a.exposed = what
	}
	a.exfiltration()
}
