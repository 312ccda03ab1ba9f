#!/usr/bin/env bash
# Desktop smoke test: the real Gantry window under Xvfb, driven by the X server's own mouse and
# keyboard (xdotool), in a light and then a dark GTK theme. Each pass drags a project folder in,
# types a task, watches the scripted model read two files and propose an edit, accepts it from
# the keyboard and checks the result on disk and in SQLite. Prints one "ok …" or "FAIL …" line
# per check (scripts/test.sh counts them) and writes screenshots to OUT.
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
fail() { echo "FAIL $*"; }
# Every wait below ends as soon as what it waits for happens; patience only bounds a hang. It is
# long because a cold WebKit start on a busy 2-core CI machine has taken over 5 s.
patience=${SMOKE_PATIENCE:-90}
# until_true CMD…: polls CMD every 0.1 s; false when it never succeeded within patience.
until_true() {
  local end=$((SECONDS + patience))
  until "$@"; do ((SECONDS < end)) || return 1; sleep 0.1; done
}
# wait_title WIN TITLE: waits for that exact window to carry exactly that title. (xdotool
# search matches case-insensitively and also finds GTK's hidden leader window named "gantry".)
has_title() { [[ "$(xdotool getwindowname "$1" 2>/dev/null)" == "$2" ]]; }
wait_title() { until_true has_title "$@"; }
gone() { ! kill -0 "$1" 2>/dev/null; }
# visible_window NAME_REGEX [PID]: the first visible window with that name, while PID (when
# given) still runs; empty when the process died or patience ran out.
visible_window() {
  local end=$((SECONDS + patience)) w
  while ((SECONDS < end)); do
    w=$(xdotool search --onlyvisible --name "$1" 2>/dev/null | head -n 1)
    [[ -n "$w" ]] && { echo "$w"; return 0; }
    [[ -n "${2:-}" ]] && ! kill -0 "$2" 2>/dev/null && return 1
    sleep 0.1
  done
  return 1
}
grab() { import -window root -crop 1280x1000+0+0 "$1"; }
# settled NAME: screenshots the window until two in a row match (a blinking caret, under 100
# pixels, does not count as a change), at most 6 s, and keeps the last one as OUT/NAME.png.
settled() {
  local prev="$tmp/settle-prev.png" cur="$tmp/settle-cur.png" diff
  grab "$prev"
  for _ in $(seq 20); do
    sleep 0.3
    grab "$cur"
    diff=$(compare -metric AE -fuzz 3% "$prev" "$cur" null: 2>&1)
    mv "$cur" "$prev"
    [[ ${diff%% *} =~ ^[0-9]+$ ]] && ((${diff%% *} < 100)) && break
  done
  mv "$prev" "$out/$1.png"
}

# A free display number, so a developer's own X server or a parallel run is never disturbed.
disp=90
while [[ -e /tmp/.X11-unix/X$disp || -e /tmp/.X$disp-lock ]]; do disp=$((disp + 1)); done
Xvfb ":$disp" -screen 0 1600x1100x24 -nolisten tcp >"$tmp/xvfb.log" 2>&1 &
pids+=($!)
export DISPLAY=":$disp"
until_true xdpyinfo >/dev/null 2>&1

# A fake Ollama so the status bar shows a reachable server with a model; each pass scripts it.
"$fake" --listen 127.0.0.1:0 --script <(cat <<'JSON'
{"models":[{"name":"qwen3:4b","arch":"qwen3","contextLength":40960,"capabilities":["completion","tools","thinking"],"parameterSize":"4.0B","quantization":"Q4_K_M","size":2600000000}]}
JSON
) >"$tmp/fake.out" 2>"$tmp/fake.err" &
pids+=($!)
until_true grep -qs "listening on" "$tmp/fake.out"
ollama_url=$(sed -n 's/^listening on //p' "$tmp/fake.out")
requests() { curl -fsS "$ollama_url/_fake/requests" | /usr/bin/python3 -c 'import json,sys; print(len(json.load(sys.stdin) or []))'; }
has_requests() { [[ $(requests) -ge $1 ]]; }

# The model's part of the task: think, read two files in one batch (a progress group), propose
# an edit (an approval card in "ask" mode), then finish once the edit is answered.
script_model() {
  curl -fsS -X POST "$ollama_url/_fake/reset" >/dev/null
  curl -fsS -X POST "$ollama_url/_fake/turns" --data-binary @- >/dev/null <<'JSON'
[
  {"chunkDelayMs": 60, "chunks": [
    {"thinking": "The greeting lives in main.go and the helper in util/strings.go. "},
    {"thinking": "I will read both before changing anything."},
    {"toolCalls": [
      {"name": "read_file", "arguments": {"path": "src/main.go"}},
      {"name": "read_file", "arguments": {"path": "src/util/strings.go"}}]}]},
  {"chunkDelayMs": 60, "chunks": [
    {"thinking": "main prints a fixed string; util.Shout upper-cases it. "},
    {"thinking": "Use the helper and add an exclamation mark."},
    {"content": "I'll make `main` greet loudly through `util.Shout`."},
    {"toolCalls": [{"name": "edit_file", "arguments": {"path": "src/main.go", "edits": [
      {"old": "import \"fmt\"\n", "new": "import (\n\t\"fmt\"\n\n\t\"sample/src/util\"\n)\n"},
      {"old": "\tfmt.Println(\"hello\")\n", "new": "\tfmt.Println(util.Shout(\"hello\") + \"!\")\n"}]}}]}]},
  {"chunkDelayMs": 40, "chunks": [
    {"content": "Done: `main` now prints **HELLO!** using `util.Shout`. [TASK_COMPLETE]"}]}
]
JSON
}

# make_project DIR: a small Go project, one file ignored by .gitignore.
make_project() {
  mkdir -p "$1/src/util" "$1/.git"
  printf 'node_modules/\n*.log\n' >"$1/.gitignore"
  printf '# Sample\n\nPrints a greeting.\n' >"$1/README.md"
  printf 'module sample\n\ngo 1.22\n' >"$1/go.mod"
  printf 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("hello")\n}\n' >"$1/src/main.go"
  printf 'package util\n\nimport "strings"\n\n// Shout upper-cases s.\nfunc Shout(s string) string { return strings.ToUpper(s) }\n' >"$1/src/util/strings.go"
  printf 'x\n' >"$1/debug.log"
}

# WebKit's GPU paths are unavailable under Xvfb; software rendering keeps the page visible.
export WEBKIT_DISABLE_COMPOSITING_MODE=1 WEBKIT_DISABLE_DMABUF_RENDERER=1 LIBGL_ALWAYS_SOFTWARE=1

# drag_in PATH WIN: drags PATH from a small GTK drag source onto the window, through the real X
# drag-and-drop protocol. GTK starts a drag only after motion, so the pointer moves in steps.
drag_in() {
  /usr/bin/python3 "$here/drag-source.py" "$1" 1350 100 >"$tmp/drag.out" 2>"$tmp/drag.err" &
  local drag_pid=$! src sx sy
  src=$(visible_window '^gantry-drag-source$' "$drag_pid")
  if [[ -z "$src" ]]; then fail "drag source window did not appear"; cat "$tmp/drag.err"; kill "$drag_pid"; return 1; fi
  eval "$(xdotool getwindowgeometry --shell "$src")"
  sx=$((X + WIDTH / 2)) sy=$((Y + HEIGHT / 2))
  xdotool mousemove "$sx" "$sy" mousedown 1
  for i in $(seq 1 30); do
    xdotool mousemove $((sx - i * (sx - 640) / 30)) $((sy + i * (410 - sy) / 30))
    sleep 0.03
  done
  sleep 0.3
  xdotool mouseup 1
  sleep 0.2
  kill "$drag_pid" 2>/dev/null; wait "$drag_pid" 2>/dev/null
  return 0
}

# sqlite_check DB SQL: true when the query returns a row whose first column is truthy.
sqlite_check() {
  /usr/bin/python3 - "$@" <<'PY'
import sqlite3, sys
row = sqlite3.connect(sys.argv[1]).execute(sys.argv[2], sys.argv[3:]).fetchone()
sys.exit(0 if row and row[0] else 1)
PY
}

# pass THEME: one run of the app and the scripted task, screenshots suffixed -THEME.
pass() {
  local theme=$1 dir="$tmp/$1" win start mapped shots_before
  local proj="$dir/sample-project"
  mkdir -p "$dir/config"
  make_project "$proj"
  # "ask" mode: every edit waits for the person; the model is preselected so the task can be typed.
  printf '{"permissionMode":"ask","defaultModel":"qwen3:4b"}\n' >"$dir/config/settings.json"
  script_model

  local env=(OLLAMA_HOST="$ollama_url")
  [[ $theme == dark ]] && env+=(GTK_THEME=Adwaita:dark)
  env "${env[@]}" "$bin" --data-dir "$dir/data" --config-dir "$dir/config" >"$dir/gantry.log" 2>&1 &
  gantry_pid=$!
  pids+=($gantry_pid)

  start=$(date +%s.%N)
  win=$(visible_window '^Gantry$' "$gantry_pid")
  mapped=$(echo "$(date +%s.%N) - $start" | bc)
  if [[ -n "$win" ]]; then ok "$theme: window mapped in ${mapped}s"; else fail "$theme: window never mapped (the app exited or ${patience}s passed)"; tail -n 30 "$dir/gantry.log"; return 1; fi
  xdotool windowmove "$win" 0 0
  xdotool windowsize "$win" 1280 1000
  # The page loads and the status check answers before the first picture.
  sleep 1
  settled "welcome-$theme" && ok "$theme: welcome screenshot written"

  drag_in "$proj" || return 1
  if wait_title "$win" "Gantry — sample-project"; then
    ok "$theme: dragging a folder onto the window opened it"
  else
    fail "$theme: dragging a folder onto the window did not open it (title: $(xdotool getwindowname "$win"))"
    return 1
  fi
  settled "workspace-$theme" && ok "$theme: workspace screenshot written"

  # Click into the chat input (the box at the bottom of the chat column) and type the task.
  xdotool mousemove 770 892 click 1
  sleep 0.2
  xdotool type --delay 15 "Make main greet loudly using util.Shout"
  xdotool key Return
  if until_true has_requests 2; then ok "$theme: the typed task reached the model"; else fail "$theme: the task never reached the model ($(requests) requests)"; return 1; fi
  settled "approval-$theme" && ok "$theme: approval screenshot written"
  if grep -q 'fmt.Println("hello")' "$proj/src/main.go"; then ok "$theme: nothing written before the edit was accepted"; else fail "$theme: the edit was written without approval"; fi

  # Accept from the keyboard (Alt+Y); the focus is still in the chat input.
  xdotool key alt+y
  if until_true grep -q 'util.Shout("hello")' "$proj/src/main.go"; then
    ok "$theme: Alt+Y accepted the edit"
  else
    fail "$theme: Alt+Y did not accept the edit"
    accept_by_click "$theme"
  fi
  if until_true has_requests 3; then ok "$theme: the run went on after the approval"; else fail "$theme: the run stalled after the approval"; fi
  settled "review-$theme" && ok "$theme: review screenshot written"

  if grep -q 'fmt.Println(util.Shout("hello") + "!")' "$proj/src/main.go" && grep -q '"sample/src/util"' "$proj/src/main.go"; then
    ok "$theme: the edit is on disk"
  else
    fail "$theme: main.go is not as edited: $(cat "$proj/src/main.go")"
  fi
  if sqlite_check "$dir/data/gantry.db" "select count(*) from sessions s join messages m on m.session_id = s.id where s.workspace_path = ? and m.role = 'user'" "$proj"; then
    ok "$theme: the session and its messages are in SQLite"
  else
    fail "$theme: no session with messages in SQLite"
  fi

  if [[ $theme == light ]]; then
    # The page must still be the app after the drop (WebKit can navigate to a dropped folder):
    # click "Close project" (the back arrow at the top left) and the plain title comes back.
    xdotool mousemove 22 21 click 1
    if wait_title "$win" "Gantry"; then ok "the app still answers clicks after the drop"
    else fail "clicking Close project after the drop did nothing (did the page navigate away?)"; fi
    grep -h "blocked navigation" "$dir/gantry.log" || true
    xdotool mousemove 900 700
    settled "welcome-recent-$theme" && ok "welcome-with-recent screenshot written"
    if sqlite_check "$dir/data/gantry.db" "select count(*) from workspaces where path = ?" "$proj"; then
      ok "recent project stored in SQLite"; else fail "recent project not stored"; fi
  fi

}

# accept_by_click THEME: the fallback while Alt+Y does not work: click the card's Accept button,
# found by position in the last screenshot as the lowest solid band of accent colour (the Send
# button is a Stop button while the run waits, so it is not accent-coloured then).
accept_by_click() {
  local xy
  xy=$(/usr/bin/python3 - "$out/approval-$1.png" <<'PY'
import sys
import gi
gi.require_version("GdkPixbuf", "2.0")
from gi.repository import GdkPixbuf
pb = GdkPixbuf.Pixbuf.new_from_file(sys.argv[1])
w, h, n, stride, px = pb.get_width(), pb.get_height(), pb.get_n_channels(), pb.get_rowstride(), pb.get_pixels()
accents = [(0x53, 0x61, 0xd8), (0x6d, 0x79, 0xee)]  # --accent in app.css, light and dark
bands, band = [], []
for y in range(h):
    row = y * stride
    xs = [x for x in range(0, w, 2)
          if any(all(abs(px[row + x * n + i] - a[i]) < 12 for i in range(3)) for a in accents)]
    if len(xs) >= 10:
        band.append((y, xs))
    elif band:
        bands.append(band); band = []
bands = [b for b in bands if len(b) >= 10]
if not bands:
    sys.exit("no accent-coloured button in the screenshot")
b = bands[-1]
xs = sorted(x for _, row in b for x in row)
print(xs[len(xs) // 2], b[len(b) // 2][0])
PY
) || { fail "$1: no Accept button found ($xy)"; return 1; }
  xdotool mousemove ${xy% *} ${xy#* } click 1
  if until_true grep -q 'util.Shout("hello")' "$proj/src/main.go"; then ok "$1: clicking Accept accepted the edit (fallback)"; else fail "$1: clicking Accept did not accept the edit"; fi
}

# stop THEME: the app must still be alive, then quit on SIGTERM.
stop() {
  if kill -0 "$gantry_pid" 2>/dev/null; then ok "$1: no crash"; else fail "$1: gantry exited"; tail -n 30 "$tmp/$1/gantry.log"; fi
  kill "$gantry_pid" 2>/dev/null
  if until_true gone "$gantry_pid"; then ok "$1: quit on SIGTERM"; else fail "$1: did not quit on SIGTERM within ${patience}s"; kill -9 "$gantry_pid"; fi
  cp "$tmp/$1/gantry.log" "$out/gantry-$1.log"
}

gantry_pid=
for theme in light dark; do
  pass "$theme"
  [[ -n $gantry_pid ]] && stop "$theme"
  gantry_pid=
done
