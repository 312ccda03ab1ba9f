package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// maxNameLen bounds a tool's name as the model sees it: OpenAI-style templates and several
// local models' parsers stop at 64 characters.
const maxNameLen = 64

// ToolName is how the model sees and calls a server's tool: mcp__<server>__<tool>. Each part
// keeps only letters, digits and single underscores, which every chat template and every call
// dialect Gantry reads (pythonic lists included) accepts; "__" then only ever separates the
// parts. A name too long is cut and given a short hash of the whole, so two long names stay
// apart.
func ToolName(server, tool string) string {
	name := "mcp__" + namePart(server) + "__" + namePart(tool)
	if len(name) <= maxNameLen {
		return name
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	return strings.TrimRight(name[:maxNameLen-7], "_") + "_" + hex.EncodeToString(sum[:3])
}

// namePart keeps s's letters and digits, the rest becoming single underscores; "x" for nothing.
func namePart(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
			continue
		}
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
			b.WriteByte('_')
		}
	}
	out := strings.TrimRight(b.String(), "_")
	if out == "" {
		return "x"
	}
	return out
}
