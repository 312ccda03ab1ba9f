package trust

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTrustIsRememberedCoversFoldersInsideAndCanBeRevoked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "trusted-folders.json")
	project := filepath.Join(dir, "project")
	require.NoError(t, os.MkdirAll(filepath.Join(project, "sub"), 0o755))

	s := Open(file)
	require.Empty(t, s.Problem())
	require.False(t, s.Trusted(project), "a folder is untrusted until the person says otherwise")
	require.NoError(t, s.Trust(project))
	require.NoError(t, s.Trust(project), "trusting twice changes nothing")

	again := Open(file)
	require.True(t, again.Trusted(project))
	require.True(t, again.Trusted(filepath.Join(project, "sub")))
	require.False(t, again.Trusted(dir), "not the folder around it")
	require.False(t, again.Trusted(project+"-other"), "not a sibling that shares the name's start")
	require.Len(t, again.Folders(), 1)

	require.NoError(t, again.Revoke(project))
	require.False(t, Open(file).Trusted(project))
}

func TestALinkIsTrustedAsWhatItPointsTo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	require.NoError(t, os.Mkdir(real, 0o755))
	require.NoError(t, os.Symlink(real, filepath.Join(dir, "link")))
	s := Open(filepath.Join(t.TempDir(), "t.json"))
	require.NoError(t, s.Trust(filepath.Join(dir, "link")))
	require.True(t, s.Trusted(real))
	require.Equal(t, real, s.Folders()[0].Path)
}

func TestABrokenFileTrustsNothingAndIsKeptAside(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "trusted-folders.json")
	for _, content := range []string{"{not json", `{"folders":[{"path":"relative/x"}]}`} {
		require.NoError(t, os.WriteFile(file, []byte(content), 0o600))
		s := Open(file)
		require.Contains(t, s.Problem(), "Gantry trusts no folder until you trust one again")
		require.Empty(t, s.Folders())
		require.NoFileExists(t, file, "moved aside, so the next save keeps what the person had")
		aside, err := filepath.Glob(file + ".broken-*")
		require.NoError(t, err)
		require.NotEmpty(t, aside)
		for _, a := range aside {
			require.NoError(t, os.Remove(a))
		}
	}
}

func TestRelativePathsAreRefused(t *testing.T) {
	t.Parallel()
	s := Open(filepath.Join(t.TempDir(), "t.json"))
	require.Error(t, s.Trust("relative"))
	require.False(t, s.Trusted("relative"))
}

func TestEitherTrustsWhatAnyTrusts(t *testing.T) {
	t.Parallel()
	file := Open(filepath.Join(t.TempDir(), "t.json"))
	require.NoError(t, file.Trust("/a"))
	both := Either{Trusting("/b"), file}
	require.True(t, both.Trusted("/a/x"))
	require.True(t, both.Trusted("/b"))
	require.False(t, both.Trusted("/c"))
}
