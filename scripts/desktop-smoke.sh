#!/usr/bin/env bash
# Desktop smoke test: the real Gantry window under Xvfb. Prints one "ok …" or "FAIL …" line per
# check (scripts/test.sh counts them) and writes screenshots to OUT.
# Usage: desktop-smoke.sh GANTRY_BIN FAKE_OLLAMA_BIN OUT
set -uo pipefail
bin=$(realpath "$1") fake=$(realpath "$2") out=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
out=$(realpath "$out")
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

ok() { echo "ok $*"; }
# wait_title WIN TITLE: up to 5 s for that exact window to carry exactly that title. (xdotool
# search matches case-insensitively and also finds GTK's hidden leader window named "gantry".)
wait_title() {
  for _ in $(seq 50); do [[ "$(xdotool getwindowname "$1" 2>/dev/null)" == "$2" ]] && return 0; sleep 0.1; done
  return 1
}
fail() { echo "FAIL $*"; }

# A free display number, so a developer's own X server or a parallel run is never disturbed.
disp=90
while [[ -e /tmp/.X11-unix/X$disp || -e /tmp/.X$disp-lock ]]; do disp=$((disp + 1)); done
Xvfb ":$disp" -screen 0 1600x1000x24 -nolisten tcp >"$tmp/xvfb.log" 2>&1 &
pids+=($!)
export DISPLAY=":$disp"
for _ in $(seq 50); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done

# A fake Ollama so the status bar shows a reachable server with models.
"$fake" --listen 127.0.0.1:0 --script <(cat <<'JSON'
{"models":[{"name":"qwen3:4b","arch":"qwen3","contextLength":40960,"capabilities":["completion","tools","thinking"],"parameterSize":"4.0B","quantization":"Q4_K_M","size":2600000000}]}
JSON
) >"$tmp/fake.out" 2>"$tmp/fake.err" &
pids+=($!)
for _ in $(seq 50); do grep -q "listening on" "$tmp/fake.out" 2>/dev/null && break; sleep 0.1; done
ollama_url=$(sed -n 's/^listening on //p' "$tmp/fake.out")

# A project to drop: a few files, one ignored by .gitignore.
proj="$tmp/sample-project"
mkdir -p "$proj/src" "$proj/.git"
printf 'node_modules/\n*.log\n' >"$proj/.gitignore"
printf '# Sample\n' >"$proj/README.md"
printf 'package main\n' >"$proj/src/main.go"
printf 'x\n' >"$proj/debug.log"

# WebKit's GPU paths are unavailable under Xvfb; software rendering keeps the page visible.
export WEBKIT_DISABLE_COMPOSITING_MODE=1 WEBKIT_DISABLE_DMABUF_RENDERER=1 LIBGL_ALWAYS_SOFTWARE=1
OLLAMA_HOST="$ollama_url" "$bin" --data-dir "$tmp/data" --config-dir "$tmp/config" >"$tmp/gantry.log" 2>&1 &
gantry_pid=$!
pids+=($gantry_pid)

start=$(date +%s.%N)
win=$(timeout 5 xdotool search --sync --onlyvisible --name '^Gantry$' 2>/dev/null | head -n 1)
mapped=$(echo "$(date +%s.%N) - $start" | bc)
if [[ -n "$win" ]]; then ok "window mapped in ${mapped}s"; else fail "window not mapped within 5s"; tail -n 30 "$tmp/gantry.log"; exit 1; fi

xdotool windowmove "$win" 0 0
xdotool windowsize "$win" 1280 820
# Give the page time to load and the status check to answer before the first picture.
sleep 3
import -window root -crop 1280x820+0+0 "$out/welcome.png" && ok "welcome screenshot written" || fail "welcome screenshot"

/usr/bin/python3 "$here/drag-source.py" "$proj" 1350 100 >"$tmp/drag.out" 2>"$tmp/drag.err" &
pids+=($!)
src=$(timeout 5 xdotool search --sync --onlyvisible --name '^gantry-drag-source$' 2>/dev/null | head -n 1)
if [[ -z "$src" ]]; then fail "drag source window did not appear"; cat "$tmp/drag.err"; exit 1; fi
eval "$(xdotool getwindowgeometry --shell "$src")"
sx=$((X + WIDTH / 2)) sy=$((Y + HEIGHT / 2))

# Press on the source, move in small steps (GTK starts a drag only after motion), release over
# the middle of Gantry's window.
xdotool mousemove "$sx" "$sy" mousedown 1
for i in $(seq 1 30); do
  xdotool mousemove $((sx - i * (sx - 640) / 30)) $((sy + i * (410 - sy) / 30))
  sleep 0.03
done
sleep 0.3
xdotool mouseup 1

if wait_title "$win" "Gantry — sample-project"; then
  ok "dragging a folder onto the window opened it"
else
  fail "dragging a folder onto the window did not open it (title: $(xdotool getwindowname "$win"))"
fi
sleep 1.5
import -window root -crop 1280x820+0+0 "$out/workspace.png" && ok "workspace screenshot written" || fail "workspace screenshot"

# The page must still be the app after the drop (WebKit can navigate to a dropped folder): click
# "Close project" (the back arrow at the top left) and the app puts the plain title back.
xdotool mousemove 22 21 click 1
if wait_title "$win" "Gantry"; then
  ok "the app still answers clicks after the drop"
else
  fail "clicking Close project after the drop did nothing (did the page navigate away?)"
fi
grep -h "blocked navigation" "$tmp/gantry.log" || true
xdotool mousemove 900 700
sleep 1
import -window root -crop 1280x820+0+0 "$out/welcome-recent.png" && ok "welcome-with-recent screenshot written" || fail "welcome-with-recent screenshot"

# The open is recorded as a recent project in the real database.
if /usr/bin/python3 - "$tmp/data/gantry.db" "$proj" <<'PY'
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute("select path from workspaces").fetchall()
sys.exit(0 if (sys.argv[2],) in rows else 1)
PY
then ok "recent project stored in SQLite"; else fail "recent project not stored"; fi

if kill -0 "$gantry_pid" 2>/dev/null; then ok "no crash"; else fail "gantry exited"; tail -n 30 "$tmp/gantry.log"; fi
kill "$gantry_pid"
for _ in $(seq 50); do kill -0 "$gantry_pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$gantry_pid" 2>/dev/null; then fail "did not quit on SIGTERM within 5s"; else ok "quit on SIGTERM"; fi
cp "$tmp/gantry.log" "$out/gantry.log"
