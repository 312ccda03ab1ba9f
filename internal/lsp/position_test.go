package lsp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWhereResolvesAsReference001Says(t *testing.T) {
	t.Parallel()
	text := strings.Join([]string{
		`import { handle } from "./h"`, // 1
		`// handle the request`,        // 2
		`function serve() {`,           // 3
		`  handle(req)`,                // 4
		`  rehandle(req)`,              // 5
		`}`,                            // 6
		`function HANDLE() {}`,         // 7
		`  server.Start()`,             // 8
		`  const é = "x"; handle(é)`,   // 9
	}, "\n")
	for _, tc := range []struct {
		w    Where
		want Pos
	}{
		{Where{Symbol: "handle"}, Pos{4, 3}},           // not the import, not the comment
		{Where{Symbol: "handle", Line: 9}, Pos{9, 18}}, // the nearest to line 9
		{Where{Symbol: "Handle"}, Pos{4, 3}},           // case-insensitive only when no exact match
		{Where{Symbol: "server.Start"}, Pos{8, 10}},    // a qualified name points at its last part
		{Where{Symbol: "Server.Start"}, Pos{8, 10}},
		{Where{Line: 4}, Pos{4, 3}}, // a line alone: its first character
		{Where{Line: 5, Char: 3}, Pos{5, 3}},
	} {
		got, err := tc.w.Resolve(text)
		require.NoError(t, err, "%+v", tc.w)
		require.Equal(t, tc.want, got, "%+v", tc.w)
	}
	for w, msg := range map[Where]string{
		{Symbol: "handel"}:  `"handel" does not appear`,
		{Symbol: "hand"}:    "names in the file that are close: HANDLE, handle, rehandle",
		{Line: 40}:          "line 40 is past the end of the file, which has 9 lines",
		{Line: 4, Char: 99}: "character 99 is past the end of line 4",
		{}:                  "give symbolName",
	} {
		_, err := w.Resolve(text)
		require.ErrorContains(t, err, msg, "%+v", w)
	}
}

func TestPositionsTravelInUTF16(t *testing.T) {
	t.Parallel()
	lines := []string{"a😀b = é"}
	line, char := toWire(lines, Pos{Line: 1, Char: 3}) // b, after an emoji of two UTF-16 units
	require.Equal(t, [2]uint32{0, 3}, [2]uint32{line, char})
	require.Equal(t, Pos{Line: 1, Char: 3}, fromWire(lines, 0, 3))
	require.Equal(t, Pos{Line: 1, Char: 7}, fromWire(lines, 0, 7))
}
