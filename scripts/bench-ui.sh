#!/usr/bin/env bash
# The UI part of `make bench`: the real window next to a blank Wails v2 window built in the same
# run (bench/blank-wails, same tags, size and background), then the browser UI while the model
# streams, and reopening a long session. Prints "name<TAB>value<TAB>unit" lines for bench.sh's
# table.
# Usage: bench-ui.sh window | stream | reopen
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)
xvfb=
data=
cleanup() { [[ -n $xvfb ]] && kill "$xvfb" 2>/dev/null; rm -rf "$bin" ${data:+"$data"}; }
trap cleanup EXIT
export GOFLAGS="${GOFLAGS:-} -buildvcs=false"
tags=desktop,production,webkit2_41
[[ -f frontend/dist/index.html ]] || (cd frontend && npm run build >/dev/null)

if [[ ${1:-} == stream || ${1:-} == reopen ]]; then
  CGO_ENABLED=0 go build -o "$bin/gantry-serve" .
  go build -o "$bin/fake-ollama" ./internal/llm/fakeollama/cmd/fake-ollama
  cd frontend && GANTRY_BIN="$bin/gantry-serve" FAKE_OLLAMA_BIN="$bin/fake-ollama" node "bench/$1.mjs"
  exit
fi

go build -tags "$tags" -o "$bin/gantry" .
go build -tags "$tags" -o "$bin/blank-wails" ./bench/blank-wails

disp=90
while [[ -e /tmp/.X11-unix/X$disp || -e /tmp/.X$disp-lock ]]; do disp=$((disp + 1)); done
Xvfb ":$disp" -screen 0 1600x1000x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
export DISPLAY=":$disp" WEBKIT_DISABLE_COMPOSITING_MODE=1 WEBKIT_DISABLE_DMABUF_RENDERER=1 LIBGL_ALWAYS_SOFTWARE=1
for _ in $(seq 50); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done

# launch TITLE CMD…: one launch's "mapped painted RSS PSS" line. Ollama is an unused port, so
# Gantry's idle is the welcome screen with nothing to talk to.
launch() {
  local title=$1; shift
  OLLAMA_HOST=127.0.0.1:9 /usr/bin/python3 scripts/bench-ui-window.py "$title" 1e1f22 "$@"
}
# medians NAME: table lines from the launches' lines on stdin, the median of each column.
medians() {
  awk -v n="$1" '
    NF < 4 { next } # a launch that measured nothing
    { r++; for (i = 1; i <= 4; i++) v[i, r] = $i }
    function med(i,   a, j, k, t) { for (j = 1; j <= r; j++) a[j] = v[i, j] + 0
      for (j = 1; j <= r; j++) for (k = j + 1; k <= r; k++) if (a[k] < a[j]) { t = a[j]; a[j] = a[k]; a[k] = t }
      return a[int((r + 1) / 2)] }
    END {
      if (!r) exit 1
      printf "%s: window mapped\t%d\tms\n", n, med(1)
      printf "%s: first painted content\t%d\tms\n", n, med(2)
      printf "%s: idle RSS, process tree\t%d\tMiB\n", n, med(3)
      printf "%s: idle PSS, process tree\t%d\tMiB\n", n, med(4)
    }'
}
data=$(mktemp -d)
# The two windows take turns, five launches each, so a shared machine that slows down or speeds
# up meanwhile weighs on both alike. With three launches of one and then three of the other, the
# ratio (whose goal is 1.3) ranged from 1.0 to 1.4 between runs on the same commit.
blank=() gantry=()
for _ in 1 2 3 4 5; do
  blank+=("$(launch Blank "$bin/blank-wails")")
  gantry+=("$(launch Gantry "$bin/gantry" --data-dir "$data/data" --config-dir "$data/config")")
done
printf '%s\n' "${blank[@]}" | medians "blank Wails"
printf '%s\n' "${gantry[@]}" | medians "Gantry"
rm -rf "$data"
