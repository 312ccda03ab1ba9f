package safety

import (
	"path"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// arg is one shell word reduced to the value the shell would pass to the program.
type arg struct {
	text   string // expansions other than $HOME and $IFS stay as written, e.g. "$DIR/x"
	static bool   // false when part of the value is only known at run time
	split  bool   // holds $IFS, which the shell turns into word breaks: rm${IFS}-rf${IFS}/
	word   *syntax.Word
}

// resolveWord turns quoting into plain text so 'r'm, r\m and "rm" all read as rm. $HOME
// and ${HOME} become ~ because for every rule here they name the same place; $IFS becomes
// a space so the words it hides can be read again.
func resolveWord(w *syntax.Word) arg {
	var b strings.Builder
	a := arg{static: true, word: w}
	appendParts(&b, w.Parts, false, &a)
	a.text = b.String()
	return a
}

func appendParts(b *strings.Builder, parts []syntax.WordPart, quoted bool, a *arg) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, quoted))
		case *syntax.SglQuoted:
			if p.Dollar {
				b.WriteString(ansiC(p.Value))
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			appendParts(b, p.Parts, true, a)
		case *syntax.ParamExp:
			switch {
			case isPlain(p, "HOME"):
				b.WriteByte('~')
			case isPlain(p, "IFS") && !quoted:
				a.static, a.split = false, true
				b.WriteByte(' ')
			default:
				a.static = false
				b.WriteByte('$')
				if p.Param != nil {
					b.WriteString(p.Param.Value)
				}
			}
		default:
			a.static = false
			b.WriteString("$(…)")
		}
	}
}

// isPlain reports whether p is $name or ${name} with no operator applied.
func isPlain(p *syntax.ParamExp, name string) bool {
	return p.Param != nil && p.Param.Value == name && !p.Excl && !p.Length && !p.Width &&
		p.Index == nil && p.Slice == nil && p.Repl == nil && p.Exp == nil && p.Names == 0
}

// unescape drops the backslashes the shell removes. Inside double quotes a backslash only
// escapes $ ` " \ and newline; elsewhere it escapes anything.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		next := s[i+1]
		switch {
		case next == '\n':
			i++
		case !quoted || strings.IndexByte("$`\"\\", next) >= 0:
			b.WriteByte(next)
			i++
		default:
			b.WriteByte('\\')
		}
	}
	return b.String()
}

// ansiC decodes $'…'. Go's escapes cover the ones that matter for hiding a program name
// (\x72, \162, \u0072); anything it does not know is kept as written.
func ansiC(s string) string {
	var b strings.Builder
	for s != "" {
		r, _, tail, err := strconv.UnquoteChar(s, '\'')
		if err != nil {
			b.WriteByte(s[0])
			s = s[1:]
			continue
		}
		b.WriteRune(r)
		s = tail
	}
	return b.String()
}

// programName is how a command word is looked up: /usr/bin/rm and \rm are rm, and RM is rm
// too because macOS file systems ignore case.
func programName(a arg) string {
	return strings.ToLower(path.Base(a.text))
}

// options describes a program's flags well enough to find where its operands start.
type options struct {
	short string   // single-letter flags that take a value: "u" for sudo -u root
	long  []string // long flags that take a value when not written as --flag=value
}

// skip returns the arguments after the leading flags, following getopt: a value may be
// attached (-uroot) or the next word (-u root), and "--" ends the flags.
func (o options) skip(args []arg) []arg {
	for len(args) > 0 {
		t := args[0].text
		switch {
		case t == "--":
			return args[1:]
		case len(t) < 2 || t[0] != '-':
			return args
		case strings.HasPrefix(t, "--"):
			args = args[1:]
			if !strings.Contains(t, "=") && o.takesLong(t[2:]) && len(args) > 0 {
				args = args[1:]
			}
		default:
			args = args[1:]
			if o.shortNeedsNext(t[1:]) && len(args) > 0 {
				args = args[1:]
			}
		}
	}
	return args
}

func (o options) takesLong(name string) bool {
	for _, l := range o.long {
		if l == name {
			return true
		}
	}
	return false
}

// shortNeedsNext reports whether a cluster such as "Eu" ends in a flag whose value is the
// next word; in "uroot" the value is attached.
func (o options) shortNeedsNext(cluster string) bool {
	for i := 0; i < len(cluster); i++ {
		if strings.IndexByte(o.short, cluster[i]) >= 0 {
			return i == len(cluster)-1
		}
	}
	return false
}

// operands returns the arguments that are neither flags nor their values.
func (o options) operands(args []arg) []arg {
	var out []arg
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "--":
			return append(out, args[i+1:]...)
		case !isFlag(t):
			out = append(out, args[i])
		case strings.HasPrefix(t, "--"):
			if !strings.Contains(t, "=") && o.takesLong(t[2:]) {
				i++
			}
		case o.shortNeedsNext(t[1:]):
			i++
		}
	}
	return out
}

// operands returns the non-flag arguments; with "--" everything after it counts.
func operands(args []arg) []arg {
	var out []arg
	for i, a := range args {
		if a.text == "--" {
			return append(out, args[i+1:]...)
		}
		if !isFlag(a.text) {
			out = append(out, a)
		}
	}
	return out
}

func firstOperand(args []arg) string {
	if ops := operands(args); len(ops) > 0 {
		return ops[0].text
	}
	return ""
}

func isFlag(t string) bool { return len(t) > 1 && t[0] == '-' }

// hasShortFlag reports whether any single-dash cluster before "--" contains letter, so
// -rf, -fr and -r -f all count for r.
func hasShortFlag(args []arg, letter byte) bool {
	for _, a := range args {
		t := a.text
		if t == "--" {
			return false
		}
		if isFlag(t) && t[1] != '-' && strings.IndexByte(t[1:], letter) >= 0 {
			return true
		}
	}
	return false
}

// hasLongFlag reports whether --name or --name=value appears before "--".
func hasLongFlag(args []arg, name string) bool {
	for _, a := range args {
		t := a.text
		if t == "--" {
			return false
		}
		if t == "--"+name || strings.HasPrefix(t, "--"+name+"=") {
			return true
		}
	}
	return false
}

func hasArg(args []arg, want ...string) bool {
	for _, a := range args {
		for _, w := range want {
			if a.text == w {
				return true
			}
		}
	}
	return false
}

func texts(args []arg) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a.text
	}
	return out
}
