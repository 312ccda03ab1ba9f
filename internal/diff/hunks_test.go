package diff

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The frontend reads hunks as JSON; this pins the names and shape it relies on.
func TestHunksJSON(t *testing.T) {
	t.Parallel()
	old := "package p\r\n\r\nfunc A() {}\r\n\r\nfunc B() {}"
	new := "package p\r\n\r\nfunc A() { return }\r\n\r\nfunc B() {}\n"
	data, err := json.MarshalIndent(Hunks(old, new, 1), "", "  ")
	require.NoError(t, err)
	golden(t, "crlf-and-final-newline", string(data)+"\n")
	data, err = json.Marshal(Hunks(old, old, 1))
	require.NoError(t, err)
	require.Equal(t, "[]", string(data), "no hunks is an empty list, not null")
}

func TestHunksLines(t *testing.T) {
	t.Parallel()
	hunks := Hunks("a\nb\nc\n", "a\nB\nc\nd", 1)
	require.Equal(t, []Hunk{{
		ID: 0, OldStart: 1, OldLines: 3, NewStart: 1, NewLines: 4,
		Lines: []Line{
			{Kind: LineContext, OldNumber: 1, NewNumber: 1, Text: "a", EOL: "\n"},
			{Kind: LineDelete, OldNumber: 2, Text: "b", EOL: "\n"},
			{Kind: LineAdd, NewNumber: 2, Text: "B", EOL: "\n"},
			{Kind: LineContext, OldNumber: 3, NewNumber: 3, Text: "c", EOL: "\n"},
			{Kind: LineAdd, NewNumber: 4, Text: "d", EOL: ""},
		},
	}}, hunks)
}

func TestHunksKeepBytesThatAreNotUTF8(t *testing.T) {
	t.Parallel()
	hunks := Hunks("caf\xe9\n", "caf\xe9 \xff\n", DefaultContext)
	require.Equal(t, "caf\xe9", hunks[0].Lines[0].Text)
	require.Equal(t, "caf\xe9 \xff", hunks[0].Lines[1].Text)
}

func TestHunksIDsCountFromZero(t *testing.T) {
	t.Parallel()
	old := numbered(1, 100)
	new := strings.NewReplacer("line 10\n", "", "line 50\n", "L50\n", "line 90\n", "line 90\nmore\n").Replace(old)
	for _, context := range []int{0, DefaultContext, 10} {
		for id, h := range Hunks(old, new, context) {
			require.Equal(t, id, h.ID)
		}
	}
}
