package tools

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// folderCodeApprover answers folder-code requests with allow and records them.
type folderCodeApprover struct {
	PolicyApprover
	allow bool

	mu    sync.Mutex
	asked []FolderCodeApproval
}

func (a *folderCodeApprover) ApproveFolderCode(_ context.Context, req FolderCodeApproval) (Decision, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, req)
	if a.allow {
		return Decision{Allowed: true}, nil
	}
	return Decision{Message: "The user did not allow it."}, nil
}

// markingTSC is a node_modules/.bin/tsc that leaves a mark next to itself when it runs.
const markingTSC = `#!/bin/sh
touch "$(dirname "$0")/../../RAN"
echo "src/a.ts(1,5): error TS2322: Type 'string' is not assignable to type 'number'."
exit 2
`

func trustFixture(t *testing.T, approver Approver, files map[string]string) (string, *Registry) {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, root, files)
	for name := range files {
		if filepath.Base(filepath.Dir(name)) == ".bin" {
			require.NoError(t, os.Chmod(filepath.Join(root, name), 0o755))
		}
	}
	reg := NewRegistry()
	require.NoError(t, reg.Register(GetDiagnostics(&Env{Root: root, Approver: approver, Checkpoints: NoCheckpoints{}})))
	return root, reg
}

func TestGetDiagnosticsRunsNoTypeScriptOfAnUntrustedFolder(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"web/tsconfig.json":         "{}\n",
		"web/src/a.ts":              "let n: number = 'x';\n",
		"web/node_modules/.bin/tsc": markingTSC,
	}
	approver := &folderCodeApprover{}
	root, reg := trustFixture(t, approver, files)
	res, err := reg.Execute(context.Background(), "get_diagnostics", map[string]any{"path": "web/src/a.ts"}, nil)
	require.NoError(t, err)
	require.NoFileExists(t, filepath.Join(root, "web", "RAN"), "the folder's tsc did not run")
	require.Contains(t, res.Content, "tsc was not run (The user did not allow it)")

	require.Len(t, approver.asked, 1, "the person was asked, on a card showing the exact program")
	asked := approver.asked[0]
	require.Equal(t, "node_modules/.bin/tsc --noEmit --pretty false -p .", asked.Command)
	require.Equal(t, filepath.Join(root, "web"), asked.Cwd)
	require.Contains(t, asked.Why, "comes with this folder")
}

func TestGetDiagnosticsRunsTheProjectsTscOnceAllowed(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"web/tsconfig.json":         "{}\n",
		"web/src/a.ts":              "let n: number = 'x';\n",
		"web/node_modules/.bin/tsc": markingTSC,
	}
	root, reg := trustFixture(t, &folderCodeApprover{allow: true}, files)
	res, err := reg.Execute(context.Background(), "get_diagnostics", map[string]any{"path": "web/src/a.ts"}, nil)
	require.NoError(t, err)
	require.FileExists(t, filepath.Join(root, "web", "RAN"))
	require.Contains(t, res.Content, "web/src/a.ts:1:5 error TS2322")
}

func TestGetDiagnosticsAsksBeforeGoVetInAnUntrustedFolder(t *testing.T) {
	t.Parallel()
	requireTool(t, "go")
	approver := &folderCodeApprover{}
	_, reg := trustFixture(t, approver, map[string]string{
		"go.mod":   "module example.com/m\n\ngo 1.22\n",
		"pkg/a.go": "package pkg\n\nimport \"fmt\"\n\nfunc A() {\n\tfmt.Printf(\"%d\\n\", \"text\")\n}\n",
	})
	res, err := reg.Execute(context.Background(), "get_diagnostics", map[string]any{"path": "pkg/a.go"}, nil)
	require.NoError(t, err)
	require.Contains(t, res.Content, "No problems found by gofmt.")
	require.Contains(t, res.Content, "go vet was not run: The user did not allow it. Only gofmt's syntax check ran.")
	require.Len(t, approver.asked, 1)
	require.Equal(t, "go vet .", approver.asked[0].Command)
}

// A PATH entry inside the workspace never supplies a checker: only the person's approval runs
// the folder's programs.
func TestGetDiagnosticsPassesOverCheckersOnPathInsideTheWorkspace(t *testing.T) {
	requireTool(t, "node")
	root, reg := trustFixture(t, &folderCodeApprover{}, map[string]string{
		"bin/node": "#!/bin/sh\ntouch \"$(dirname \"$0\")/RAN\"\n",
		"a.js":     "let x = ;\n",
	})
	require.NoError(t, os.Chmod(filepath.Join(root, "bin", "node"), 0o755))
	t.Setenv("PATH", filepath.Join(root, "bin")+string(filepath.ListSeparator)+os.Getenv("PATH"))
	res, err := reg.Execute(context.Background(), "get_diagnostics", map[string]any{"path": "a.js"}, nil)
	require.NoError(t, err)
	require.NoFileExists(t, filepath.Join(root, "bin", "RAN"))
	require.Contains(t, res.Content, "node --check found 1 problem")
}
