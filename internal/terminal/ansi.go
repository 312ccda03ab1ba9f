package terminal

import "strings"

// StripANSI removes what a terminal would interpret rather than show: CSI sequences (colours,
// cursor moves), OSC strings ended by BEL or ST (titles, hyperlinks, shell-integration marks),
// other escape sequences and stray control characters. A lone CR rewinds its line as on a
// terminal, so of a progress bar only the last state is left.
func StripANSI(s string) string {
	var out strings.Builder
	lines := lineBuilder{emit: func(line []byte, _ int, ended bool) {
		out.Write(line)
		if ended {
			out.WriteByte('\n')
		}
	}}
	var st stripper
	st.write([]byte(s), lines.write)
	lines.end()
	return out.String()
}

type escState uint8

const (
	ground   escState = iota
	escape            // after ESC
	escInter          // ESC and intermediate bytes, such as the "(" of "ESC ( B"
	csi               // after ESC [
	str               // inside an OSC, DCS, SOS, PM or APC string
	strEsc            // ESC inside a string: ST if a backslash follows
)

// stripper removes escape sequences from a byte stream. It keeps its state between writes, so
// a sequence split across two reads of the pipe is still recognised.
type stripper struct{ state escState }

// write passes the visible runs of p to out, in order; out must not keep the slices.
func (s *stripper) write(p []byte, out func([]byte)) {
	start := 0
	for i, c := range p {
		if s.visible(c) {
			continue
		}
		if start < i {
			out(p[start:i])
		}
		start = i + 1
	}
	if start < len(p) {
		out(p[start:])
	}
}

func (s *stripper) visible(c byte) bool {
	const esc, bel = 0x1b, 0x07
	switch s.state {
	case escape:
		switch {
		case c == '[':
			s.state = csi
		case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
			s.state = str
		case c >= 0x20 && c <= 0x2f:
			s.state = escInter
		case c >= 0x30 && c <= 0x7e:
			s.state = ground
		case c == esc:
		default:
			return s.abort(c)
		}
		return false
	case escInter:
		switch {
		case c >= 0x20 && c <= 0x2f:
		case c >= 0x30 && c <= 0x7e:
			s.state = ground
		default:
			return s.abort(c)
		}
		return false
	case csi:
		switch {
		case c >= 0x20 && c <= 0x3f:
		case c >= 0x40 && c <= 0x7e:
			s.state = ground
		default:
			return s.abort(c)
		}
		return false
	case str:
		switch c {
		case bel:
			s.state = ground
		case esc:
			s.state = strEsc
		case '\n':
			// Terminals would go on swallowing, but no real string spans lines: a stray
			// "ESC ]" in binary output must not hide everything after it.
			return s.abort(c)
		}
		return false
	case strEsc:
		if c == '\\' {
			s.state = ground
			return false
		}
		s.state = escape
		return s.visible(c)
	}
	if c == esc {
		s.state = escape
		return false
	}
	return c >= 0x20 && c != 0x7f || c == '\n' || c == '\r' || c == '\t'
}

// abort ends a malformed sequence; the byte that broke it is read as ordinary text.
func (s *stripper) abort(c byte) bool {
	s.state = ground
	return s.visible(c)
}
