#!/usr/bin/env bash
# The integration suite against a real Ollama server (README "Using a real Ollama").
#
#   scripts/ollama-integration.sh [OUT_DIR]    (default test-output/ollama)
#
# Builds Ollama (OLLAMA_VERSION) once with `go install` into a cache folder outside the repository
# and reuses it later; then runs the Go suite (integration/realollama, build tag realollama) and
# the browser tests (frontend/e2e-real). Each test starts its servers on loopback ports of their
# own with their own model folders, and stops them. Reports: OUT_DIR/go.json and OUT_DIR/e2e.json.
# The test model ships with the repository (integration/realollama/testdata/) and is checked by
# its sha256. Only a server that cannot be built skips the suite: OUT_DIR/SKIPPED says why and
# how to fix it, and the script exits 0; scripts/test.sh shows the skip in its summary line and
# counts it as a failure under CI=true.
#
# Environment: GANTRY_BIN (a `gantry serve`-capable build; built when unset), GANTRY_TEST_GGUF
# (another copy of the test model), XDG_CACHE_HOME.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${1:-test-output/ollama}
mkdir -p "$out" && out=$(cd "$out" && pwd)
rm -f "$out/SKIPPED" "$out/go.json" "$out/e2e.json"

version=v0.6.5 # keep in step with integration/realollama.Version
cache="${XDG_CACHE_HOME:-$HOME/.cache}/gantry/ollama-$version"
ollama="$cache/ollama"
model=llama-2-tiny-random.gguf
model_sha=81f226c62d28ed4a1a9b9fa080fcd9f0cc40e0f9d5680036583ff98fbcd035cb

gguf=${GANTRY_TEST_GGUF:-$root/integration/realollama/testdata/$model}

skip() {
  printf '%s\n' "$1" >"$out/SKIPPED"
  echo "SKIPPED: $1"
  exit 0
}

if [[ ! -x $ollama ]]; then
  echo "── building Ollama $version into $cache (first run only; about 90 s on two cores)"
  mkdir -p "$cache"
  # Outside the module's GOFLAGS: `go install pkg@version` builds Ollama's own module.
  if ! GOFLAGS= GOBIN="$cache" go install "github.com/ollama/ollama@$version" >"$out/build.log" 2>&1; then
    skip "Ollama $version could not be built: $(tail -n 1 "$out/build.log") (log: $out/build.log). Fix: make the Go module proxy reachable and gcc/g++ installed, then run GOBIN=$cache go install github.com/ollama/ollama@$version"
  fi
fi
# A missing or changed model is a broken checkout, not a reason to skip.
if ! echo "$model_sha  $gguf" | sha256sum -c --status 2>/dev/null; then
  echo "FAIL: the test model $gguf is missing or is not $model (sha256 $model_sha)"
  exit 1
fi
gguf=$(cd "$(dirname "$gguf")" && pwd)/$(basename "$gguf")

gantry=${GANTRY_BIN:-}
if [[ -z $gantry ]]; then
  gantry="$out/gantry-serve"
  echo "── building gantry (browser mode)"
  CGO_ENABLED=0 go build -o "$gantry" . || { echo "building gantry failed"; exit 1; }
fi
gantry=$(cd "$(dirname "$gantry")" && pwd)/$(basename "$gantry")

export GANTRY_OLLAMA_BIN=$ollama GANTRY_TEST_GGUF=$gguf GANTRY_BIN=$gantry

echo "── Go suite (integration/realollama)"
go test -tags realollama -race -count=1 -timeout 30m -json ./integration/realollama/ >"$out/go.json" 2>"$out/go.stderr"
read -r gp gf < <(node scripts/count-results.mjs go "$out/go.json")
echo "$gp passed, $gf failed"
[[ $gf -gt 0 ]] && echo "Failed Go tests:" && node scripts/count-results.mjs go-failures "$out/go.json"

echo "── browser suite (frontend/e2e-real)"
(cd frontend && OLLAMA_BIN=$ollama SHOTS_DIR="$out/shots" npx vitest run --config vitest.e2e-real.config.ts \
  --reporter=default --reporter=json --outputFile="$out/e2e.json")
read -r ep ef < <(node scripts/count-results.mjs vitest "$out/e2e.json")
echo "$ep passed, $ef failed"

# No server may outlive the suite, whatever failed.
if pgrep -f "^$ollama (serve|runner)" >/dev/null; then
  echo "FAIL: an Ollama process outlived the suite:"; pgrep -af "^$ollama (serve|runner)"
  exit 1
fi
[[ $gf -eq 0 && $ef -eq 0 ]]
