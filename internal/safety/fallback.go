package safety

import "strings"

// salvageStrips are tried in turn on each line of code that does not parse: first the line
// as it is (bash runs the lines before a syntax error), then without quotes, then without
// brackets too, so a stray quote cannot hide an rm -rf / next to it.
var salvageStrips = []string{"", "'\"`\\", "'\"`\\(){}[]<>$"}

// unparsed rates code the parser rejects: at least medium, raised to critical when a
// salvaged reading of it, or the raw text, shows a critical pattern. Lower findings from
// salvaged text are dropped, as that text is a guess at what would run.
func (a *analyzer) unparsed(src string, err error, depth int) {
	a.flag(finding{SeverityMedium, "could not be parsed (" + err.Error() + ")"}, nil)
	if forkBombText(src) {
		a.flag(finding{SeverityCritical, "looks like a fork bomb"}, nil)
		return
	}
	guess := newAnalyzer()
	for _, line := range strings.Split(src, "\n") {
		for _, strip := range salvageStrips {
			cand := removeChars(line, strip)
			if f, err := parse(cand); err == nil {
				guess.walk(f, cand, depth)
				break
			}
		}
	}
	if guess.best.sev == SeverityCritical {
		a.flag(guess.best, nil)
	}
}

func removeChars(s, chars string) string {
	if chars == "" {
		return s
	}
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(chars, r) {
			return -1
		}
		return r
	}, s)
}

// maxBombBody bounds how far past name(){ forkBombText looks, keeping the scan linear; a
// fork bomb body is a handful of characters.
const maxBombBody = 256

// forkBombText finds name(){ … name|name … } in text the parser rejected, with any
// spacing.
func forkBombText(src string) bool {
	for rest := removeChars(src, " \t\r\n"); ; {
		i := strings.Index(rest, "(){")
		if i < 0 {
			return false
		}
		name := rest[strings.LastIndexAny(rest[:i], ";&|(){}'\"`")+1 : i]
		rest = rest[i+3:]
		body := rest[:min(len(rest), maxBombBody)]
		if name != "" && strings.Contains(body, name+"|"+name) {
			return true
		}
	}
}
