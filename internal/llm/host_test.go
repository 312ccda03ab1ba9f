package llm

import (
	"testing"

	"github.com/ollama/ollama/envconfig"
	"github.com/stretchr/testify/require"
)

// Not parallel: every case sets OLLAMA_HOST so the real envconfig.Host() can be the oracle.
func TestResolveHostMatchesEnvconfig(t *testing.T) {
	for _, in := range []string{
		"",
		"   ",
		"localhost",
		"localhost:1234",
		"127.0.0.1:11434",
		"0.0.0.0",
		"gpu-box.lan:11434",
		"http://gpu-box.lan",
		"http://gpu-box.lan:8080",
		"https://gpu-box.lan",
		"https://gpu-box.lan:8443",
		"http://gpu-box.lan:8080/ollama",
		"gpu-box.lan:8080/ollama/v1",
		"ollama.com",
		"[::1]:11434",
		"[::1]",
		"::1",
		"http://[::1]:8080",
		"localhost:99999",
		"localhost:-1",
		"localhost:abc",
		"localhost:",
		"http://localhost:abc",
		`"localhost:1234"`,
		"'http://example.com'",
		" 10.0.0.5:4000 ",
	} {
		t.Run(in, func(t *testing.T) {
			t.Setenv("OLLAMA_HOST", in)
			want := envconfig.Host()

			fromSetting, err := ResolveHost(in)
			require.NoError(t, err)
			require.Equal(t, want, fromSetting)

			fromEnv, err := ResolveHost("")
			require.NoError(t, err)
			require.Equal(t, want, fromEnv)
		})
	}
}

func TestResolveHostSettingWinsOverEnv(t *testing.T) {
	t.Setenv("OLLAMA_HOST", "http://elsewhere:1")

	got, err := ResolveHost("localhost:2222")
	require.NoError(t, err)
	require.Equal(t, "http://localhost:2222", got.String())
}

func TestResolveHostRejectsUnusableValues(t *testing.T) {
	t.Setenv("OLLAMA_HOST", "")

	for in, want := range map[string]string{
		"ftp://files.lan:21": `the Ollama host setting "ftp://files.lan:21" uses the scheme "ftp"; use http:// or https://`,
		"unix:///tmp/sock":   `uses the scheme "unix"`,
		"my host:11434":      `the Ollama host setting "my host:11434" is not a valid address: invalid character " " in host name`,
		"http://a^b":         `is not a valid address`,
	} {
		_, err := ResolveHost(in)
		require.ErrorContains(t, err, want, in)
	}

	t.Setenv("OLLAMA_HOST", "grpc://x")
	_, err := ResolveHost("")
	require.ErrorContains(t, err, `OLLAMA_HOST "grpc://x" uses the scheme "grpc"`)
}
