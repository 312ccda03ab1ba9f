// Command codebench measures the code intelligence tools on a real project (this repository by
// default), next to gopls's own command line in the same run, for `make bench`:
//
//   - cold: find_references from nothing (a new gopls that loads the workspace) against
//     `gopls references` on the same position, which also loads it from nothing; the median of 3
//     each, run in turn after one discarded CLI run so both find gopls's file cache as warm;
//   - warm: find_definition and find_references through the tool registry, median of 20, split
//     into the time gopls took (Client.ServerTime) and what Gantry adds around it;
//   - memory: gopls's resident memory after the warm runs.
//
// Each result is printed as one line "name<TAB>value<TAB>unit" so a script can tabulate it.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gantry/internal/lsp"
	"gantry/internal/terminal"
	"gantry/internal/tools"
)

// The questions asked: uses of a type the whole tool layer names, and the definition of a
// function called from another file of the package.
const (
	refsFile   = "internal/tools/about.go"
	refsSymbol = "About"
	defsFile   = "internal/tools/codeintel.go"
	defsSymbol = "Fail"
	coldRuns   = 3
	warmRuns   = 20
)

func main() {
	root := flag.String("root", ".", "the Go project to ask about (it must hold "+refsFile+")")
	toolsDir := flag.String("tools", defaultToolsDir(), "Gantry's tools folder, where gopls may be installed")
	flag.Parse()
	if err := run(*root, *toolsDir); err != nil {
		fmt.Fprintln(os.Stderr, "codebench:", err)
		os.Exit(1)
	}
}

func defaultToolsDir() string {
	if d := os.Getenv("GANTRY_TOOLS_DIR"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "gantry", "tools")
}

func report(name string, value float64, unit string) {
	fmt.Printf("%s\t%.2f\t%s\n", name, value, unit)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func run(root, toolsDir string) error {
	root, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	gopls := lsp.Find("gopls", "", root, []string{toolsDir})
	if gopls == "" {
		return errors.New("gopls is not installed (scripts/install-deps.sh --test installs it)")
	}
	text, err := os.ReadFile(filepath.Join(root, refsFile))
	if err != nil {
		return err
	}
	pos, err := lsp.Where{Symbol: refsSymbol}.Resolve(string(text))
	if err != nil {
		return err
	}
	// Pos is 1-based like gopls's command line, which counts bytes: the line is ASCII.
	at := fmt.Sprintf("%s:%d:%d", refsFile, pos.Line, pos.Char)
	if _, err := cli(root, gopls, at); err != nil { // warms gopls's file cache for both
		return err
	}

	var ours, theirs []time.Duration
	var oursCount, theirsCount int
	for range coldRuns {
		d, n, err := coldReferences(root, toolsDir)
		if err != nil {
			return err
		}
		ours, oursCount = append(ours, d), n
		start := time.Now()
		lines, err := cli(root, gopls, at)
		if err != nil {
			return err
		}
		theirs, theirsCount = append(theirs, time.Since(start)), lines
	}
	report(fmt.Sprintf("cold find_references (%d places)", oursCount), ms(median(ours)), "ms")
	report(fmt.Sprintf("cold gopls references CLI (%d places)", theirsCount), ms(median(theirs)), "ms")

	return warm(root, toolsDir)
}

// cli runs `gopls references` and counts the places it printed.
func cli(root, gopls, at string) (int, error) {
	cmd := exec.Command(gopls, "references", "-d", at)
	cmd.Dir = root
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("gopls references %s: %v: %s", at, err, strings.TrimSpace(errOut.String()))
	}
	return strings.Count(strings.TrimSpace(out.String()), "\n") + 1, nil
}

// session is the registry a run would have over root, with its own language servers.
func session(root, toolsDir string) (*tools.Registry, *lsp.Manager, error) {
	m := lsp.NewManager(lsp.Options{Root: root, ToolsDirs: []string{toolsDir}})
	env := &tools.Env{Root: root, Approver: tools.PolicyApprover{}, Checkpoints: tools.NoCheckpoints{}, Code: m}
	reg, err := tools.NewBuiltinRegistry(env, terminal.NewSession(root))
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	return reg, m, nil
}

// coldReferences is one find_references from a workspace with no server running.
func coldReferences(root, toolsDir string) (time.Duration, int, error) {
	reg, m, err := session(root, toolsDir)
	if err != nil {
		return 0, 0, err
	}
	defer m.Close()
	start := time.Now()
	res, err := reg.Execute(context.Background(), "find_references", map[string]any{"path": refsFile, "symbolName": refsSymbol}, nil)
	took := time.Since(start)
	if err != nil {
		return 0, 0, err
	}
	if res.ErrorKind != "" {
		return 0, 0, fmt.Errorf("find_references: %s", res.Content)
	}
	return took, len(res.Meta.Places), nil
}

// warm asks the same questions of one running gopls, splitting each answer's time into the
// server's and Gantry's.
func warm(root, toolsDir string) error {
	reg, m, err := session(root, toolsDir)
	if err != nil {
		return err
	}
	defer m.Close()
	ctx := context.Background()
	client, err := m.Client(ctx, filepath.Join(root, refsFile), lsp.Caller{Trusted: true})
	if err != nil {
		return err
	}
	questions := []struct {
		tool, file, symbol string
	}{
		{"find_definition", defsFile, defsSymbol},
		{"find_references", refsFile, refsSymbol},
	}
	for _, q := range questions {
		args := map[string]any{"path": q.file, "symbolName": q.symbol}
		if _, err := reg.Execute(ctx, q.tool, args, nil); err != nil { // opens the file, loads the package
			return err
		}
		var total, server, added []time.Duration
		for range warmRuns {
			before := client.ServerTime()
			start := time.Now()
			res, err := reg.Execute(ctx, q.tool, args, nil)
			took := time.Since(start)
			if err != nil {
				return err
			}
			if res.ErrorKind != "" {
				return fmt.Errorf("%s: %s", q.tool, res.Content)
			}
			s := client.ServerTime() - before
			total, server, added = append(total, took), append(server, s), append(added, took-s)
		}
		report("warm "+q.tool+", median", ms(median(total)), "ms")
		report("  of which gopls", ms(median(server)), "ms")
		report("  of which Gantry (tool and client)", ms(median(added)), "ms")
	}
	for _, st := range m.Statuses("") {
		if st.ID == "go" && st.RSS > 0 {
			report("gopls resident memory", float64(st.RSS)/(1<<20), "MB")
		}
	}
	return nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
