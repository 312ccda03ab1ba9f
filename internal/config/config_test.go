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
	require.Equal(t, Settings{OllamaHost: "gpu-box:11434", DefaultModel: "qwen3:4b", PermissionMode: PermissionDefault}, Open(path).Get())
}

func TestAgentSettings(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "settings.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"defaultModel": "m"}`), 0o644))
	require.Equal(t, PermissionDefault, Open(path).Get().PermissionMode, "an older file gets the default mode")

	s := Open(path)
	want := Settings{PermissionMode: " Ask ", AutoApproveCommands: true, NumCtxCap: 8192, MaxIterations: 40}
	require.NoError(t, s.Save(want))
	want.PermissionMode = PermissionAsk
	require.Equal(t, want, Open(path).Get())

	for _, bad := range []Settings{
		{PermissionMode: "yolo"},
		{NumCtxCap: 100},
		{NumCtxCap: MaxNumCtx + 1},
		{MaxIterations: -1},
		{MaxIterations: MaxMaxIterations + 1},
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
