package toolcall

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/dialects/expected.json with the current output")

// dialectSample is a file of testdata/dialects: model output in one dialect (or prose that
// looks like one), the source it was taken from and the tools the model was given.
type dialectSample struct {
	file  string
	text  string
	known []string
}

// dialectExpectation is what ExtractKnown, RemoveKnown and DetectPartialKnown should make
// of a sample. open marks a sample whose last call has no closing tag in its dialect (Granite
// 20B FC), so that it still reads as unfinished at the end.
type dialectExpectation struct {
	Calls []Call `json:"calls"`
	Prose string `json:"prose"`
	Open  bool   `json:"open,omitempty"`
}

func dialectSamples(t testing.TB) []dialectSample {
	files, err := filepath.Glob(filepath.Join("testdata", "dialects", "*.txt"))
	require.NoError(t, err)
	var samples []dialectSample
	for _, file := range files {
		raw, err := os.ReadFile(file)
		require.NoError(t, err)
		source, rest, _ := strings.Cut(string(raw), "\n")
		known, text, _ := strings.Cut(rest, "\n")
		require.True(t, strings.HasPrefix(source, "# source: "), "%s: the first line names the source", file)
		require.True(t, strings.HasPrefix(known, "# known: "), "%s: the second line lists the tools", file)
		samples = append(samples, dialectSample{filepath.Base(file), text, strings.Fields(strings.TrimPrefix(known, "# known: "))})
	}
	return samples
}

func (d dialectSample) isKnown(name string) bool { return slices.Contains(d.known, name) }

func dialectExpectations(t *testing.T) map[string]dialectExpectation {
	raw, err := os.ReadFile(filepath.Join("testdata", "dialects", "expected.json"))
	require.NoError(t, err)
	var want map[string]dialectExpectation
	require.NoError(t, json.Unmarshal(raw, &want))
	return want
}

// The corpus of real samples: each gives exactly the expected calls, in their dialect, and
// the expected prose.
func TestDialects(t *testing.T) {
	samples := dialectSamples(t)
	require.GreaterOrEqual(t, len(samples), 40)
	if *update {
		got := map[string]dialectExpectation{}
		for _, d := range samples {
			got[d.file] = dialectExpectation{
				Calls: ExtractKnown(d.text, d.isKnown),
				Prose: RemoveKnown(d.text, d.isKnown),
				Open:  DetectPartialKnown(d.text, d.isKnown),
			}
		}
		raw, err := json.MarshalIndent(got, "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join("testdata", "dialects", "expected.json"), append(raw, '\n'), 0o644))
	}
	want := dialectExpectations(t)
	require.Len(t, want, len(samples), "every sample needs an expectation and the reverse")
	for _, d := range samples {
		t.Run(d.file, func(t *testing.T) {
			w, ok := want[d.file]
			require.True(t, ok, "no expectation")
			calls := ExtractKnown(d.text, d.isKnown)
			if len(w.Calls) == 0 {
				require.Empty(t, calls)
			} else {
				require.Equal(t, jsonRoundTrip(t, w.Calls), jsonRoundTrip(t, calls))
			}
			require.Equal(t, w.Prose, RemoveKnown(d.text, d.isKnown))
			require.Equal(t, w.Open, DetectPartialKnown(d.text, d.isKnown))
			require.Empty(t, ExtractKnown(RemoveKnown(d.text, d.isKnown), d.isKnown), "the prose holds no call")
		})
	}
}

// Every dialect has real samples, counting the bare-JSON corpus read in known mode.
func TestDialectsCovered(t *testing.T) {
	seen := map[string]int{}
	for _, w := range dialectExpectations(t) {
		for _, c := range w.Calls {
			seen[c.Dialect]++
		}
	}
	for _, c := range legacyCorpusKnown(t) {
		seen[c.Dialect]++
	}
	for _, d := range []string{DialectJSON, DialectHermes, DialectNemotron, DialectQwen3Coder, DialectSeedOSS,
		DialectHarmony, DialectMistral, DialectLlamaPythonTag, DialectLlamaFunction, DialectPythonic,
		DialectDeepSeek, DialectGranite, DialectPhi, DialectFunctionCall, DialectOpenAIEnvelope, DialectGLM,
		DialectKimi, DialectInvokeXML, DialectCommandR, DialectGemmaToolCode} {
		require.Positive(t, seen[d], "no sample of %s", d)
	}
}

// legacyCorpusKnown reads the bare-JSON corpus (testdata/corpus) in known mode, each file
// with the tools its calls name: the same calls as Extract finds.
func legacyCorpusKnown(t *testing.T) []Call {
	raw, err := os.ReadFile(filepath.Join("testdata", "corpus", "expected.json"))
	require.NoError(t, err)
	var expected map[string][]string
	require.NoError(t, json.Unmarshal(raw, &expected))
	var all []Call
	for file, names := range expected {
		text := corpusText(t, filepath.Join("testdata", "corpus", file))
		calls := ExtractKnown(text, func(n string) bool { return slices.Contains(names, n) })
		got := []string{}
		for _, c := range calls {
			got = append(got, c.Name)
		}
		require.Equal(t, names, got, file)
		require.False(t, DetectPartialKnown(text, func(n string) bool { return slices.Contains(names, n) }), file)
		all = append(all, calls...)
	}
	return all
}

// holdMax bounds how long prose may be held back while it might still become a call.
const holdMax = 64

// Every sample streamed a byte at a time: while a call is being written DetectPartialKnown
// holds it back; prose is held only briefly; and what RemoveKnown shows only ever grows
// towards the final prose, so no markup flashes on screen.
func TestDialectsStreamed(t *testing.T) {
	for _, d := range dialectSamples(t) {
		t.Run(d.file, func(t *testing.T) {
			s := newKnownScanner(d.text, d.isKnown)
			s.run()
			final := squash(RemoveKnown(d.text, d.isKnown))
			held := 0
			for n := 1; n <= len(d.text); n++ {
				prefix := d.text[:n]
				partial := DetectPartialKnown(prefix, d.isKnown)
				inside := false
				for _, u := range s.units {
					inside = inside || u.start < n && n < u.end
				}
				if inside {
					require.True(t, partial, "a call is being written at %q", prefix)
				}
				if partial && !inside {
					held++
					require.LessOrEqual(t, held, holdMax, "prose held back at %q", prefix)
				} else {
					held = 0
				}
				shown := squash(RemoveKnown(prefix, d.isKnown))
				require.True(t, strings.HasPrefix(final, shown), "%q shows %q, not on the way to %q", prefix, shown, final)
				for _, c := range ExtractKnown(prefix, d.isKnown) {
					require.True(t, d.isKnown(c.Name))
				}
			}
		})
	}
}

// squash collapses runs of whitespace, which RemoveKnown tidies differently while the
// text around a call is still arriving.
func squash(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// jsonRoundTrip makes calls comparable with ones read from JSON (numbers as float64).
func jsonRoundTrip(t *testing.T, calls []Call) []Call {
	raw, err := json.Marshal(calls)
	require.NoError(t, err)
	var out []Call
	require.NoError(t, json.Unmarshal(raw, &out))
	return out
}
