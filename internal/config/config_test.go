package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMissingFileGivesDefaultsWithoutProblem(t *testing.T) {
	t.Parallel()
	s := Open(filepath.Join(t.TempDir(), "gantry", "settings.json"))
	require.Equal(t, Defaults(), s.Get())
	require.Empty(t, s.Problem())
}

func TestSaveThenReopen(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "gantry", "settings.json")
	s := Open(path)
	require.NoError(t, s.Save(Settings{OllamaHost: " gpu-box:11434 ", DefaultModel: "qwen3:4b"}))
	require.Equal(t, Settings{OllamaHost: "gpu-box:11434", DefaultModel: "qwen3:4b", PermissionMode: PermissionDefault, Theme: ThemeSystem, DisabledTools: []string{}}, Open(path).Get())
}

func TestAgentSettings(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "settings.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"defaultModel": "m"}`), 0o644))
	require.Equal(t, PermissionDefault, Open(path).Get().PermissionMode, "an older file gets the default mode")

	s := Open(path)
	want := Settings{PermissionMode: " Ask ", AutoApproveCommands: true, NumCtxCap: 8192, MaxIterations: 40, ModelRequests: 2}
	require.NoError(t, s.Save(want))
	want.PermissionMode, want.Theme, want.DisabledTools = PermissionAsk, ThemeSystem, []string{}
	require.Equal(t, want, Open(path).Get())

	for _, bad := range []Settings{
		{PermissionMode: "yolo"},
		{NumCtxCap: 100},
		{NumCtxCap: MaxNumCtx + 1},
		{MaxIterations: -1},
		{MaxIterations: MaxMaxIterations + 1},
		{ModelRequests: -1},
		{ModelRequests: MaxModelRequests + 1},
	} {
		require.Error(t, s.Save(bad), "%+v", bad)
	}
}

func TestCorruptFileIsKeptAsideAndDefaultsUsed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"ollamaHost": "x:1",`), 0o644))

	s := Open(path)
	require.Equal(t, Defaults(), s.Get())
	require.Contains(t, s.Problem(), "not valid JSON")
	require.Contains(t, s.Problem(), "kept as")

	matches, err := filepath.Glob(path + ".broken-*")
	require.NoError(t, err)
	require.Len(t, matches, 1)
	kept, err := os.ReadFile(matches[0])
	require.NoError(t, err)
	require.Equal(t, `{"ollamaHost": "x:1",`, string(kept), "the user's bytes survive untouched")

	require.NoError(t, s.Save(Settings{DefaultModel: "llama3.2"}))
	require.Empty(t, s.Problem())
	require.Equal(t, "llama3.2", Open(path).Get().DefaultModel)
}

func TestInvalidValueInFileIsAProblem(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "settings.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"ollamaHost": "ftp://nope"}`), 0o644))
	s := Open(path)
	require.Equal(t, Defaults(), s.Get())
	require.Contains(t, s.Problem(), "http or https")
}

func TestUnreadableFileIsAProblem(t *testing.T) {
	t.Parallel()
	// A directory where the file should be cannot be read as a file, even as root.
	path := filepath.Join(t.TempDir(), "settings.json")
	require.NoError(t, os.Mkdir(path, 0o755))
	s := Open(path)
	require.Equal(t, Defaults(), s.Get())
	require.Contains(t, s.Problem(), "Could not read")
}

func TestSaveRejectsInvalidAndKeepsCurrent(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "settings.json")
	s := Open(path)
	require.NoError(t, s.Save(Settings{OllamaHost: "127.0.0.1:11434"}))
	for _, bad := range []Settings{
		{OllamaHost: "http://"},
		{OllamaHost: "has space:1"},
		{OllamaHost: "ftp://host"},
		{DefaultModel: "two words"},
		{PermissionMode: "everything"},
	} {
		require.Error(t, s.Save(bad), "%+v", bad)
	}
	require.Equal(t, "127.0.0.1:11434", Open(path).Get().OllamaHost)
}

func TestSaveLeavesNoTempFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := Open(filepath.Join(dir, "settings.json"))
	require.NoError(t, s.Save(Settings{DefaultModel: "m"}))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
}

func TestNewSettingsRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "settings.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"defaultModel": "m"}`), 0o644))
	old := Open(path).Get()
	require.Nil(t, old.FileRules, "an older file keeps the built-in file rules")
	require.Equal(t, []string{}, old.DisabledTools)
	require.Equal(t, ThemeSystem, old.Theme)
	require.Zero(t, old.TerminalTimeout)

	s := Open(path)
	require.NoError(t, s.Save(Settings{
		AutoApproveSensitiveEdits: true,
		FileRules:                 []FileRule{{Pattern: " .env ", Action: "Ask"}, {Pattern: ".env.example", Action: FileAllow}},
		DisabledTools:             []string{"write_file", " glob", "write_file"},
		GitBranch:                 true,
		TerminalTimeout:           120,
		Theme:                     " Dark",
	}))
	got := Open(path).Get()
	require.Equal(t, Settings{
		PermissionMode:            PermissionDefault,
		AutoApproveSensitiveEdits: true,
		FileRules:                 []FileRule{{Pattern: ".env", Action: FileAsk}, {Pattern: ".env.example", Action: FileAllow}},
		DisabledTools:             []string{"glob", "write_file"},
		GitBranch:                 true,
		TerminalTimeout:           120,
		Theme:                     ThemeDark,
	}, got)

	// An empty list is kept as empty (no file is sensitive), not turned back into the defaults.
	got.FileRules = []FileRule{}
	require.NoError(t, s.Save(got))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(data), `"fileRules": []`)
	require.Equal(t, []FileRule{}, Open(path).Get().FileRules)

	// Restoring the defaults is saving nil.
	got.FileRules = nil
	require.NoError(t, s.Save(got))
	require.Nil(t, Open(path).Get().FileRules)
}

func TestNewSettingsValidation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    Settings
		want string
	}{
		{Settings{TerminalTimeout: -1}, "command timeout -1 must be between 1 and 600 seconds"},
		{Settings{TerminalTimeout: MaxTerminalTimeout + 1}, "command timeout 601"},
		{Settings{Theme: "sepia"}, `appearance "sepia" must be system, light or dark`},
		{Settings{FileRules: []FileRule{{Pattern: "", Action: FileAsk}}}, "file rule 1: the pattern is empty"},
		{Settings{FileRules: []FileRule{{Pattern: ".env", Action: FileAsk}, {Pattern: "src/[abc", Action: FileAsk}}}, `file rule 2: pattern "src/[abc" is not a valid glob`},
		{Settings{FileRules: []FileRule{{Pattern: ".env", Action: "never"}}}, `the action "never" must be ask or allow`},
		{Settings{FileRules: make([]FileRule, MaxFileRules+1)}, "too many"},
		{Settings{DisabledTools: []string{"read file"}}, `tool name "read file" is not valid`},
	} {
		err := tc.s.Validate()
		require.Error(t, err, "%+v", tc.s)
		require.Contains(t, err.Error(), tc.want)
	}
	require.NoError(t, Settings{TerminalTimeout: MaxTerminalTimeout, Theme: ThemeLight, FileRules: []FileRule{{Pattern: "/secrets/**", Action: FileAllow}}}.Validate())
}

func TestInvalidNewFieldInFileIsKeptAside(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "settings.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"fileRules": [{"pattern": "a[", "action": "ask"}]}`), 0o644))
	s := Open(path)
	require.Equal(t, Defaults(), s.Get())
	require.Contains(t, s.Problem(), "not a valid glob")
}
