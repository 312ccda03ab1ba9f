package toolcall

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func FuzzExtract(f *testing.F) {
	for _, tc := range extractCases {
		f.Add(tc.text)
	}
	for _, c := range streamCalls {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, c := range Extract(text) {
			require.NotEmpty(t, strings.TrimSpace(c.Name))
			require.NotNil(t, c.Arguments)
			require.NotEmpty(t, c.Dialect)
		}
		DetectPartial(text)
		out := Remove(text)
		require.NotContains(t, out, "<tool_call>")
		requireNoTag(t, out, text)
	})
}

func FuzzExtractKnown(f *testing.F) {
	for _, tc := range knownCases {
		f.Add(tc.text)
	}
	for _, tc := range extractCases {
		f.Add(tc.text)
	}
	for _, d := range dialectSamples(f) {
		f.Add(d.text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, c := range ExtractKnown(text, isKnownTool) {
			require.NotEmpty(t, strings.TrimSpace(c.Name))
			require.True(t, isKnownTool(c.Name), "call to %q", c.Name)
			require.NotNil(t, c.Arguments)
			require.NotEmpty(t, c.Dialect)
		}
		DetectPartialKnown(text, isKnownTool)
		RemoveKnown(text, isKnownTool)
	})
}
