package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func attachTestRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	var lines []string
	for i := 1; i <= 12; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	writeTree(t, root, map[string]string{
		"src/a.go":  "package a\r\n\r\nfunc A() {}\r\n",
		"long.txt":  strings.Join(lines, "\n") + "\n",
		"empty.txt": "",
		"bin.dat":   "\x7fELF\x00\x00\x01",
	})
	return root
}

func TestRenderAttachments(t *testing.T) {
	t.Parallel()
	root := attachTestRoot(t)
	for name, tc := range map[string]struct {
		att  Attachment
		want string
	}{
		"whole file": {Attachment{Path: "src/a.go"},
			"Contents of src/a.go (already provided — do not re-read):\n```\n1| package a\n2| \n3| func A() {}\n```"},
		"range": {Attachment{Path: "long.txt", StartLine: 9, EndLine: 11},
			"User's selected code from long.txt:L9-L11 (already provided — do not re-read):\n```\n 9| line 9\n10| line 10\n11| line 11\n```"},
		"range past the end is clamped": {Attachment{Path: "long.txt", StartLine: 11, EndLine: 40},
			"User's selected code from long.txt:L11-L12 (already provided — do not re-read):\n```\n11| line 11\n12| line 12\n```"},
		"open-ended range": {Attachment{Path: "long.txt", StartLine: 12},
			"User's selected code from long.txt:L12-L12 (already provided — do not re-read):\n```\n12| line 12\n```"},
		"up to a line": {Attachment{Path: "long.txt", EndLine: 2},
			"User's selected code from long.txt:L1-L2 (already provided — do not re-read):\n```\n1| line 1\n2| line 2\n```"},
		"absolute path inside": {Attachment{Path: filepath.Join(root, "long.txt"), StartLine: 1, EndLine: 1},
			"User's selected code from long.txt:L1-L1 (already provided — do not re-read):\n```\n1| line 1\n```"},
		"empty file": {Attachment{Path: "empty.txt"},
			"Contents of empty.txt (an empty file) (already provided — do not re-read):\n```\n```"},
	} {
		got, err := RenderAttachments(root, []Attachment{tc.att})
		require.NoError(t, err, name)
		require.Equal(t, tc.want, got, name)
	}
}

func TestRenderAttachmentsRefuses(t *testing.T) {
	t.Parallel()
	root := attachTestRoot(t)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	require.NoError(t, os.WriteFile(outside, []byte("key\n"), 0o600))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "link.txt")))
	for name, tc := range map[string]struct {
		att  Attachment
		want string
	}{
		"outside":          {Attachment{Path: "../x.txt"}, "outside the workspace"},
		"absolute outside": {Attachment{Path: outside}, "outside the workspace"},
		"link outside":     {Attachment{Path: "link.txt"}, "link.txt"},
		"missing":          {Attachment{Path: "nope.txt"}, "no such file"},
		"folder":           {Attachment{Path: "src"}, "not a regular file"},
		"binary":           {Attachment{Path: "bin.dat"}, "not text, so it cannot be attached"},
		"start past end":   {Attachment{Path: "long.txt", StartLine: 13}, "only 12 lines"},
		"reversed range":   {Attachment{Path: "long.txt", StartLine: 5, EndLine: 4}, "before it starts"},
		"negative":         {Attachment{Path: "long.txt", StartLine: -1}, "start at 1"},
	} {
		_, err := RenderAttachments(root, []Attachment{{Path: "long.txt"}, tc.att})
		require.ErrorContains(t, err, tc.want, name)
		require.ErrorContains(t, err, "attachment "+tc.att.Path, name)
	}
}

func TestRenderAttachmentsCutsLargeFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	var b strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&b, "row %d of a long generated file\n", i)
	}
	b.WriteString(strings.Repeat("y", 10_000) + "\n")
	writeTree(t, root, map[string]string{"big.txt": b.String(), "wide.txt": strings.Repeat("é", 2000) + "\n"})

	got, err := RenderAttachments(root, []Attachment{{Path: "big.txt"}})
	require.NoError(t, err)
	require.Less(t, len(got), attachMaxBytes+500)
	require.Regexp(t, `^User's selected code from big\.txt:L1-L\d+ \(already provided`, got, "a cut file says which lines it gives")
	require.Contains(t, got, "only the lines above are provided")
	require.NotContains(t, got, "row 5000")

	got, err = RenderAttachments(root, []Attachment{{Path: "big.txt", StartLine: 5001}})
	require.NoError(t, err)
	require.Contains(t, got, "…(line cut)")
	require.Less(t, len(got), attachMaxLineBytes+300)

	got, err = RenderAttachments(root, []Attachment{{Path: "wide.txt"}})
	require.NoError(t, err)
	require.Contains(t, got, "…(line cut)")
	require.True(t, strings.Contains(got, "é …(line cut)"), "cut on a character boundary")
}

func TestUserMessage(t *testing.T) {
	t.Parallel()
	root := attachTestRoot(t)
	msg, err := UserMessage("Why is A empty?", nil, root)
	require.NoError(t, err)
	require.Equal(t, "Why is A empty?", msg)

	msg, err = UserMessage("Why is A empty?", []Attachment{{Path: "src/a.go"}, {Path: "long.txt", StartLine: 2, EndLine: 2}}, root)
	require.NoError(t, err)
	require.Equal(t, "Contents of src/a.go (already provided — do not re-read):\n```\n1| package a\n2| \n3| func A() {}\n```\n\n"+
		"User's selected code from long.txt:L2-L2 (already provided — do not re-read):\n```\n2| line 2\n```\n\n"+
		"Why is A empty?", msg)

	_, err = UserMessage("x", []Attachment{{Path: "../etc/passwd"}}, root)
	require.Error(t, err)
}

// writeTree writes files (slash paths to contents) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
}
