package app

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The fonts are resolved from Go's copy of the stacks; it must be the stack the page uses.
func TestWindowFontStacksAreTheOnesOfAppCSS(t *testing.T) {
	t.Parallel()
	css, err := os.ReadFile("../frontend/src/app.css")
	require.NoError(t, err)
	stack := func(name string) []string {
		m := regexp.MustCompile(`(?s)--` + name + `:\s*var\(--` + name + `-resolved,\)(.*?);`).FindSubmatch(css)
		require.NotNil(t, m, "app.css defines --%s after its resolved font", name)
		var families []string
		for _, f := range strings.Split(string(m[1]), ",") {
			families = append(families, strings.Trim(strings.TrimSpace(f), `"`))
		}
		return families
	}
	require.Equal(t, stack("font-ui"), uiFontStack)
	require.Equal(t, stack("font-mono"), monoFontStack)
}

func TestWindowFontsGoFirstInTheStartPage(t *testing.T) {
	t.Parallel()
	ts := startServerWithPage(t, `<!doctype html><html lang="en"><head><title>Gantry</title></head></html>`)
	ts.app.SetWindowFonts(func() ResolvedFonts { return ResolvedFonts{UI: "DejaVu Sans", Mono: "DejaVu Sans Mono"} })
	require.Contains(t, getPage(t, ts),
		`<html data-project="none" style="--font-ui-resolved:'DejaVu Sans',;--font-mono-resolved:'DejaVu Sans Mono'," lang="en">`)

	// Unknown fonts, or names that could break out of the attribute, leave the stacks as they are.
	ts.app.SetWindowFonts(func() ResolvedFonts { return ResolvedFonts{UI: `Evil" onload="x`, Mono: ""} })
	require.Contains(t, getPage(t, ts), `<html data-project="none" lang="en">`)
	ts.app.SetWindowFonts(func() ResolvedFonts { return ResolvedFonts{Mono: "Noto Sans Mono"} })
	require.Contains(t, getPage(t, ts), `<html data-project="none" style="--font-mono-resolved:'Noto Sans Mono'," lang="en">`)
}
