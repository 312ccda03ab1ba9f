package safety

import "strings"

// commandQuotes are the languages where backticks run a shell command and give its output.
var commandQuotes = map[string]bool{"Perl": true, "Ruby": true, "PHP": true}

// quoteForm is how a string literal found by quoteAt is written.
type quoteForm struct {
	open, close byte // open is set only for bracket pairs, which nest: qx{ {} }
	body        int  // where the text starts
	command     bool // the language runs the text as a shell command
}

// quoteAt reports whether a string literal opens at src[i]: '…' and "…" in every language,
// backticks in JavaScript (template strings, which hold text) and in Perl, Ruby and PHP
// (commands), and the quote-like forms people reach for when quotes get awkward: Perl's
// q{} qq{} qw{} qx{} and Ruby's %q() %Q() %w() %x(), with any delimiter.
func quoteAt(src string, i int, lang string) (quoteForm, bool) {
	c := src[i]
	switch {
	case c == '\'' || c == '"':
		return quoteForm{close: c, body: i + 1}, true
	case c == '`' && lang == "JavaScript":
		return quoteForm{close: c, body: i + 1}, true
	case c == '`' && commandQuotes[lang]:
		return quoteForm{close: c, body: i + 1, command: true}, true
	case lang == "Perl" && c == 'q' && (i == 0 || !isWordByte(src[i-1]) && strings.IndexByte("$@%&", src[i-1]) < 0):
		j := i + 1
		if j < len(src) && strings.IndexByte("qwx", src[j]) >= 0 {
			j++
		}
		return delimited(src, j, src[j-1] == 'x')
	case lang == "Ruby" && c == '%' && i+1 < len(src) && strings.IndexByte("qQwWx", src[i+1]) >= 0:
		return delimited(src, i+2, src[i+1] == 'x')
	}
	return quoteForm{}, false
}

// delimited reads the delimiter of a quote-like form at src[j]; brackets close with their
// pair, anything else with itself. A word, a space or an operator there means it was a
// name after all (q => 1, %w = 2).
func delimited(src string, j int, command bool) (quoteForm, bool) {
	if j >= len(src) {
		return quoteForm{}, false
	}
	d := src[j]
	if isWordByte(d) || d <= ' ' || d >= 0x80 || strings.IndexByte("=,;)]}>", d) >= 0 {
		return quoteForm{}, false
	}
	q := quoteForm{close: d, body: j + 1, command: command}
	if k := strings.IndexByte("([{<", d); k >= 0 {
		q.open, q.close = d, ")]}>"[k]
	}
	return q, true
}

// bareSpawns are the Perl and Ruby calls that start a program and need no parentheses:
// system "rm -rf /", exec "make", spawn "ls".
var bareSpawns = []string{"system", "exec", "spawn"}

// startsPrograms finds what the token list misses in Perl, Ruby and PHP: backticks, qx and
// %x in any delimiters, and a bare spawn followed by its string or list.
func startsPrograms(src, lang string, lits []literal) bool {
	if !commandQuotes[lang] {
		return false
	}
	if strings.Contains(src, "`") {
		return true
	}
	for _, l := range lits {
		if l.command {
			return true
		}
	}
	return lang != "PHP" && (bareSpawn(src, lang) || pipeOpen(src, lits))
}

// pipeOpen finds Perl's and Ruby's open of a pipe, which runs a command: open(F, "|sh"),
// open(my $fh, "-|", "ls"), open(F, "ls |"), Ruby's open("| cmd").
func pipeOpen(src string, lits []literal) bool {
	if !anyToken(src, []string{"open"}) {
		return false
	}
	for _, l := range lits {
		t := strings.TrimSpace(l.text)
		// "|" alone is a separator (join("|", …)); "-|" and "|-" are open's pipe modes.
		if t != "|" && (strings.HasPrefix(t, "|") || strings.HasSuffix(t, "|")) {
			return true
		}
	}
	return false
}

// bareSpawn reports whether src calls one of bareSpawns as a word followed by whitespace
// and a quote, a quote-like form or a bracket: system "ls" but not "the system is up".
func bareSpawn(src, lang string) bool {
	for _, name := range bareSpawns {
		for from := 0; ; {
			i := strings.Index(src[from:], name)
			if i < 0 {
				break
			}
			i += from
			end := i + len(name)
			from = end
			if i > 0 && isWordByte(src[i-1]) {
				continue
			}
			j := end
			for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\n') {
				j++
			}
			if j == end || j == len(src) {
				continue
			}
			if _, quoted := quoteAt(src, j, lang); quoted || strings.IndexByte("[{(", src[j]) >= 0 {
				return true
			}
		}
	}
	return false
}
